package wasmpack

import (
	"bytes"
	"strings"
	"testing"
)

// module is a WebAssembly binary with one memory and the given data
// section body, as Go's linker lays them out (memory, then data).
func module(data []byte) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, 5, 3, 1, 0, 1) // memory section: one memory, min 1 page
	b = append(b, 11)
	b = appendULEB(b, uint64(len(data)))
	return append(b, data...)
}

// image is the memory a module's data section initialises.
func image(t *testing.T, wasm []byte) []byte {
	t.Helper()
	off := 8
	for off < len(wasm) {
		id := wasm[off]
		size, n := uleb(wasm[off+1:])
		body := wasm[off+1+n : off+1+n+int(size)]
		off += 1 + n + int(size)
		if id != 11 {
			continue
		}
		segs, err := dataSegments(body)
		if err != nil {
			t.Fatal(err)
		}
		mem := make([]byte, 1<<16)
		for _, s := range segs {
			copy(mem[s.offset:], s.data)
		}
		return mem
	}
	t.Fatal("no data section")
	return nil
}

func TestPackDataSegments(t *testing.T) {
	// Out of order as Go writes one of them, with gaps of 1, 3, 5000 and
	// 0 bytes, and an offset that needs a multi-byte signed LEB128.
	segs := []segment{{100, []byte{1, 2}}, {103, []byte{3}}, {107, []byte{4, 5, 6}}, {9000, []byte{9}}, {110, []byte{7}}, {60000, []byte{8, 8}}}
	raw := module(appendSegments(nil, segs))
	got, err := Pack(raw, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(image(t, got), image(t, raw)) {
		t.Error("Pack changed the memory image")
	}
	_, n := uleb(got[8+5+1:]) // after the header, the memory section and the data section's id
	packed, err := dataSegments(got[8+5+1+n:])
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) != 3 {
		t.Errorf("Pack left %d segments, want 3 (100–110, 9000, 60000): %v", len(packed), packed)
	}
	if !bytes.Equal(got[:8+5], raw[:8+5]) {
		t.Error("Pack changed the sections before the data section")
	}
	again, err := Pack(got, 4096)
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("packing twice changed the binary (err %v)", err)
	}

	for _, c := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"passive segment", module([]byte{1, 1, 2, 0xAA, 0xBB}), "not an active segment"},
		{"overlap", module(appendSegments(nil, []segment{{10, []byte{1, 2, 3}}, {11, []byte{4}}})), "overlap"},
		{"truncated", module([]byte{1, 0, 0x41, 0, 0x0b, 9, 1}), "truncated"},
		{"not wasm", []byte("hello, world"), "not a WebAssembly binary"},
		{"no data", []byte("\x00asm\x01\x00\x00\x00"), "no data section"},
	} {
		if _, err := Pack(c.wasm, 4096); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Pack error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestLEB128(t *testing.T) {
	for _, x := range []int64{0, 1, 63, 64, -1, -64, -65, 127, 128, 8192, 1 << 31, -1 << 31, 1<<62 + 5} {
		if got, n := sleb(appendSLEB(nil, x)); got != x || n == 0 {
			t.Errorf("sleb(appendSLEB(%d)) = %d, %d bytes", x, got, n)
		}
		if x >= 0 {
			if got, n := uleb(appendULEB(nil, uint64(x))); got != uint64(x) || n == 0 {
				t.Errorf("uleb(appendULEB(%d)) = %d, %d bytes", x, got, n)
			}
		}
	}
	if _, n := uleb([]byte{0x80, 0x80}); n != 0 {
		t.Error("uleb read an unterminated number")
	}
}
