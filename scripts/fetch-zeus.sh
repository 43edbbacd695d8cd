#!/usr/bin/env bash
# Usage: scripts/fetch-zeus.sh [DIR]
# Rebuilds zeus-bert-power.csv (the Zeus NSDI'23 BERT power trace, Apache-2.0)
# in DIR (default ../shared/data) from the ml-energy/zeus repository, where
# the internet is reachable, and checks its SHA-256. The project reads it from
# there (DATA_DIR); its rows are never committed here.
set -euo pipefail
dir=${1:-../shared/data}
commit=75a8b9398034eb9baf74ca0a830c2c31bcce52cd
base=https://raw.githubusercontent.com/ml-energy/zeus/$commit/examples/research_reproducibility/zeus_nsdi23/trace
want=04e7390720d91c348278462c7a5323c52de521c0b24664a95e3e32bdf7893143
mkdir -p "$dir"
out="$dir/zeus-bert-power.csv"
tmp=$(mktemp)
echo "gpu,dataset,network,batch_size,optimizer,power_limit_w,time_per_epoch_s,average_power_w" > "$tmp"
for gpu in a40 v100 p100; do
  curl -fsSL "$base/summary_power_$gpu.csv" | tail -n +2 | grep ',bert_base_uncased,' | sed "s/^/$gpu,/" >> "$tmp"
done
got=$(sha256sum "$tmp" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "fetch-zeus: checksum $got differs from $want (upstream changed, or the column formatting differs); kept in $tmp" >&2
  exit 1
fi
mv "$tmp" "$out"
echo "wrote $out"
