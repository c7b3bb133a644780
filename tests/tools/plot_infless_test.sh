#!/usr/bin/env bash
# tools/plot infless: renders a collect.py JSON list to PNG and PDF and rejects bad input.
set -euo pipefail
plot="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/runs.json" <<'JSON'
[{"run": "osvt-infless", "throughput_rps": 900.0, "cold_start_rate": 0.01},
 {"run": "osvt-batch", "throughput_rps": 450.0, "cold_start_rate": 0.02}]
JSON
"$plot" infless "$dir/runs.json" --metric throughput -o "$dir/t" > /dev/null
grep -q PNG <<< "$(head -c 8 "$dir/t.png")" || { echo "t.png is not a PNG"; exit 1; }
grep -q '%PDF' <<< "$(head -c 5 "$dir/t.pdf")" || { echo "t.pdf is not a PDF"; exit 1; }
echo '[{"run": "x"}]' > "$dir/bad.json"
if "$plot" infless "$dir/bad.json" -o "$dir/b" > /dev/null 2>&1; then
  echo "bad input was accepted"; exit 1
fi
echo "tools.plot.infless: ok"
