#!/usr/bin/env bash
# tools/plot harmonybatch: predicted vs simulated cost table and figure from a plan JSON and a
# run directory; a run without function billing is rejected with a message naming the file.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat > "$dir/plan.json" <<'JSON'
{"cost_per_request": 2.0e-6, "groups": [{"group": 0, "applications": [
  {"name": "a", "predicted_max_latency_s": 0.5}, {"name": "b", "predicted_max_latency_s": 1.0}]}]}
JSON
mkdir -p "$dir/run"
cat > "$dir/run/summary.json" <<'JSON'
{"function_billing": {"usd_per_request": 2.2e-6, "requests": 100, "invocations": 10},
 "per_function": {"g0.a": {"slo": {"violated": 1, "with_slo": 50}, "latency_s": {"max": 0.45}},
                  "g0.b": {"slo": {"violated": 0, "with_slo": 50}, "latency_s": {"max": 0.6}}}}
JSON
out=$("$plot" harmonybatch "hb=$dir/plan.json,$dir/run" -o "$dir/cmp")
grep -q '| hb | 2.0000e-06 | 2.2000e-06 | 1.100 | 1.00 | 1.00% | 0.900 | 10.00 |' <<< "$out" ||
  { echo "unexpected table: $out"; exit 1; }
grep -q PNG <<< "$(head -c 8 "$dir/cmp.png")" || { echo "cmp.png is not a PNG"; exit 1; }

echo '{}' > "$dir/run/summary.json"
if message=$("$plot" harmonybatch "hb=$dir/plan.json,$dir/run" 2>&1); then
  echo "a summary without billing was accepted"; exit 1
fi
expected="dcsim-plot: $dir/run/summary.json: no function_billing (the scenario needs platform.billing)"
[ "$message" = "$expected" ] || { echo "unexpected message: $message"; exit 1; }
echo "tools.plot.harmonybatch: ok"
