#!/usr/bin/env bash
# dcsim-plot sweep: draws a metric of an aggregate.csv against one axis grouped by another, and
# explains what to do when another axis has several values or the metric does not exist.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "tools.plot_sweep: $*"; exit 1; }

cat > "$dir/aggregate.csv" <<'CSV'
combination,load,policy,metric,n,mean,sd,ci95_low,ci95_high
"load=100_s,policy=a",100/s,a,slo.compliance,3,0.99,0.01,0.965,1.015
"load=100_s,policy=b",100/s,b,slo.compliance,3,0.98,0.01,0.955,1.005
"load=200_s,policy=a",200/s,a,slo.compliance,3,0.9,0.02,0.85,0.95
"load=200_s,policy=b",200/s,b,slo.compliance,1,0.7,,,
"load=100_s,policy=a",100/s,a,throughput_rps,3,99,1,96.5,101.5
CSV
"$plot" sweep "$dir" --metric slo.compliance --x load --group policy > /dev/null
grep -q PNG <<< "$(head -c 8 "$dir/slo.compliance-vs-load.png")" || fail "no PNG"
grep -q '%PDF' <<< "$(head -c 5 "$dir/slo.compliance-vs-load.pdf")" || fail "no PDF"
"$plot" sweep "$dir/aggregate.csv" --metric slo.compliance --x policy --where load=200/s \
  -o "$dir/by-policy" > /dev/null
test -s "$dir/by-policy.png" || fail "by-policy.png missing"

if message=$("$plot" sweep "$dir" --metric slo.compliance --x load 2>&1); then
  fail "an ambiguous plot was accepted"
fi
[ "$message" = "dcsim-plot: axis policy has several values (a, b): choose one with --where policy=LABEL or plot it with --group policy" ] ||
  fail "unexpected message: $message"
if message=$("$plot" sweep "$dir" --metric nope --x load 2>&1); then fail "unknown metric accepted"; fi
grep -q "no metric 'nope'" <<< "$message" || fail "unexpected message: $message"
echo "tools.plot_sweep: ok"
