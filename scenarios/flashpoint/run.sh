#!/bin/sh
# Runs Flashpoint reproduction scenarios, two at a time, niced: scenarios/flashpoint/run.sh OUT FILE...
# Each run lands in OUT/<scenario name>/ (summary.json, requests.h5, timeseries.csv); a run whose
# summary already exists is skipped, so an interrupted batch can be resumed.
set -eu
out=$1
shift
dcsim=${DCSIM:-build/release/src/cli/dcsim}
mkdir -p "$out"
for f in "$@"; do echo "$f"; done | xargs -P "${JOBS:-2}" -I{} sh -c '
  name=$(sed -n "s/^ \"name\": \"\(.*\)\",$/\1/p" "{}")
  if [ -f "'"$out"'/$name/summary.json" ]; then exit 0; fi
  start=$(date +%s.%N)
  nice '"$dcsim"' run "{}" --out "'"$out"'" > /dev/null 2>&1 || echo "FAILED {}"
  end=$(date +%s.%N)
  echo "$name $(echo "$end - $start" | bc) s"
'
