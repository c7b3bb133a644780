#!/usr/bin/env python3
"""INFless Fig. 16 statistics from the cold-start runs of `dcsim reproduce infless`.

For each trace kind: every policy's cold-start rate per function (a function's requests that
waited for a cold start over its requests, averaged over the kind's functions: the scorecard's
quantity cold_start_rate_per_function), its cold-start requests, LSTH's reduction against HHP
(100 (1 - LSTH / HHP)) and instance-seconds against HHP; at gamma 0.5 also on how many
functions LSTH has more or fewer cold-start requests, a bootstrap interval of the reduction
(resampling the kind's functions), the function whose removal moves the reduction most, and the
reduction without each function's first request (a cold start under any policy). Also each
run's rejected decisions (start_invalid must be 0 since the placement-view fix of issue #22).

Usage: fig16_stats.py RUNS_DIR   (RUNS_DIR = OUT/runs/infless of `dcsim reproduce infless`)
"""
import json
import os
import random
import sys

KINDS = ("sporadic", "periodic", "bursty")
LSTH = (("lsth-g3", "0.3"), ("lsth", "0.5"), ("lsth-g7", "0.7"))
RESAMPLES = 2000
SEED = 1


def load(runs, name):
    with open(os.path.join(runs, name, "summary.json")) as f:
        return json.load(f)


def per_function(summary, skip_first=False):
    """{function: (cold-start requests, requests)}; skip_first drops each function's first."""
    out = {}
    for name, f in summary["per_function"].items():
        cold = f["waits_s"]["cold_start_affected"]
        n = f["requests"]["recorded"]
        if skip_first:
            cold, n = max(cold - 1, 0), n - 1
        if n > 0:
            out[name] = (cold, n)
    return out


def rate(fs, names):
    return sum(fs[k][0] / fs[k][1] for k in names) / len(names)


def reduction(lsth, hhp, names):
    h = rate(hhp, names)
    return 100.0 * (1.0 - rate(lsth, names) / h) if h > 0 else float("nan")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = sys.argv[1]
    rng = random.Random(SEED)
    for kind in KINDS:
        hhp_s = load(runs, f"coldstart-{kind}-hhp")
        hhp = per_function(hhp_s)
        names = sorted(hhp)
        reqs = sum(v[1] for v in hhp.values())
        print(f"{kind}: {len(names)} functions, {reqs} requests")
        print(f"  hhp: rate {100 * rate(hhp, names):.3f}% "
              f"({sum(v[0] for v in hhp.values())} cold-start requests), "
              f"rejected {hhp_s['decisions'].get('rejected', {})}")
        for run, gamma in LSTH:
            s = load(runs, f"coldstart-{kind}-{run}")
            fs = per_function(s)
            assert sorted(fs) == names, "the runs must hold the same functions"
            waste = 100.0 * (s["instance_seconds"] / hhp_s["instance_seconds"] - 1.0)
            print(f"  lsth gamma {gamma}: rate {100 * rate(fs, names):.3f}% "
                  f"({sum(v[0] for v in fs.values())}; reduction {reduction(fs, hhp, names):+.1f}%), "
                  f"instance-seconds {waste:+.2f}% vs hhp, "
                  f"rejected {s['decisions'].get('rejected', {})}")
        lsth = per_function(load(runs, f"coldstart-{kind}-lsth"))
        more = sum(lsth[k][0] > hhp[k][0] for k in names)
        fewer = sum(lsth[k][0] < hhp[k][0] for k in names)
        boot = sorted(
            reduction(lsth, hhp, s)
            for s in ([rng.choice(names) for _ in names] for _ in range(RESAMPLES)))
        lo, hi = boot[int(0.025 * RESAMPLES)], boot[int(0.975 * RESAMPLES) - 1]
        print(f"  gamma 0.5: lsth more on {more}, fewer on {fewer}; "
              f"95% bootstrap [{lo:+.1f}%, {hi:+.1f}%] ({RESAMPLES} resamples, seed {SEED})")
        if len(names) > 1:
            full = reduction(lsth, hhp, names)
            loo = {k: reduction(lsth, hhp, [n for n in names if n != k]) for k in names}
            k = max(names, key=lambda n: abs(loo[n] - full))
            print(f"  most influential: {k} (hhp {hhp[k][0]}, lsth {lsth[k][0]} of {hhp[k][1]} "
                  f"requests); without it {loo[k]:+.1f}%")
        h1, l1 = per_function(hhp_s, True), per_function(
            load(runs, f"coldstart-{kind}-lsth"), True)
        n1 = sorted(set(h1) & set(l1))
        print(f"  without each function's first request: {reduction(l1, h1, n1):+.1f}%")


if __name__ == "__main__":
    main()
