package main

// Benchmarks of the worker in workerd: throughput, latency, resident
// memory and the soak.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"
)

// memory is the isolate's V8 heap after a full collection (used, and held
// by V8), and workerd's resident memory before that collection, after it
// and at its highest so far; after the collection, where that memory is
// (split) and, when gdb is installed, what workerd's tcmalloc says of it
// (tcErr says why not).
type memory struct {
	heap, heapTotal     int64
	rssBefore, rss, hwm int64
	split               rssSplit
	tc                  tcmallocStats
	tcErr               error
}

// measureMemory reads p's memory; tcmalloc's figures only with withTCMalloc
// (gdb stops workerd for a second or two to read them).
func measureMemory(t testing.TB, p workerdProc, withTCMalloc bool) memory {
	t.Helper()
	var m memory
	var err error
	if m.rssBefore, err = rssBytes(p.pid); err != nil {
		t.Fatal(err)
	}
	if m.heap, m.heapTotal, err = heapAfterGC(p.inspector); err != nil {
		t.Fatalf("V8 heap through the inspector: %v", err)
	}
	if m.rss, err = rssBytes(p.pid); err != nil {
		t.Fatal(err)
	}
	if m.hwm, err = procStatus(p.pid, "VmHWM"); err != nil {
		t.Fatal(err)
	}
	if m.split, err = splitRSS(p.pid); err != nil {
		t.Fatal(err)
	}
	m.tcErr = errors.New("tcmalloc's figures not asked for")
	if withTCMalloc {
		m.tc, _, m.tcErr = readTCMalloc(p.pid)
	}
	return m
}

func (m memory) String() string {
	s := fmt.Sprintf("V8 heap %.2f MB (V8 holds %.2f MB), RSS %.1f MB before the collection, %.1f MB after (highest %.1f MB): %v",
		float64(m.heap)/1e6, float64(m.heapTotal)/1e6, float64(m.rssBefore)/1e6, float64(m.rss)/1e6, float64(m.hwm)/1e6, m.split)
	if m.tcErr == nil {
		s += "; " + m.tc.String()
	}
	return s
}

// grown is how much b exceeds a, as a fraction of a.
func grown(a, b int64) float64 { return float64(b-a) / float64(a) }

