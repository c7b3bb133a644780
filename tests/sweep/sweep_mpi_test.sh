#!/usr/bin/env bash
# dcsim sweep under mpirun -n 3 (a coordinator handing out runs to two workers, oversubscribed
# on small machines) writes the same files, byte for byte, as a local sweep.
set -euo pipefail
mpirun="$1"
dcsim="$2"
source_dir="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "sweep.mpi: $*"; exit 1; }

cat > "$dir/exp.json" <<JSON
{
  "name": "mpi",
  "scenario": "$source_dir/scenarios/quickstart.json",
  "set": ["duration=6s", "warmup=1s"],
  "axes": [
    {"name": "load", "set": "workload.0.rate", "values": ["150/s", "300/s"]},
    {"name": "keepalive", "set": "platform.policies.keep_alive.keep_alive", "values": ["2s", "60s"]}
  ],
  "replications": 2
}
JSON

# Open MPI refuses to start as root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$dcsim" sweep "$dir/exp.json" -j 1 -o "$dir/local" > "$dir/local.log"
"$mpirun" -n 3 --oversubscribe "$dcsim" sweep "$dir/exp.json" -o "$dir/mpi" > "$dir/mpi.log" 2>&1 ||
  fail "mpirun failed: $(cat "$dir/mpi.log")"
grep -q "8 runs: 8 ran, 0 up to date, 0 failed" "$dir/mpi.log" || fail "$(cat "$dir/mpi.log")"
[ "$(grep -c 'dcsim sweep mpi:' "$dir/mpi.log")" -eq 1 ] || fail "more than one rank reported"

(cd "$dir/local/mpi" && find . -type f ! -name sweep-run.json | sort) > "$dir/local.files"
(cd "$dir/mpi/mpi" && find . -type f ! -name sweep-run.json | sort) > "$dir/mpi.files"
diff "$dir/local.files" "$dir/mpi.files" || fail "mpirun wrote other files"
[ "$(wc -l < "$dir/local.files")" -eq 34 ] || fail "expected 8 runs x 4 files + 2 tables"
while read -r f; do
  cmp -s "$dir/local/mpi/$f" "$dir/mpi/mpi/$f" || fail "$f differs between local and mpirun -n 3"
done < "$dir/local.files"

# Resuming under MPI skips everything.
"$mpirun" -n 3 --oversubscribe "$dcsim" sweep "$dir/exp.json" -o "$dir/mpi" > "$dir/again.log" 2>&1 ||
  fail "mpirun failed: $(cat "$dir/again.log")"
grep -q "0 ran, 8 up to date" "$dir/again.log" || fail "$(cat "$dir/again.log")"
echo "sweep.mpi: ok"
