#!/usr/bin/env bash
# Stop signals end a run cleanly: SIGTERM (what kill, timeout and batch schedulers send) works
# like Ctrl-C, and a second signal during the write-out does not lose the partial results or
# leave temporary files behind.
set -euo pipefail
dcsim="$1"
scenario="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

check_stop() {  # $1: signal name, $2: run name
  "$dcsim" run "$scenario" --until 100000s --out "$dir" --name "$2" --quiet 2> "$dir/$2.err" &
  local pid=$!
  # Wait until the run is under way (its output folder exists), at most 30 s.
  for _ in $(seq 300); do [ -d "$dir/$2" ] && break; sleep 0.1; done
  sleep 0.5
  kill "-$1" "$pid"
  kill "-$1" "$pid" 2> /dev/null || true  # the second one, as `timeout` or a double Ctrl-C
  local code=0
  wait "$pid" || code=$?
  [ "$code" = 130 ] || { echo "$1: exit code $code, expected 130"; cat "$dir/$2.err"; exit 1; }
  python3 - "$dir/$2/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["partial"] is True, "summary not marked partial"
assert s["requests_arrived"] > 0, "nothing recorded"
PY
  test -s "$dir/$2/requests.h5" || { echo "$1: requests.h5 missing"; exit 1; }
  left=$(find "$dir" -name '*.tmp.*')
  [ -z "$left" ] || { echo "$1: temporary files left: $left"; exit 1; }
}

check_stop TERM term
check_stop INT int
check_stop HUP hup
echo "signals: ok"
