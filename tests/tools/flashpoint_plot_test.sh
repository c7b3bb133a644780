#!/usr/bin/env bash
# tools/plot flashpoint-*: tables from run summaries, CDFs from requests.csv, replicas from
# timeseries.csv; a missing requests file is an error naming the run.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
summary() {  # name mean p99 cold instance_seconds
  mkdir -p "$dir/runs/$1"
  printf '{"latency_s": {"mean": %s, "p99": %s}, "cold_starts": {"total_s": %s, "count": 4},
  "instance_seconds": %s, "duration_s": 100, "requests_in_system_at_end": 0}\n' \
    "$2" "$3" "$4" "$5" > "$dir/runs/$1/summary.json"
}
summary twitter-t5-3b-atl-bl 10.0 50.0 100.0 700
summary twitter-t5-3b-atl-lc-mc-mp 1.0 5.0 2.0 700
summary twitter-t5-3b-atl-gpu-faas 2.0 8.0 10.0 700
out=$("$plot" flashpoint-table "$dir/runs")
# Flashpoint vs Baseline: 1 - 1/10 = 90%; vs GPU-FaaS: 1 - 1/2 = 50%.
grep -q '| t5-3b | - | 50.00% | - | 90.00% | atl |' <<< "$out" || { echo "bad Table 8.1: $out"; exit 1; }
run="$dir/runs/twitter-t5-3b-atl-bl"
printf 'arrival_ns,finish_ns,cold_start_wait_ns\n0,1000000000,0\n0,3000000000,2000000000\n' > "$run/requests.csv"
printf 'time_s,instances_cold_starting,instances_idle,instances_busy,queue_length\n0,1,1,0,0\n1,0,1,1,3\n' > "$run/timeseries.csv"
"$plot" flashpoint-cdf "$run" -o "$dir/cdf" > /dev/null
grep -q PNG <<< "$(head -c 8 "$dir/cdf.png")" || { echo "cdf.png is not a PNG"; exit 1; }
"$plot" flashpoint-replicas "$run" > /dev/null
test -s "$run/replicas.pdf" || { echo "replicas.pdf missing"; exit 1; }
# With the desired column (Fig. 3.2b's third line) too.
printf 'time_s,instances_cold_starting,instances_idle,instances_busy,queue_length,instances_desired\n0,1,1,0,0,3\n1,0,1,1,3,2\n' > "$run/timeseries.csv"
rm "$run/replicas.pdf"
"$plot" flashpoint-replicas "$run" > /dev/null
test -s "$run/replicas.pdf" || { echo "replicas.pdf missing with instances_desired"; exit 1; }
if message=$("$plot" flashpoint-cdf "$dir/runs/twitter-t5-3b-atl-gpu-faas" -o "$dir/x" 2>&1); then
  echo "a run without requests was accepted"; exit 1
fi
[ "$message" = "dcsim-plot: $dir/runs/twitter-t5-3b-atl-gpu-faas: no requests.h5 or requests.csv" ] ||
  { echo "unexpected message: $message"; exit 1; }
# Fig. 8.10: partitioned replicas by parts; a run without any is named in the error.
printf '{"partitioned_replicas": {"started": 3, "by_parts": {"2": 2, "4": 1}}}\n' > "$dir/runs/twitter-t5-3b-atl-lc-mc-mp/summary.json"
"$plot" flashpoint-partitions "$dir/runs/twitter-t5-3b-atl-lc-mc-mp" -o "$dir/parts" > /dev/null
grep -q '%PDF' <<< "$(head -c 5 "$dir/parts.pdf")" || { echo "parts.pdf is not a PDF"; exit 1; }
if "$plot" flashpoint-partitions "$run" -o "$dir/none" 2> /dev/null; then
  echo "runs without partitioned replicas were accepted"; exit 1
fi
echo "tools.plot.flashpoint: ok"
