#!/usr/bin/env bash
# scenarios/infless/fig16_stats.py on hand-made summaries of three functions (every kind alike):
#   HHP  f0 1/10, f1 4/20, f2 0/10 cold-start requests: rates 0.1, 0.2, 0 -> mean 10.000% (5)
#   LSTH f0 1/10, f1 2/20, f2 0/10: 0.1, 0.1, 0 -> 6.667% (3); reduction 100 (1 - 1/15 / 0.1) = 33.3%
#   instance-seconds 90 against 100: -10.00%; LSTH fewer on one function (f1), more on none
#   without f1: HHP 0.05, LSTH 0.05 -> 0.0% (f0 out: 50%, f2 out: 33.3%, so f1 moves it most)
#   without each first request: HHP 0, 3/19, 0; LSTH 0, 1/19, 0 -> 66.7%
set -euo pipefail
script="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, os, sys
def fn(cold, n):
    return {"waits_s": {"cold_start_affected": cold}, "requests": {"recorded": n}}
runs = {"hhp": ((1, 4, 0), 100.0, {}), "lsth-g3": ((1, 2, 0), 90.0, {}),
        "lsth": ((1, 2, 0), 90.0, {}), "lsth-g7": ((1, 2, 0), 90.0, {"start_invalid": 2})}
for kind in ("sporadic", "periodic", "bursty"):
    for run, (cold, seconds, rejected) in runs.items():
        d = os.path.join(sys.argv[1], f"coldstart-{kind}-{run}")
        os.makedirs(d)
        s = {"per_function": {f"f{i}": fn(c, n) for i, (c, n) in enumerate(zip(cold, (10, 20, 10)))},
             "instance_seconds": seconds, "decisions": {"rejected": rejected}}
        json.dump(s, open(os.path.join(d, "summary.json"), "w"))
PY
out=$(python3 "$script" "$dir")
expect() { grep -qF -- "$1" <<< "$out" || { echo "missing: $1"; echo "$out"; exit 1; }; }
expect "sporadic: 3 functions, 40 requests"
expect "hhp: rate 10.000% (5 cold-start requests), rejected {}"
expect "lsth gamma 0.5: rate 6.667% (3; reduction +33.3%), instance-seconds -10.00% vs hhp"
expect "lsth gamma 0.7: rate 6.667% (3; reduction +33.3%), instance-seconds -10.00% vs hhp, rejected {'start_invalid': 2}"
expect "gamma 0.5: lsth more on 0, fewer on 1; 95% bootstrap"
expect "most influential: f1 (hhp 4, lsth 2 of 20 requests); without it +0.0%"
expect "without each function's first request: +66.7%"
[ "$(grep -c 'functions, 40 requests' <<< "$out")" = 3 ] || { echo "not three kinds"; exit 1; }
echo "tools.infless_fig16_stats: ok"
