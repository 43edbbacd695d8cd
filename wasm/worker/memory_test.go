package main

// Where workerd's resident memory is: /proc/PID/smaps split into the
// regions that can grow, and, when gdb is installed, the figures of the
// tcmalloc that workerd links (its own statistics page, read from the
// running process). BenchmarkWorkerd prints both at every measurement, for
// the Worker and for the trivial JavaScript worker it runs as a control.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssSplit is workerd's resident memory by region, in bytes.
type rssSplit struct {
	// malloc is the resident part of tcmalloc's heap: anonymous
	// reservations of exactly 1 GiB at a 1 GiB boundary, which is how
	// the tcmalloc linked into workerd reserves address space (the
	// tcmalloc figures below confirm it: its "actual memory used" is
	// this plus its metadata, which lies elsewhere).
	malloc int64
	// cage is V8's pointer-compression cage (4 GiB at a 4 GiB boundary),
	// which holds the JavaScript heap.
	cage int64
	// wasm is the other 4 GiB reservation, which holds the Go program's
	// WebAssembly linear memory (V8 reserves 4 GiB for a 32-bit memory);
	// the trivial JavaScript worker has none.
	wasm int64
	// code is executable anonymous memory: V8's code range and the
	// compiled WebAssembly.
	code int64
	// files is mapped files: workerd's binary and the C libraries.
	files int64
	// other is everything else: thread stacks, tcmalloc's metadata, V8's
	// other reservations.
	other int64
}

func (s rssSplit) total() int64 { return s.malloc + s.cage + s.wasm + s.code + s.files + s.other }

func (s rssSplit) String() string {
	mb := func(n int64) float64 { return float64(n) / 1e6 }
	return fmt.Sprintf("malloc heap %.1f, V8 cage %.1f, wasm memory %.1f, JIT code %.1f, files %.1f, other %.1f MB",
		mb(s.malloc), mb(s.cage), mb(s.wasm), mb(s.code), mb(s.files), mb(s.other))
}

// smapsEntry is one mapping of /proc/PID/smaps.
type smapsEntry struct {
	lo, hi     uint64
	perm, path string
	rss        int64
}

var smapsHeader = regexp.MustCompile(`^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$`)

