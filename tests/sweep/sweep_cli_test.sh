#!/usr/bin/env bash
# dcsim sweep on the command line: --dry-run lists the runs; a sweep killed mid-way (SIGKILL,
# nothing flushed) and run again ends with the outputs of an uninterrupted sweep; a resumed
# sweep skips what is done.
set -euo pipefail
dcsim="$1"
source_dir="$2"
dir=$(mktemp -d)
trap 'kill -9 "${pid:-0}" 2>/dev/null || true; rm -rf "$dir"' EXIT

cat > "$dir/exp.json" <<JSON
{
  "name": "cli",
  "scenario": "$source_dir/scenarios/quickstart.json",
  "set": ["duration=150s", "warmup=1s", "output.requests=csv"],
  "axes": [{"name": "load", "set": "workload.0.rate", "values": ["150/s", "450/s"]}],
  "replications": 2
}
JSON

fail() { echo "sweep.cli: $*"; exit 1; }

listing=$("$dcsim" sweep "$dir/exp.json" --dry-run -o "$dir/a")
grep -q "experiment cli: 2 combinations x 2 seeds = 4 runs" <<< "$listing" || fail "dry run: $listing"
grep -q 'load=450_s,seed=2 *to run *--set workload.0.rate="450/s"' <<< "$listing" ||
  fail "dry run lists no run load=450_s,seed=2: $listing"
[ ! -e "$dir/a" ] || fail "a dry run wrote outputs"

"$dcsim" sweep "$dir/exp.json" -j 2 -o "$dir/a" > "$dir/a.log"
grep -q "4 runs: 4 ran, 0 up to date, 0 failed" "$dir/a.log" || fail "$(cat "$dir/a.log")"
[ "$(wc -l < "$dir/a/cli/results.csv")" -eq 5 ] || fail "results.csv has not 4 rows"

# Killed once the first run has finished, then resumed.
"$dcsim" sweep "$dir/exp.json" -j 1 -o "$dir/b" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  ls "$dir"/b/cli/runs/*/sweep-run.json > /dev/null 2>&1 && break
  sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
finished=$(ls "$dir"/b/cli/runs/*/sweep-run.json 2>/dev/null | wc -l)
[ "$finished" -ge 1 ] && [ "$finished" -lt 4 ] || fail "expected a sweep killed mid-way, $finished runs finished"
"$dcsim" sweep "$dir/exp.json" -j 2 -o "$dir/b" > "$dir/b.log"
grep -q "$finished up to date, 0 failed" "$dir/b.log" || fail "resume: $(cat "$dir/b.log")"

# Same files, same bytes, the run records included (they hold no wall time).
(cd "$dir/a/cli" && find . -type f | sort) > "$dir/a.files"
(cd "$dir/b/cli" && find . -type f | sort) > "$dir/b.files"
diff "$dir/a.files" "$dir/b.files" || fail "the resumed sweep has other files"
while read -r f; do
  cmp -s "$dir/a/cli/$f" "$dir/b/cli/$f" || fail "$f differs after resuming"
done < "$dir/a.files"

# A third pass has nothing to do.
"$dcsim" sweep "$dir/exp.json" -o "$dir/b" > "$dir/c.log"
grep -q "0 ran, 4 up to date" "$dir/c.log" || fail "$(cat "$dir/c.log")"
# An override from the command line changes every run's scenario: all are stale.
stale=$("$dcsim" sweep "$dir/exp.json" --dry-run --set warmup=2s -o "$dir/b" | grep -c "to redo (stale)")
[ "$stale" -eq 4 ] || fail "--set made $stale of 4 runs stale"
# A dry run whose runs are invalid fails, as the sweep would.
if "$dcsim" sweep "$dir/exp.json" --dry-run --set 'platform.functions.0.max_batch="x"' \
  -o "$dir/b" > "$dir/d.log" 2>&1; then
  fail "a dry run of invalid runs exited 0: $(cat "$dir/d.log")"
fi
grep -q "4 of 4 runs are invalid" "$dir/d.log" || fail "$(cat "$dir/d.log")"
echo "sweep.cli: ok"
