// Package wasmpack makes a Go WebAssembly binary smaller once compressed,
// without changing what it does: Pack joins the data segments Go's linker
// writes.
package wasmpack

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
)

// Pack rewrites the data section of a WebAssembly binary built
// by Go so that nearby data segments become one, the bytes between them
// written out as the zeros they are in memory.
//
// Go's linker starts a new data segment at every run of zero bytes: the
// calculator's wasm has about 66,000 segments, most of them a few bytes
// long, each with its own header (flags, an i32.const offset and a
// length). The headers hardly compress; zeros do. Packed with gaps of up
// to maxGap bytes, calc.wasm is about 70 KB smaller with brotli (820 →
// 751 KB) and 110 KB with gzip, though about 0.7 MB larger raw.
//
// The site build packs every wasm it ships (site/gen/wasm.go), and
// scripts/wasmsize reports the packed size.
//
// The result initialises memory with exactly the same bytes: memory starts
// zeroed, and the segments are active segments of memory 0 with constant
// offsets that do not overlap, which is all Go's linker writes (anything
// else is an error, and the caller keeps the binary as it was built). The
// other sections are copied unchanged.
func Pack(wasm []byte, maxGap int) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("wasmpack: not a WebAssembly binary")
	}
	out := bytes.NewBuffer(make([]byte, 0, len(wasm)+len(wasm)/4))
	out.Write(wasm[:8])
	off := 8
	found := false
	for off < len(wasm) {
		id := wasm[off]
		size, n := uleb(wasm[off+1:])
		if n == 0 || off+1+n+int(size) > len(wasm) {
			return nil, fmt.Errorf("wasmpack: section %d at byte %d is truncated", id, off)
		}
		body := wasm[off+1+n : off+1+n+int(size)]
		off += 1 + n + int(size)
		if id != 11 { // not the data section: as it is
			out.WriteByte(id)
			out.Write(appendULEB(nil, uint64(len(body))))
			out.Write(body)
			continue
		}
		segs, err := dataSegments(body)
		if err != nil {
			return nil, err
		}
		packed := appendSegments(nil, mergeSegments(segs, maxGap))
		out.WriteByte(id)
		out.Write(appendULEB(nil, uint64(len(packed))))
		out.Write(packed)
		found = true
	}
	if !found {
		return nil, errors.New("wasmpack: no data section")
	}
	return out.Bytes(), nil
}

// segment is an active data segment: bytes written at offset of memory 0.
type segment struct {
	offset int64
	data   []byte
}

// dataSegments parses a data section's segments; only active segments of
// memory 0 with an i32.const offset (flags 0) are accepted.
func dataSegments(b []byte) ([]segment, error) {
	count, n := uleb(b)
	if n == 0 {
		return nil, errors.New("wasmpack: bad segment count")
	}
	p := n
	segs := make([]segment, 0, count)
	for i := uint64(0); i < count; i++ {
		if p+2 > len(b) || b[p] != 0 || b[p+1] != 0x41 {
			return nil, fmt.Errorf("wasmpack: segment %d is not an active segment with an i32.const offset", i)
		}
		p += 2
		offset, n := sleb(b[p:])
		if n == 0 || p+n >= len(b) || b[p+n] != 0x0b {
			return nil, fmt.Errorf("wasmpack: segment %d has a bad offset", i)
		}
		p += n + 1
		size, n := uleb(b[p:])
		if n == 0 || p+n+int(size) > len(b) {
			return nil, fmt.Errorf("wasmpack: segment %d is truncated", i)
		}
		p += n
		segs = append(segs, segment{offset, b[p : p+int(size)]})
		p += int(size)
	}
	if p != len(b) {
		return nil, fmt.Errorf("wasmpack: %d bytes after the last segment", len(b)-p)
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].offset < segs[j].offset })
	for i := 1; i < len(segs); i++ {
		if prev := segs[i-1]; prev.offset+int64(len(prev.data)) > segs[i].offset {
			return nil, fmt.Errorf("wasmpack: segments at %d and %d overlap", prev.offset, segs[i].offset)
		}
	}
	return segs, nil
}

// mergeSegments joins sorted, non-overlapping segments that are at most
// maxGap bytes apart, filling the gaps with zeros.
func mergeSegments(segs []segment, maxGap int) []segment {
	var out []segment
	for _, s := range segs {
		if k := len(out) - 1; k >= 0 {
			end := out[k].offset + int64(len(out[k].data))
			if gap := s.offset - end; gap <= int64(maxGap) {
				out[k].data = append(append(out[k].data, make([]byte, gap)...), s.data...)
				continue
			}
		}
		out = append(out, segment{s.offset, append([]byte(nil), s.data...)})
	}
	return out
}

func appendSegments(b []byte, segs []segment) []byte {
	b = appendULEB(b, uint64(len(segs)))
	for _, s := range segs {
		b = append(b, 0, 0x41)
		b = appendSLEB(b, s.offset)
		b = append(b, 0x0b)
		b = appendULEB(b, uint64(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

// uleb decodes an unsigned LEB128 number; n is 0 when b holds none.
func uleb(b []byte) (x uint64, n int) {
	for shift := uint(0); n < len(b) && shift < 64; shift += 7 {
		c := b[n]
		n++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, n
		}
	}
	return 0, 0
}

// sleb decodes a signed LEB128 number; n is 0 when b holds none.
func sleb(b []byte) (x int64, n int) {
	var shift uint
	for n < len(b) && shift < 64 {
		c := b[n]
		n++
		x |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				x |= -1 << shift
			}
			return x, n
		}
	}
	return 0, 0
}

func appendULEB(b []byte, x uint64) []byte {
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if x == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendSLEB(b []byte, x int64) []byte {
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// Gap is the widest run of zeros the site build writes out to join two
// data segments (beyond it a new segment starts): 4 KiB leaves calc.wasm a
// handful of segments, about as small compressed as one.
const Gap = 4096