// readSmaps reads the mappings of process pid and their resident bytes.
func readSmaps(pid int) ([]smapsEntry, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []smapsEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := smapsHeader.FindStringSubmatch(line); m != nil {
			lo, _ := strconv.ParseUint(m[1], 16, 64)
			hi, _ := strconv.ParseUint(m[2], 16, 64)
			out = append(out, smapsEntry{lo: lo, hi: hi, perm: m[3], path: strings.TrimSpace(m[4])})
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && len(out) > 0 {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err != nil {
				return nil, fmt.Errorf("smaps: %q: %v", line, err)
			}
			out[len(out)-1].rss = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("smaps: no mappings")
	}
	return out, nil
}

// splitRSS classifies the mappings of process pid by the reservations
// they belong to. The kernel splits a reservation where its protection
// changes (the committed part rw-p, the rest ---p) and may merge a
// neighbouring mapping of the same protection into its committed part, so
// a reservation is found by its inaccessible part: V8's cage and the wasm
// memory end in ---p mappings of 3-4 GiB and span exactly 4 GiB, the cage
// from a 4 GiB boundary; tcmalloc's regions start with a ---p mapping at a
// 1 GiB boundary and span 1 GiB. A mapping merged into a reservation's
// committed part is counted with it.
func splitRSS(pid int) (rssSplit, error) {
	m, err := readSmaps(pid)
	if err != nil {
		return rssSplit{}, err
	}
	return splitMappings(m), nil
}

// splitMappings is splitRSS over mappings already read.
func splitMappings(m []smapsEntry) rssSplit {
	type span struct {
		lo, hi uint64
		kind   *int64
	}
	var s rssSplit
	var spans []span
	for _, e := range m {
		size := e.hi - e.lo
		switch {
		case e.path != "" || e.perm != "---p":
		case size >= 3<<30 && size < 4<<30:
			lo := e.hi - 4<<30
			kind := &s.wasm
			if lo%(4<<30) == 0 {
				kind = &s.cage
			}
			spans = append(spans, span{lo, e.hi, kind})
		case size < 1<<30 && e.lo%(1<<30) == 0:
			spans = append(spans, span{e.lo, e.lo + 1<<30, &s.malloc})
		}
	}
next:
	for _, e := range m {
		switch {
		case strings.HasPrefix(e.path, "["): // [stack], [vdso], [heap]
			s.other += e.rss
			continue
		case e.path != "":
			s.files += e.rss
			continue
		case strings.Contains(e.perm, "x"):
			s.code += e.rss
			continue
		}
		for _, sp := range spans {
			if e.lo < sp.hi && e.hi > sp.lo {
				*sp.kind += e.rss
				continue next
			}
		}
		s.other += e.rss
	}
	return s
}

// tcmallocStats is what the tcmalloc in workerd says of its own memory.
type tcmallocStats struct {
	inUse    int64 // bytes in use by the program (workerd, V8, the isolate)
	free     int64 // bytes freed by the program that tcmalloc keeps in its free lists
	actual   int64 // bytes it has from the system (in use, free lists, metadata)
	released int64 // bytes it has given back to the system ("unmapped")
}

func (t tcmallocStats) String() string {
	return fmt.Sprintf("tcmalloc: in use %.1f MB, free lists %.1f MB, held %.1f MB, given back %.1f MB",
		float64(t.inUse)/1e6, float64(t.free)/1e6, float64(t.actual)/1e6, float64(t.released)/1e6)
}

// errNoGDB says why tcmalloc's figures are missing.
var errNoGDB = errors.New("gdb not found: tcmalloc's own figures not read (apt-get install gdb)")

// readTCMalloc reads the statistics page of the tcmalloc in process pid
// (workerd's binary keeps its symbol table): gdb attaches, calls
// TCMalloc_Internal_GetStats into a buffer, writes the buffer to a file
// and detaches. Call it while workerd is idle: all its threads stop for
// the second or two this takes.
func readTCMalloc(pid int) (tcmallocStats, string, error) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		return tcmallocStats{}, "", errNoGDB
	}
	dir, err := os.MkdirTemp("", "wattscale-tcmalloc-")
	if err != nil {
		return tcmallocStats{}, "", err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "stats.txt")
	script := filepath.Join(dir, "stats.gdb")
	if err := os.WriteFile(script, []byte(`set pagination off
set confirm off
set $buf = (char*)malloc(1<<20)
set $n = (int)TCMalloc_Internal_GetStats($buf, 1<<20)
dump binary memory `+out+` $buf $buf+$n
call (void)free($buf)
detach
quit
`), 0o644); err != nil {
		return tcmallocStats{}, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gdb, "-batch", "-nx", "-p", strconv.Itoa(pid), "-x", script)
	b, err := cmd.CombinedOutput()
	page, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		return tcmallocStats{}, "", fmt.Errorf("gdb on workerd: %v %v\n%s", err, rerr, clipBytes(b))
	}
	t, err := parseTCMalloc(string(page))
	return t, string(page), err
}

var tcmallocLine = regexp.MustCompile(`(?m)^MALLOC:\s+[=+]?\s*(\d+) \(\s*[\d.]+ MiB\) (.+)$`)

// parseTCMalloc reads the totals of tcmalloc's statistics page.
func parseTCMalloc(page string) (tcmallocStats, error) {
	var t tcmallocStats
	found := 0
	for _, m := range tcmallocLine.FindAllStringSubmatch(page, -1) {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return t, err
		}
		switch name := strings.TrimSpace(m[2]); {
		case name == "Bytes in use by application":
			t.inUse = n
			found++
		case strings.HasPrefix(name, "Bytes in ") && strings.HasSuffix(name, "freelist"),
			name == "Bytes in thread cache freelists":
			t.free += n
		case name == "Actual memory used (physical + swap)":
			t.actual = n
			found++
		case name == "Bytes released to OS (aka unmapped)":
			t.released = n
			found++
		}
	}
	if found != 3 {
		return t, fmt.Errorf("tcmalloc's statistics page not understood: %q", clipBytes([]byte(page)))
	}
	return t, nil
}