// BenchmarkWorkerd is the Worker's load and cost report (run it once, with
// -benchtime 1x; "make bench-worker"):
//
//   - one connection, one request at a time (three rounds of 2,000
//     estimates, and their medians): p50 and p99 latency, and workerd's
//     CPU time per request; the goals are a p50
//     under 1 ms, a p99 under 3 ms and under 1 ms of CPU per warm request
//     (issue 17). They depend on the machine's load, so the load average
//     is printed with them. They run on a workerd of their own after
//     benchWarmN requests (10,000; WATTSCALE_BENCH_WARM sets it);
//   - on a second workerd, after 7,200 requests of warm-up (soakWarmUp,
//     as the control gets), 180,000 estimates at concurrency 16 in batches of 10,000, then
//     5,000 at 64, on the same isolate: none may fail or take over a
//     second. Each run opens its connections before it is timed
//     (openConnections, which says why); 5,000 more at 64 with the
//     connections dialled inside the window are printed, not checked. One
//     isolate runs one request at a time, so latency here is mostly
//     queueing: at concurrency 16 a request waits for about 15 others;
//     each run prints the time workerd's main thread waited for a CPU,
//     which on a loaded machine is most of the rest;
//   - memory, after a full collection (forced through the inspector), at
//     10,000, 60,000, 120,000 and 180,000 requests, and where it is
//     (/proc/PID/smaps split by region: tcmalloc's heap, V8's cage, the
//     wasm memory's reservation, JIT code, files, other; and, when gdb is
//     installed, tcmalloc's own figures, read from the running workerd).
//     Checked, as the Worker's own: the V8 heap in use within 10 % over
//     each span (the heap V8 holds within 1 MiB), Go's linear memory
//     (resident) within 10 % from 10,000 to 180,000, and the native
//     memory in use (tcmalloc's "in use by application", which holds
//     every native object that JavaScript keeps alive) within 10 % from
//     10,000 to 60,000 and to 180,000.
//     Printed, not checked: issue 15's "workerd RSS within 10 % from
//     10,000 to 60,000", for ours and for a trivial JavaScript worker
//     (testdata/jsworker) under the same load, with the regions it moved
//     in. It is not met by either, and the growth is workerd's: it is
//     all in tcmalloc's free lists. workerd runs V8's major collections
//     rarely under load (its cage grows to 19-91 MB of garbage before a
//     forced collection brings it back to 1.1 MB), the native objects
//     of the requests that garbage held (5-103 MB) are freed together
//     when it is collected, and workerd's tcmalloc keeps what is freed
//     (its page: 0 pages released to the system since startup), so RSS
//     follows the highest such peak so far and climbs for 200,000
//     requests and more, for the trivial worker as for ours, while the
//     native memory in use after a collection stays flat;
//   - the size of app.wasm, raw and gzip -9 (Cloudflare's limit applies to
//     the compressed upload: 3 MB on the free plan).
func BenchmarkWorkerd(b *testing.B) {
	bin := findWorkerd(b)
	lp := runWorkerd(b, bin, buildWorker(b), "/api/v1/health", false)
	body, want := referenceEstimate(b, lp.base)
	for b.Loop() {
		// The one-connection rounds on a workerd of their own, warmed up
		// until V8 has optimised the hot code (benchWarmN), so that the
		// load run below starts from the same count as the control's.
		load(lp, body, want, benchWarmN, loadConc).check(b, "warm-up")
		c1p50, c1p99, cpu, loadAvg := oneConnection(b, lp, body, want)

		p := runWorkerd(b, bin, buildWorker(b), "/api/v1/health", true)
		soakWarmUp(b, p, body, want)
		s := soak(b, p, body, want, 18, 1, 6, 12, 18)
		at10k, at60k, at120k, at180k := s.mem[1], s.mem[6], s.mem[12], s.mem[18]
		r64 := load(p, body, want, 5000, 64)
		r64.check(b, "concurrency 64")
		r64.checkSlow(b, "concurrency 64")
		b.Logf("concurrency 64: %v", r64)
		// The same with the 64 connections dialled by the first requests,
		// inside the window, as the load test did before: printed, not
		// checked (see openConnections).
		cold := loadWith(p, body, want, 5000, 64, false)
		cold.check(b, "concurrency 64, connections opened in the window")
		b.Logf("concurrency 64, the connections dialled inside the window (not checked): %v", cold)

		// The control: a trivial JavaScript worker in the same workerd
		// under the same load.
		cp := runWorkerd(b, bin, "testdata/jsworker", "/", true)
		cwant := mustPost(b, cp.base, body)
		soakWarmUp(b, cp, body, cwant)
		c := soak(b, cp, body, cwant, 6, 1, 6)
		c10k, c60k := c.mem[1], c.mem[6]
		reportRSS(b, at10k, at60k, c10k, c60k)
		for _, span := range []struct {
			name string
			a, b memory
		}{{"10,000 and 60,000", at10k, at60k}, {"60,000 and 120,000", at60k, at120k}, {"120,000 and 180,000", at120k, at180k}} {
			if g := grown(span.a.heap, span.b.heap); g > 0.10 {
				b.Errorf("V8 heap in use grew %.1f %% between %s requests (%d -> %d bytes)", 100*g, span.name, span.a.heap, span.b.heap)
			}
			if d := span.b.heapTotal - span.a.heapTotal; d > max(span.a.heapTotal/10, 1<<20) {
				b.Errorf("V8 heap held grew by %d bytes between %s requests (%d -> %d bytes)", d, span.name, span.a.heapTotal, span.b.heapTotal)
			}
		}
		// What is the Worker's own besides the V8 heap: Go's linear
		// memory, and the native memory in use (tcmalloc's, free lists
		// excluded), which holds every native object of V8 and workerd
		// that JavaScript keeps alive. Either growing would be a leak.
		if g := grown(at10k.split.wasm, at180k.split.wasm); g > 0.10 {
			b.Errorf("Go's linear memory (resident) grew %.1f %% between 10,000 and 180,000 requests (%d -> %d bytes)", 100*g, at10k.split.wasm, at180k.split.wasm)
		}
		if at10k.tcErr != nil {
			b.Logf("native memory in use not checked: %v", at10k.tcErr)
		} else {
			for _, span := range []struct {
				name string
				a, b memory
			}{{"10,000 and 60,000", at10k, at60k}, {"10,000 and 180,000", at10k, at180k}} {
				if g := grown(span.a.tc.inUse, span.b.tc.inUse); g > 0.10 {
					b.Errorf("native memory in use (tcmalloc) grew %.1f %% between %s requests (%d -> %d bytes, %d per request): a leak",
						100*g, span.name, span.a.tc.inUse, span.b.tc.inUse, (span.b.tc.inUse-span.a.tc.inUse)/50000)
				}
			}
		}
		b.ReportMetric(float64(c1p50.Microseconds())/1000, "p50-c1-ms")
		b.ReportMetric(float64(c1p99.Microseconds())/1000, "p99-c1-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/req")
		b.ReportMetric(loadAvg, "loadavg")
		b.ReportMetric(float64(s.last.p50.Microseconds())/1000, "p50-c16-ms")
		b.ReportMetric(float64(s.last.p99.Microseconds())/1000, "p99-c16-ms")
		b.ReportMetric(float64(s.all.max.Microseconds())/1000, "max-c16-ms")
		b.ReportMetric(s.last.rps, "req/s-c16")
		b.ReportMetric(float64(r64.p99.Microseconds())/1000, "p99-c64-ms")
		b.ReportMetric(float64(r64.max.Microseconds())/1000, "max-c64-ms")
		b.ReportMetric(float64(r64.overtaken), "overtaken-c64")
		b.ReportMetric(float64(cold.max.Microseconds())/1000, "max-c64-dialled-in-window-ms")
		b.ReportMetric(float64(cold.overtaken), "overtaken-c64-dialled-in-window")
		b.ReportMetric(float64(at10k.heap), "heap-10k-B")
		b.ReportMetric(float64(at60k.heap), "heap-60k-B")
		b.ReportMetric(float64(at120k.heap), "heap-120k-B")
		b.ReportMetric(float64(at10k.rss), "rss-10k-B")
		b.ReportMetric(float64(at60k.rss), "rss-60k-B")
		b.ReportMetric(float64(at120k.rss), "rss-120k-B")
		b.ReportMetric(float64(at180k.rss), "rss-180k-B")
		b.ReportMetric(float64(at180k.heap), "heap-180k-B")
		b.ReportMetric(float64(at180k.heapTotal), "heap-held-180k-B")
		b.ReportMetric(float64(c10k.rss), "js-rss-10k-B")
		b.ReportMetric(float64(c60k.rss), "js-rss-60k-B")
		b.ReportMetric(100*grown(at10k.rss, at60k.rss), "rss-10k-60k-%")
		b.ReportMetric(100*grown(c10k.rss, c60k.rss), "js-rss-10k-60k-%")
		b.ReportMetric(float64(at10k.split.wasm), "wasm-rss-10k-B")
		b.ReportMetric(float64(at180k.split.wasm), "wasm-rss-180k-B")
		if at10k.tcErr == nil {
			b.ReportMetric(float64(at10k.tc.inUse), "native-in-use-10k-B")
			b.ReportMetric(float64(at60k.tc.inUse), "native-in-use-60k-B")
			b.ReportMetric(float64(at180k.tc.inUse), "native-in-use-180k-B")
		}
		b.ReportMetric(float64(s.all.errors+r64.errors+cold.errors), "failed")
		b.ReportMetric(float64(s.all.slow+r64.slow), "over-1s")
	}
	b.ReportMetric(float64(build.raw), "wasm-bytes")
	b.ReportMetric(float64(build.gz), "wasm-gzip-bytes")
}

