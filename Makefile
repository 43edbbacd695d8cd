# wattscale: see README.md. Every target runs from the repository root.
SHELL := /bin/bash
DATA_DIR ?= ../shared/data
GO ?= go
WASM_PATH := $(shell $(GO) env GOROOT)/lib/wasm
FUZZTIME ?= 5s

.PHONY: run test test-native test-wasm test-fuzz bench fit vet measure-demo worker worker-run bench-worker

## run: estimate the embedded default request (fine-tuning BERT-base on 4 A100s with FSDP)
run:
	$(GO) run ./site estimate < content/examples/request.json

## test: every test the project has (native, js/wasm under node, fuzzing for a short time)
test: vet test-native test-wasm test-fuzz

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test-native:
	$(GO) test -count=1 ./...

## test-wasm: the pure packages compiled to js/wasm and run under node
test-wasm:
	PATH="$(WASM_PATH):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./model/...

## test-fuzz: each fuzz target for $(FUZZTIME)
test-fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseRequest$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParseMeasurements$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParsePlan$$' -fuzztime $(FUZZTIME) ./model/distill
	$(GO) test -run '^$$' -fuzz '^FuzzParseReading$$' -fuzztime $(FUZZTIME) ./scripts/measure/meter
	$(GO) test -run '^$$' -fuzz '^FuzzParseMarker$$' -fuzztime $(FUZZTIME) ./scripts/measure/meter
	$(GO) test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./wasm/api

## bench: benchmarks as a table (after the Worker's load test under workerd)
bench: bench-worker
	$(GO) test -run '^$$' -bench . -benchmem ./model/... | tee /tmp/wattscale-bench.txt

## fit: refit the project's calibrations from $(DATA_DIR)
fit:
	$(GO) run ./site fit -kind both -data $(DATA_DIR)/zeus-bert-power.csv -o content/calibrations > /dev/null

## measure-demo: measure → fit → estimate on the fake nvidia-smi trace (no GPU needed; writes out/measure-demo)
measure-demo:
	scripts/measure/demo.sh

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

## bench-worker: 2,000 estimates at concurrency 16 against workerd (p50/p99 ms, requests/s), 500 one at a time (p50/p99), app.wasm raw and gzip bytes; then the handler natively
bench-worker:
	$(GO) test -run '^$$' -bench '^BenchmarkWorkerd$$' -benchtime 1x ./$(WORKER) | tee /tmp/wattscale-bench-worker.txt
	$(GO) test -run '^$$' -bench . -benchmem ./wasm/api | tee -a /tmp/wattscale-bench-worker.txt