// TestParseTCMalloc reads the totals of a statistics page that workerd's
// tcmalloc wrote (testdata/tcmalloc-stats.txt: workerd serving the Worker,
// after 200,000 requests and a full collection), and refuses text that is
// not one.
func TestParseTCMalloc(t *testing.T) {
	page, err := os.ReadFile("testdata/tcmalloc-stats.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseTCMalloc(string(page))
	if err != nil {
		t.Fatal(err)
	}
	// The page's own lines: in use 43536664; free lists: page heap
	// 56098816, central 38295360, per-CPU 0, sharded 0, transfer
	// 12482656, thread 17358664; actual 172944190; released 0.
	want := tcmallocStats{inUse: 43536664, free: 56098816 + 38295360 + 12482656 + 17358664, actual: 172944190}
	if got != want {
		t.Errorf("parseTCMalloc = %+v, want %+v", got, want)
	}
	// What tcmalloc holds is what is in use, in its free lists and in its
	// metadata (3632734 + 1539296 bytes on this page).
	if meta := got.actual - got.inUse - got.free; meta != 3632734+1539296 {
		t.Errorf("metadata %d bytes, want %d", meta, 3632734+1539296)
	}
	if _, err := parseTCMalloc("MALLOC: nothing here\n"); err == nil {
		t.Error("parseTCMalloc accepted a page without totals")
	}
}

// TestSplitRSSAddsUp splits this test's own resident memory: the regions
// add up to what /proc says of the whole.
func TestSplitRSSAddsUp(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc/self/smaps on this system")
	}
	// This process's other tests run meanwhile and move its RSS: read it
	// before and after the split, which must fall between the two within
	// 5 %. (Against one reading after it, this failed once by 5.07 %.)
	rss0, err := rssBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	s, err := splitRSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	rss1, err := rssBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.files == 0 {
		t.Errorf("the test binary's own mapping not counted: %v", s)
	}
	lo, hi := min(rss0, rss1), max(rss0, rss1)
	if tot := s.total(); tot < lo-lo/20 || tot > hi+hi/20 {
		t.Errorf("the split adds up to %d bytes (%v), VmRSS is %d before and %d after it", tot, s, rss0, rss1)
	}
}

// TestSplitMappings classifies a layout seen in workerd's smaps (addresses
// from one run), with a thread's mapping merged into the wasm memory's
// committed part, as happened in one run.
func TestSplitMappings(t *testing.T) {
	const k = 1 << 10
	m := []smapsEntry{
		{lo: 0xe0d80000000, hi: 0xe0dbfe00000, perm: "---p"},                // tcmalloc: 1 GiB region,
		{lo: 0xe0dbfe00000, hi: 0xe0dc0000000, perm: "rw-p", rss: 1208 * k}, // committed at its end
		{lo: 0x12de40000000, hi: 0x12de7c400000, perm: "---p"},              // tcmalloc's main region
		{lo: 0x12de7c400000, hi: 0x12de80000000, perm: "rw-p", rss: 44776 * k},
		{lo: 0x1a5100000000, hi: 0x1a5100010000, perm: "r--p", rss: 32 * k}, // V8's cage at a 4 GiB boundary
		{lo: 0x1a5100010000, hi: 0x1a5100400000, perm: "rw-p", rss: 1100 * k},
		{lo: 0x1a5100400000, hi: 0x1a5200000000, perm: "---p"},
		{lo: 0x2faafb8e0000, hi: 0x2faafc06b000, perm: "rwxp", rss: 1936 * k}, // JIT code
		{lo: 0x5644d9000000, hi: 0x5644dbe04000, perm: "r-xp", path: "/usr/bin/workerd", rss: 40000 * k},
		{lo: 0x5644dbe04000, hi: 0x5644dc000000, perm: "rw-p", rss: 1924 * k}, // other (after the binary)
		// a thread's 128 KiB merged in front of the wasm memory's 7 MiB
		{lo: 0x7f3df0460000, hi: 0x7f3df0b80000, perm: "rw-p", rss: 5640*k + 64*k},
		{lo: 0x7f3df0b80000, hi: 0x7f3ef0480000, perm: "---p"},
		{lo: 0x7ffdd28dc000, hi: 0x7ffdd28fd000, perm: "rw-p", path: "[stack]", rss: 44 * k},
	}
	got := splitMappings(m)
	want := rssSplit{malloc: (1208 + 44776) * k, cage: (32 + 1100) * k, wasm: (5640 + 64) * k, code: 1936 * k, files: 40000 * k, other: (1924 + 44) * k}
	if got != want {
		t.Errorf("splitMappings = %+v, want %+v", got, want)
	}
}