// reportRSS prints issue 15's criterion for workerd's resident memory
// (within 10 % from 10,000 to 60,000 requests, after a full collection)
// for the Worker and for the trivial JavaScript worker under the same
// load, and which regions the change is in. It is printed, not checked:
// see BenchmarkWorkerd's comment.
func reportRSS(b *testing.B, a, z, ca, cz memory) {
	b.Helper()
	verdict := func(a, z memory) string {
		if grown(a.rss, z.rss) <= 0.10 {
			return "met"
		}
		return "NOT MET"
	}
	delta := func(a, z memory) string {
		mb := func(x, y int64) float64 { return float64(y-x) / 1e6 }
		s := fmt.Sprintf("malloc heap %+.1f, V8 cage %+.1f, wasm memory %+.1f, JIT code %+.1f, files %+.1f, other %+.1f MB",
			mb(a.split.malloc, z.split.malloc), mb(a.split.cage, z.split.cage), mb(a.split.wasm, z.split.wasm),
			mb(a.split.code, z.split.code), mb(a.split.files, z.split.files), mb(a.split.other, z.split.other))
		if a.tcErr == nil && z.tcErr == nil {
			s += fmt.Sprintf("; tcmalloc: in use %+.1f MB, free lists %+.1f MB, given back %+.1f MB",
				mb(a.tc.inUse, z.tc.inUse), mb(a.tc.free, z.tc.free), mb(a.tc.released, z.tc.released))
		}
		return s
	}
	b.Logf("issue 15, workerd RSS within 10 %% from 10,000 to 60,000 requests: the Worker %s, %+.1f %% (%.1f -> %.1f MB; %s); a trivial JavaScript worker %s, %+.1f %% (%.1f -> %.1f MB; %s)",
		verdict(a, z), 100*grown(a.rss, z.rss), float64(a.rss)/1e6, float64(z.rss)/1e6, delta(a, z),
		verdict(ca, cz), 100*grown(ca.rss, cz.rss), float64(ca.rss)/1e6, float64(cz.rss)/1e6, delta(ca, cz))
	if a.tcErr != nil {
		b.Log(a.tcErr)
	}
}

