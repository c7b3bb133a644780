#!/usr/bin/env bash
# tools/plot protean-*: renders the Protean figures from a synthetic run directory (summary.json
# and requests.csv) to PNG and PDF, prints the table, and rejects a run without a summary.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for scheme in protean molecule; do
  run="$dir/wiki-resnet-50-$scheme"
  mkdir -p "$run"
  cat > "$run/summary.json" <<JSON
{"per_class": {"strict": {"slo": {"compliance": 0.9},
  "latency_s": {"p50": 0.1, "p99": 0.3}}, "best_effort": {"latency_s": {"p50": 0.1, "p99": 0.5}}},
 "gpu_utilisation": 0.5, "cost_usd": {"total": 1.0}, "decisions": {"applied": {}}}
JSON
  {
    echo "id,function,application,class,arrival_ns,dispatch_ns,start_ns,finish_ns,queue_wait_ns,batching_wait_ns,cold_start_wait_ns,execution_ns,batch_size,device,slice,outcome,slo_ns,latency_s"
    for i in $(seq 0 199); do
      cls=strict; fn=resnet-50; [ $((i % 2)) -eq 1 ] && { cls=best_effort; fn=googlenet; }
      a=$((i * 50000000)); e=$((100000000 + (i % 7) * 10000000)); f=$((a + e + 5000000))
      echo "$i,$fn,default,$cls,$a,$a,$((a + 5000000)),$f,5000000,0,0,$e,128,$((i % 2)),$((i % 3)),ok,330000000,0"
    done
  } > "$run/requests.csv"
done
"$plot" protean-compliance "$dir"/wiki-resnet-50-* -o "$dir/compliance" > /dev/null
"$plot" protean-p99 "$dir"/wiki-resnet-50-* -o "$dir/p99" > /dev/null
"$plot" protean-cdf "$dir"/wiki-resnet-50-* -o "$dir/cdf" > /dev/null
"$plot" protean-geometry "$dir/wiki-resnet-50-protean" -o "$dir/geometry" > /dev/null
for f in compliance p99 cdf geometry; do
  grep -q PNG <<< "$(head -c 8 "$dir/$f.png")" || { echo "$f.png is not a PNG"; exit 1; }
  grep -q '%PDF' <<< "$(head -c 5 "$dir/$f.pdf")" || { echo "$f.pdf is not a PDF"; exit 1; }
done
table=$("$plot" protean-table "$dir/wiki-resnet-50-protean")
grep -q '| wiki-resnet-50-protean | 90.00 | 100 | 300 |' <<< "$table" ||
  { echo "unexpected table: $table"; exit 1; }
mkdir -p "$dir/empty-protean"
if message=$("$plot" protean-compliance "$dir/empty-protean" 2>&1); then
  echo "a run without summary.json was accepted"; exit 1
fi
grep -q "empty-protean/summary.json" <<< "$message" || { echo "unexpected message: $message"; exit 1; }
echo "tools.plot.protean: ok"
