#!/usr/bin/env bash
# The measure → fit → estimate loop on the fake nvidia-smi (no GPU needed):
#
#   make measure-demo                  # or: scripts/measure/demo.sh [OUTDIR]
#
# Records eight short single-GPU "runs" (sleep commands printing stage
# markers) under scripts/measure/testdata/fake-nvidia-smi, appends each run's
# train-stage row to OUTDIR/runs.csv (default out/measure-demo), fits the
# roofline and law calibrations on them with `go run ./site fit`, and
# estimates a new run with each through `go run ./site estimate
# -calibrations`. The figures describe the fake power trace and sleep times,
# not a real GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-out/measure-demo}
rm -rf "$out"
mkdir -p "$out/cal"
go build -o "$out/measure" ./scripts/measure
export PATH="$PWD/scripts/measure/testdata/fake-nvidia-smi:$PATH"

# seq_len batch train_tokens train_seconds fake_watts
n=0
while read -r seq batch tokens secs watts; do
  n=$((n + 1))
  log="$out/run-$seq-$batch.log" # the recorder's report; the first one is shown
  WATTSCALE_FAKE_POWER=$watts "$out/measure" -o "$out/run-$seq-$batch" -append "$out/runs.csv" -append-stage train \
    -rapl none -interval 100ms -idle 300ms \
    -model bert-base -gpu a100-sxm4-80gb -seq-len "$seq" -batch "$batch" -precision fp16 -- \
    sh -c "echo wattscale:stage train tokens=$tokens; sleep $secs; echo wattscale:stage eval tokens=2048; sleep 0.2" \
    >/dev/null 2>"$log"
  if [ $n -eq 1 ]; then
    echo "== run 1 of 8: seq_len $seq, batch $batch, $tokens tokens, fake board power $watts W"
    cat "$log"
    echo
  fi
done <<'RUNS'
128 8 150000 0.6 240
128 32 300000 0.9 310
256 8 200000 0.8 260
256 16 400000 1.3 300
384 16 250000 1.0 280
384 32 500000 1.7 330
512 8 300000 1.3 270
512 16 450000 1.8 320
RUNS
echo
echo "== $out/runs.csv"
cat "$out/runs.csv"
echo
echo "== go run ./site fit -data $out/runs.csv -kind both -name demo -o $out/cal"
go run ./site fit -data "$out/runs.csv" -kind both -name demo -o "$out/cal" >/dev/null
ls "$out/cal"
echo
echo "== go run ./site estimate -calibrations $out/cal  (bert-base, 1 × a100-sxm4-80gb, seq_len 256, batch 16, 350000 tokens)"
for cal in demo-law demo-roofline wattscale-roofline; do
  printf '{"model": {"preset": "bert-base"}, "training": {"tokens": 350000, "seq_len": 256, "batch_per_gpu": 16, "precision": "fp16"},
    "hardware": {"gpu": "a100-sxm4-80gb", "count": 1}, "strategy": "single", "calibration": "%s"}' "$cal" |
    go run ./site estimate -calibrations "$out/cal" >"$out/estimate-$cal.json"
  printf '%-20s' "$cal:"
  grep -E '^  "(energy_kwh|time_s|avg_power_w)"' "$out/estimate-$cal.json" | tr -d '\n ' | sed 's/,$//; s/,/, /g'
  echo
done