// oneConnection sends three rounds of 2,000 estimates to p one at a time,
// each printed, and returns the medians of their p50 and p99 latencies and
// of workerd's CPU time per request, with the load average before them;
// it prints them beside issue 17's goals (under 1 ms, 3 ms and 1 ms).
func oneConnection(b *testing.B, p workerdProc, body, want []byte) (p50, p99, cpu time.Duration, loadAvg float64) {
	b.Helper()
	loadAvg = loadAverage()
	// Three rounds of 2,000, each logged; the metrics are their
	// medians, which a burst of load on a shared machine moves less.
	var p50s, p99s, cpus []time.Duration
	for round := 1; round <= 3; round++ {
		cpu0, err := cpuTime(p.pid)
		if err != nil {
			b.Fatal(err)
		}
		one := load(p, body, want, 2000, 1)
		cpu1, err := cpuTime(p.pid)
		if err != nil {
			b.Fatal(err)
		}
		one.check(b, "one at a time")
		one.checkSlow(b, "one at a time")
		cpu := (cpu1 - cpu0) / time.Duration(one.n)
		b.Logf("one connection, round %d: %v; workerd CPU %v per request; load average %.2f", round, one, cpu, loadAverage())
		p50s, p99s, cpus = append(p50s, one.p50), append(p99s, one.p99), append(cpus, cpu)
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	p50, p99, cpu = median(p50s), median(p99s), median(cpus)
	goal := func(d, limit time.Duration) string {
		if d < limit {
			return "met"
		}
		return "NOT MET"
	}
	b.Logf("one connection, medians of 3 rounds (issue 17's goals): p50 %v (under 1 ms: %s), p99 %v (under 3 ms: %s), workerd CPU %v per request (under 1 ms: %s); load average %.2f before, on %d CPUs",
		p50, goal(p50, time.Millisecond), p99, goal(p99, 3*time.Millisecond), cpu, goal(cpu, time.Millisecond), loadAvg, runtime.NumCPU())
	return p50, p99, cpu, loadAvg
}

// BenchmarkWorkerdLatency is BenchmarkWorkerd's first part alone, the
// one-connection latency and CPU per request (issue 17's goals), to
// measure them again in a quiet moment without the long load run:
//
//	go test -run '^$' -bench '^BenchmarkWorkerdLatency$' -benchtime 1x ./wasm/worker
func BenchmarkWorkerdLatency(b *testing.B) {
	p := runWorkerd(b, findWorkerd(b), buildWorker(b), "/api/v1/health", false)
	body, want := referenceEstimate(b, p.base)
	latencyRounds(b, p, body, want)
}

// latencyRounds warms p up and reports its one-connection p50, p99, CPU
// per request and the load average, once per benchmark iteration.
func latencyRounds(b *testing.B, p workerdProc, body, want []byte) {
	for b.Loop() {
		load(p, body, want, benchWarmN, loadConc).check(b, "warm-up")
		p50, p99, cpu, loadAvg := oneConnection(b, p, body, want)
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-c1-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-c1-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/req")
		b.ReportMetric(loadAvg, "loadavg")
	}
}

// BenchmarkWorkerdLatencyFloor is BenchmarkWorkerdLatency's measure for
// the trivial JavaScript worker of the load test's control
// (testdata/jsworker: it reads the body and answers a constant 4.4 KB
// text) in the same workerd: what a request costs before any of
// wattscale's code runs, on this machine. Its figures are a floor under
// the goals, not checked against them.
func BenchmarkWorkerdLatencyFloor(b *testing.B) {
	p := runWorkerd(b, findWorkerd(b), "testdata/jsworker", "/", false)
	body := readExample(b)
	latencyRounds(b, p, body, mustPost(b, p.base, body))
}

// soakWarmUp is what a workerd gets before the load run (soak), the
// Worker's as the control's: warmN estimates at concurrency 16 and 6,000
// one at a time, the requests the load run's workerd served before it
// when it also served the one-connection rounds. Without the 6,000 (after
// 17,200 requests at concurrency 16 alone) the V8 heap was 0.69 MB and
// reached its working size, 0.75-0.76 MB, only by 60,000 requests of the
// load run, which the 10 % check counted as growth; with them it was
// 0.76, 0.75, 0.75 and 0.75 MB at 10,000, 60,000, 120,000 and 180,000.
func soakWarmUp(b *testing.B, p workerdProc, body, want []byte) {
	b.Helper()
	load(p, body, want, warmN, loadConc).check(b, "warm-up")
	load(p, body, want, 6000, 1).check(b, "warm-up, one at a time")
}

// soakResult is a long run on one isolate.
type soakResult struct {
	all  loadResult     // failed and slow requests and the longest, over all batches
	last loadResult     // the last batch
	mem  map[int]memory // after batch i
}

// soak sends batches of 10,000 estimates at concurrency 16 to p, checking
// every answer (and, in a benchmark, that none takes over a second), and
// measures memory after the batches listed in at.
func soak(b *testing.B, p workerdProc, body, want []byte, batches int, at ...int) soakResult {
	b.Helper()
	const batch = 10000
	s := soakResult{mem: map[int]memory{}}
	for i := 1; i <= batches; i++ {
		r := load(p, body, want, batch, 16)
		what := fmt.Sprintf("%s, concurrency 16, requests %d-%d", p.base, (i-1)*batch+1, i*batch)
		r.check(b, what)
		r.checkSlow(b, what)
		s.all.n += r.n
		s.all.errors += r.errors
		s.all.slow += r.slow
		s.all.max = max(s.all.max, r.max)
		s.last = r
		line := fmt.Sprintf("%s, batch %d: %v", p.base, i, r)
		if slices.Contains(at, i) {
			s.mem[i] = measureMemory(b, p, true)
			line += fmt.Sprintf("; after %d requests: %v", i*batch, s.mem[i])
		}
		b.Log(line)
	}
	return s
}

// mustPost is the answer to POST base/api/v1/estimate with body.
func mustPost(t testing.TB, base string, body []byte) []byte {
	t.Helper()
	res, err := client.Post(base+"/api/v1/estimate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s/api/v1/estimate: %d (%v)", base, res.StatusCode, err)
	}
	return b
}
