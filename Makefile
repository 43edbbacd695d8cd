# wattscale: see README.md. Every target runs from the repository root.
SHELL := /bin/bash
DATA_DIR ?= ../shared/data
GO ?= go
WASM_PATH := $(shell $(GO) env GOROOT)/lib/wasm
# Fuzz each target for a fixed number of executions, not a duration: a
# duration can end with a spurious "context deadline exceeded" on a loaded
# machine (seen here with FuzzParsePlan and FuzzParseRequest).
FUZZTIME ?= 30000x

.PHONY: run serve site offline test test-native test-wasm test-fuzz bench bench-site bench-browser bench-worker fit vet measure-demo validate validate-holdout worker worker-run

## run: estimate the embedded default request (fine-tuning BERT-base on 4 A100s with FSDP)
run:
	$(GO) run ./site estimate < content/examples/request.json

## serve: build the site (calculator, planner, report, methodology) and serve it on localhost, printing the URL
serve:
	$(GO) run ./site serve

## site: build the static site into public/
site:
	$(GO) run ./site build -o public

## offline: the calculator as one self-contained HTML file, public/wattscale-offline.html (works opened from disk)
offline: site
	$(GO) run ./scripts/offline -site public -o public/wattscale-offline.html

## test: every test the project has (native, js/wasm under node, fuzzing for a short time)
test: vet test-native test-wasm test-fuzz

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test-native:
	set -o pipefail; $(GO) test -count=1 -timeout 30m -json ./... | $(GO) run ./scripts/testsum

## test-wasm: the pure packages compiled to js/wasm and run under node
test-wasm:
	PATH="$(WASM_PATH):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./model/...
	PATH="$(WASM_PATH):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./wasm/calcapi

## test-fuzz: each fuzz target for $(FUZZTIME)
test-fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseRequest$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParseMeasurements$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeRequestOnePass$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParsePlan$$' -fuzztime $(FUZZTIME) ./model/distill
	$(GO) test -run '^$$' -fuzz '^FuzzParseRecommendPlan$$' -fuzztime $(FUZZTIME) ./model/distill
	$(GO) test -run '^$$' -fuzz '^FuzzParseReading$$' -fuzztime $(FUZZTIME) ./scripts/measure/meter
	$(GO) test -run '^$$' -fuzz '^FuzzParseMarker$$' -fuzztime $(FUZZTIME) ./scripts/measure/meter
	$(GO) test -run '^$$' -fuzz '^FuzzReadRuns$$' -fuzztime $(FUZZTIME) ./model/validate
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) ./model/csvx
	$(GO) test -run '^$$' -fuzz '^FuzzEstimateForm$$' -fuzztime $(FUZZTIME) ./wasm/calcapi
	$(GO) test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./wasm/api
	$(GO) test -run '^$$' -fuzz '^FuzzRecommendRequest$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParseMeta$$' -fuzztime $(FUZZTIME) ./wasm/worker/keepalive

## bench: benchmarks as a table (after the Worker's load test under workerd)
bench: bench-worker
	$(GO) test -run '^$$' -bench . -benchmem ./model/... | tee /tmp/wattscale-bench.txt
	$(MAKE) --no-print-directory bench-site | tee -a /tmp/wattscale-bench.txt
	$(MAKE) --no-print-directory bench-browser | tee -a /tmp/wattscale-bench.txt

## bench-browser: calculator and planner calls natively, then wasm sizes, first-load size and timings in headless Chromium, and issue 17's first-paint table (median of 5 cold loads each; up to 30 min on a loaded machine)
bench-browser:
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkWorkerd$$' -benchmem ./wasm/... | grep -E '^(Benchmark|ok)'
	@WATTSCALE_BENCH=1 $(GO) test -count=1 -timeout 30m -run '^$$' -bench '^BenchmarkPerformanceReport$$' -benchtime 1x ./site/e2e | grep -vE '^(goos|goarch|pkg|cpu|PASS|ok |BenchmarkPerformanceReport)'

