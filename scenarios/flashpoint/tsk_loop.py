#!/usr/bin/env python3
"""The TSK feedback loop of one run, from its timeseries.csv (docs/reproduction/flashpoint.md,
"TSK as deployed"): every `--every` seconds from `--start`, the queue, the ready and the
cold-starting replicas and the replicas desired, then a summary (peak cold starts in flight,
peak desired, when the queue last emptied).

    python3 scenarios/flashpoint/tsk_loop.py RUN_DIR [--start 3000] [--end 3600] [--every 15]
"""

import argparse
import csv
import pathlib


def rows(run):
    with open(pathlib.Path(run) / "timeseries.csv", newline="") as f:
        for r in csv.DictReader(f):
            yield {k: float(v) for k, v in r.items() if v not in ("", None)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--start", type=float, default=0.0)
    ap.add_argument("--end", type=float, default=float("inf"))
    ap.add_argument("--every", type=float, default=15.0)
    a = ap.parse_args()
    data = list(rows(a.run))
    time_key = next(k for k in data[0] if k.startswith("t"))
    print(f"{'t (s)':>7} {'queue':>8} {'ready':>6} {'cold':>6} {'desired':>8}")
    next_t = a.start
    peak_cold = (0.0, 0.0)
    peak_desired = (0.0, 0.0)
    last_nonempty = None
    for r in data:
        t = r[time_key]
        ready = r["instances_idle"] + r["instances_busy"]
        cold = r["instances_cold_starting"]
        if cold > peak_cold[0]:
            peak_cold = (cold, t)
        if r["instances_desired"] > peak_desired[0]:
            peak_desired = (r["instances_desired"], t)
        if r["queue_length"] > 0:
            last_nonempty = t
        if a.start <= t <= a.end and t >= next_t:
            print(f"{t:7.0f} {r['queue_length']:8.0f} {ready:6.0f} {cold:6.0f} "
                  f"{r['instances_desired']:8.0f}")
            next_t = t + a.every
    print(f"peak cold starts in flight: {peak_cold[0]:.0f} at {peak_cold[1]:.0f} s; "
          f"peak desired: {peak_desired[0]:.0f} at {peak_desired[1]:.0f} s; "
          f"queue last non-empty at {last_nonempty} s")


if __name__ == "__main__":
    main()
