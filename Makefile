# wattscale: see README.md. Every target runs from the repository root.
SHELL := /bin/bash
DATA_DIR ?= ../shared/data
GO ?= go
WASM_PATH := $(shell $(GO) env GOROOT)/lib/wasm
FUZZTIME ?= 5s

.PHONY: run test test-native test-wasm test-fuzz bench fit vet measure-demo validate validate-holdout

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
	$(GO) test -run '^$$' -fuzz '^FuzzReadRuns$$' -fuzztime $(FUZZTIME) ./model/validate

## bench: benchmarks as a table
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./model/... | tee /tmp/wattscale-bench.txt

## fit: refit the project's calibrations from $(DATA_DIR)
fit:
	$(GO) run ./site fit -kind both -data $(DATA_DIR)/zeus-bert-power.csv -o content/calibrations > /dev/null

## measure-demo: measure → fit → estimate on the fake nvidia-smi trace (no GPU needed; writes out/measure-demo)
measure-demo:
	scripts/measure/demo.sh
## validate: score wattscale and the two baselines on content/validation/runs.csv (in-sample)
validate:
	$(GO) run ./site validate

## validate-holdout: the same, each source predicted by a calibration fitted without it
validate-holdout:
	$(GO) run ./site validate -holdout
