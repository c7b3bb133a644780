#!/usr/bin/env bash
# Reruns every INFless experiment of docs/reproduction/infless.md from the repository root:
#   scenarios/infless/run_all.sh [DCSIM] [OUT]
# Fig. 11: stress-test bisection per system; Fig. 12/15/16/17b and Table 4: the Azure runs;
# §5.3: the 2,000-server runs (three systems). Results: OUT/stress.jsonl, OUT/azure.txt, OUT/large-scale.txt.
set -euo pipefail
dcsim=${1:-build/release/src/cli/dcsim}
out=${2:-build/runs/infless}
mkdir -p "$out"
: > "$out/stress.jsonl"
for app in osvt qa; do
  hi=1200; [ "$app" = qa ] && hi=8000
  for s in infless openfaas-plus batch bb-off rs-off op15 op2; do
    python3 scenarios/infless/stress_search.py "$dcsim" "scenarios/infless/$app-stress-$s.json" \
      --lo 0 --hi "$hi" --steps 8 --target 0.95 >> "$out/stress.jsonl"
  done
done
runs=()
for kind in sporadic periodic bursty; do
  for s in infless infless-hhp openfaas-plus batch; do
    "$dcsim" run "scenarios/infless/osvt-azure-$kind-$s.json" --out "$out" --quiet
    runs+=("$out/osvt-azure-$kind-$s")
  done
done
python3 scenarios/infless/collect.py "${runs[@]}" > "$out/azure.txt"
python3 scenarios/infless/collect.py --json "${runs[@]}" > "$out/azure.json"
: > "$out/large-scale-time.txt"
for s in infless batch openfaas-plus; do
  /usr/bin/time -a -o "$out/large-scale-time.txt" -f "$s: %e s wall, %M KiB max RSS" \
    "$dcsim" run "scenarios/infless/large-scale-$s.json" --out "$out" --quiet
done
python3 scenarios/infless/collect.py "$out"/large-scale-{infless,batch,openfaas-plus} \
  > "$out/large-scale.txt"
