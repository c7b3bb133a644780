#!/usr/bin/env python3
"""INFless Fig. 11: the maximum constant load a system sustains within its SLO.

Bisects the per-function constant rate of a stress scenario (scenarios/infless/*-stress-*.json)
for the largest rate whose SLO compliance after warm-up is at least --target, and prints
the throughput (SLO-meeting requests per second over all functions) at that rate.

  stress_search.py DCSIM SCENARIO [--lo 10] [--hi 3000] [--target 0.95] [--steps 7]
"""
import argparse
import json
import pathlib
import subprocess
import tempfile


def run(dcsim, scenario, rate, out):
    cmd = [dcsim, "run", str(scenario), "--out", str(out), "--quiet"]
    doc = json.loads(pathlib.Path(scenario).read_text())
    for i in range(len(doc["workload"])):
        cmd += ["--set", f"workload.{i}.rate={rate}/s"]
    cmd += ["--set", "output.requests=none"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    summary = json.loads((pathlib.Path(out) / doc["name"] / "summary.json").read_text())
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dcsim")
    ap.add_argument("scenario")
    ap.add_argument("--lo", type=float, default=10)
    ap.add_argument("--hi", type=float, default=3000)
    ap.add_argument("--target", type=float, default=0.95)
    ap.add_argument("--steps", type=int, default=7)
    a = ap.parse_args()
    best = None
    lo, hi = a.lo, a.hi
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.steps):
            mid = round((lo + hi) / 2)
            s = run(a.dcsim, a.scenario, mid, tmp)
            # Requests still queued at the end (a function no configuration can serve) are
            # violations too.
            with_slo = s["slo"]["with_slo"] + s.get("requests_in_system_at_end", 0)
            c = s["slo"]["met"] / with_slo if with_slo else 0.0
            s["slo"]["compliance"] = c
            if c >= a.target:
                best = (mid, s)
                lo = mid
            else:
                hi = mid
    if best is None:
        print(json.dumps({"scenario": a.scenario, "max_rate_per_function": None}))
        return
    rate, s = best
    n = len(json.loads(pathlib.Path(a.scenario).read_text())["workload"])
    print(json.dumps({"scenario": a.scenario, "max_rate_per_function": rate,
                      "throughput_rps": rate * n * s["slo"]["compliance"],
                      "slo_compliance": s["slo"]["compliance"]}))


if __name__ == "__main__":
    main()