## bench-site: time the site build (go run ./site build), with the WebAssembly recompiled and from its cache
bench-site:
	@rm -rf /tmp/wattscale-bench-site
	@$(GO) run ./site build -cache '' -o /tmp/wattscale-bench-site 2>&1 | sed 's/^/site build, wasm recompiled: /'
	@start=$$(date +%s%N); $(GO) run ./site build -o /tmp/wattscale-bench-site 2>&1 | sed 's/^/site build, wasm cached: /'; \
	  echo "site build, wasm cached, go run wall time: $$(( ($$(date +%s%N) - start) / 1000000 )) ms"
	@$(GO) test -run '^$$' -bench '^BenchmarkBuild$$' -benchmem ./site/gen | grep -E '^Benchmark'

## fit: refit the project's calibrations from $(DATA_DIR), then regenerate their Go form (content/calibrations_gen.go, which programs build the catalog from without decoding JSON)
fit:
	$(GO) run ./site fit -kind both -data $(DATA_DIR)/zeus-bert-power.csv -o content/calibrations > /dev/null
	$(GO) generate ./content

## measure-demo: measure → fit → estimate on the fake nvidia-smi trace (no GPU needed; writes out/measure-demo)
measure-demo:
	scripts/measure/demo.sh
## validate: score wattscale and the two baselines on content/validation/runs.csv (in-sample)
validate:
	$(GO) run ./site validate

## validate-holdout: the same, each source predicted by a calibration fitted without it
validate-holdout:
	$(GO) run ./site validate -holdout

WORKER := wasm/worker
WORKER_VERSION ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo dev)

## worker: build the Cloudflare Worker into wasm/worker/build: syumai/workers' generated JavaScript, our shim as worker.mjs, app.wasm
worker:
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER)/build
	cp $(WORKER)/shim/worker.mjs $(WORKER)/build/worker.mjs
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w -X main.version=$(WORKER_VERSION)" -o $(WORKER)/build/app.wasm ./$(WORKER)
	@echo "app.wasm: $$(wc -c < $(WORKER)/build/app.wasm) bytes, $$(gzip -9c $(WORKER)/build/app.wasm | wc -c) bytes gzip"

## worker-run: serve the Worker locally with workerd on http://127.0.0.1:8788 (install workerd once: npm ci --prefix wasm/worker)
worker-run: worker
	$(WORKER)/node_modules/.bin/workerd serve $(WORKER)/workerd.capnp

## bench-worker: the Worker in workerd: three rounds of 2,000 estimates one at a time (medians of p50/p99 and workerd CPU per request, load average; goals under 1 ms, 1 ms, 3 ms), 180,000 at concurrency 16 and 5,000 at 64 over connections opened before the timed window (none failed or over 1 s; the most-overtaken request and workerd's CPU wait printed; 5,000 more at 64 with the connections dialled inside the window printed, not checked; V8 heap within 10 % over 10k-60k, 60k-120k, 120k-180k; Go's linear memory within 10 % from 10k to 180k; native memory in use, tcmalloc's own figure read with gdb, within 10 % from 10k to 60k and 180k), workerd RSS split by region (smaps; tcmalloc's figures with gdb) at each step, issue 15's RSS criterion (10k to 60k within 10 %) printed for ours beside a trivial JavaScript worker's, app.wasm raw and gzip bytes (the handler's native benchmarks run in bench-browser); then the same one-connection measure for that trivial JavaScript worker, the floor a request costs in workerd on the machine; then the work budget (issue 29): the heaviest allowed request of each shape at most 50 ms of workerd CPU and 1 MB of answer, Go's linear memory under 32 MB after them all, 16 estimates sent while the heaviest runs answered within 250 ms
bench-worker:
	$(GO) test -v -run '^$$' -bench '^BenchmarkWorkerd(LatencyFloor|Budget)?$$' -benchtime 1x -timeout 30m ./$(WORKER) | tee /tmp/wattscale-bench-worker.txt
