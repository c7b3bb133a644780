#!/usr/bin/env bash
# scripts/scorecard-matrix on four hand-made scorecards A:1, A:2, B:1, B:2 (factors kappa, seed):
#   x.robust holds everywhere; x.kappa holds at A, misses at B; x.seed holds only at (A, 1), so
#   it changes with the seed at kappa A and with kappa at seed 1; x.nc is not comparable.
set -euo pipefail
script="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, os, sys
def claim(cid, verdict, value, kind="value", term="r:per_class.strict.slo.compliance"):
    return {"id": "x." + cid, "verdict": verdict, "values": [] if value is None else [value],
            "metric": {"kind": kind, "of": [term]}, "paper": {"text": "P|" + cid}}
for label, holds in {"A1": (True, True), "A2": (True, False), "B1": (False, False),
                     "B2": (False, False)}.items():
    kappa_holds, seed_holds = holds
    claims = [claim("robust", "holds", 0.5),
              claim("kappa", "holds" if kappa_holds else "misses", 0.25),
              claim("seed", "holds" if seed_holds else "misses", 1.5, "difference_pp", "r:a - r:b"),
              claim("nc", "not comparable", None)]
    card = {"size": "full", "families": [{"family": "x", "paper": "", "page": "", "claims": claims}]}
    json.dump(card, open(os.path.join(sys.argv[1], label + ".json"), "w"))
PY
out=$(python3 "$script" --family x A:1="$dir/A1.json" A:2="$dir/A2.json" B:1="$dir/B1.json" \
      B:2="$dir/B2.json")
expect() { grep -qF -- "$1" <<< "$out" || { echo "missing: $1"; echo "$out"; exit 1; }; }
expect "| claim | paper | kappa A, seed 1 | kappa A, seed 2 | kappa B, seed 1 | kappa B, seed 2 |"
expect "| \`robust\` | P/robust | 50.00%, holds | 50.00%, holds | 50.00%, holds | 50.00%, holds |"
expect "| \`seed\` | P/seed | +1.50 pp, holds | +1.50 pp, misses |"
expect "| \`nc\` | P/nc | n/c | n/c | n/c | n/c |"
expect "| **holds** | | **3** of 3 | **2** of 3 | **1** of 3 | **1** of 3 |"
expect "| \`kappa\` | 2 of 2 | 0 of 2 |"
expect "| \`seed\` | 1 of 2 (seed 1) | 0 of 2 |"
expect "One verdict in every column (2): \`robust\` (holds), \`nc\` (not comparable)"
expect "Verdict changes with kappa at a fixed seed (2): \`kappa\` (at seed 1, 2), \`seed\` (at seed 1)"
expect "Verdict changes with seed at a fixed kappa (1): \`seed\` (at kappa A)"
echo ok
