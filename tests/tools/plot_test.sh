#!/usr/bin/env bash
# tools/plot: renders a rate CSV and a run's time series to PNG and PDF, and rejects bad input
# with a message naming the file and line.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

printf 'time_s,rate_per_s,requests\n0,10,10\n1,12,12\n2,30,30\n3,11,11\n' > "$dir/rate.csv"
"$plot" rate "$dir/rate.csv" -o "$dir/rate" > /dev/null
grep -q PNG <<< "$(head -c 8 "$dir/rate.png")" || { echo "rate.png is not a PNG"; exit 1; }
grep -q '%PDF' <<< "$(head -c 5 "$dir/rate.pdf")" || { echo "rate.pdf is not a PDF"; exit 1; }

mkdir -p "$dir/run"
printf 'time_s,queue_length,busy_gpus\n1,0,1\n2,3,2\n3,1,2\n' > "$dir/run/timeseries.csv"
"$plot" timeseries "$dir/run" > /dev/null
test -s "$dir/run/timeseries.png" || { echo "timeseries.png missing"; exit 1; }

# A run directory with per-request CSV output: every figure of the run, then a comparison.
cat > "$dir/run/summary.json" <<'JSON'
{"latency_s": {"p50": 0.01, "p99": 0.05}, "slo": {"compliance": 0.9}, "throughput_rps": 10,
 "per_class": {"strict": {"waits_s": {"queue_mean": 0.001, "batching_mean": 0.002,
   "cold_start_mean": 0, "execution_mean": 0.005}}}}
JSON
{
  echo 'id,function,application,class,arrival_ns,finish_ns,outcome,latency_s'
  echo '0,f,default,strict,0,10000000,ok,0.01'
  echo '1,f,default,strict,0,20000000,ok,0.02'
  echo '2,g,default,best_effort,0,50000000,slo_miss,0.05'
  echo '3,g,default,best_effort,0,0,dropped,0'
} > "$dir/run/requests.csv"
"$plot" run "$dir/run" -o "$dir/figures" > /dev/null
for f in timeseries latency-cdf-class latency-cdf-function latency-breakdown; do
  test -s "$dir/figures/$f.png" || { echo "run: $f.png missing"; exit 1; }
  test -s "$dir/figures/$f.pdf" || { echo "run: $f.pdf missing"; exit 1; }
done
cp -r "$dir/run" "$dir/run2"
"$plot" compare "$dir/run" "$dir/run2" --labels a,b -o "$dir/cmp" > /dev/null
test -s "$dir/cmp-latency-cdf.png" && test -s "$dir/cmp-metrics.pdf" || { echo "compare: figures missing"; exit 1; }
if "$plot" compare "$dir/run" "$dir/run2" --labels a -o "$dir/cmp" 2> /dev/null; then
  echo "compare accepted a wrong number of labels"; exit 1
fi

printf 'time_s,rate_per_s\n0,10\n1,x\n' > "$dir/bad.csv"
if message=$("$plot" rate "$dir/bad.csv" 2>&1); then
  echo "bad input was accepted"; exit 1
fi
expected="dcsim-plot: $dir/bad.csv: line 3: column rate_per_s: expected a number, found 'x'"
[ "$message" = "$expected" ] || { echo "unexpected message: $message"; exit 1; }
ls "$dir" | grep -q tmp && { echo "a temporary file was left behind"; exit 1; }
echo "tools.plot: ok"
