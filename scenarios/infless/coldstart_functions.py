#!/usr/bin/env python3
"""Picks the Azure Functions 2019 functions of each trace kind for INFless Fig. 16 and writes
scenarios/infless/coldstart-<kind>-<policy>.json from the lsth/hhp/fixed templates.

The kinds are defined by the per-minute invocation counts of one day (In-Vitro 1,350-function
sample), by rules fixed before any Fig. 16 run was made with them:

  sporadic: active in at most 10% of the 1,440 minutes, at least 10 active minutes, and the
            gaps between active minutes irregular (coefficient of variation >= 1);
  periodic: at least 10 gaps; the most common gap is >= 2 minutes and >= 90% of all gaps;
  bursty:   active in at least half of the minutes, per-minute count CV >= 1.5.

Every function of a kind in the sample is used (318 sporadic, 103 periodic, 9 bursty), in hash
order: the paper does not say how many functions it evaluated, and taking them all leaves no
choice to make. (Until 2026-11-26 the first 9 of each kind; a sporadic function has a few dozen
requests a day, so with 9 the kind's mean rested on a few requests.)

Fig. 16 compares keep-alive policies, so a cold start must never come from a full cluster: the
scenario gets HOSTS_PER_KIND Table 2 servers, enough that no instance start is unplaced in any
of the kind's runs (checked: the summaries' decisions.rejected has no start_unplaced).
Usage: coldstart_functions.py [--write]
"""
import csv
import gzip
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = "azure-functions-2019/invitro_sample1350_invocations.csv.gz"
PER_KIND = None  # every function of the kind
HOSTS_PER_KIND = {"sporadic": 64, "periodic": 32, "bursty": 8}


def trace_path():
    root = os.environ.get("SIM_TRACE_DIR", os.path.join(HERE, "..", "..", "..", "shared", "traces"))
    return os.path.join(root, TRACE)


def kind_of(counts):
    active = [i for i, x in enumerate(counts) if x > 0]
    if not active:
        return None
    share = len(active) / len(counts)
    mean = statistics.mean(counts)
    cv = statistics.pstdev(counts) / mean
    gaps = [b - a for a, b in zip(active, active[1:])]
    if share >= 0.5 and cv >= 1.5:
        return "bursty"
    if len(gaps) >= 10:
        mode = max(sorted(set(gaps)), key=gaps.count)
        if mode >= 2 and gaps.count(mode) >= 0.9 * len(gaps):
            return "periodic"
    if share <= 0.1 and len(active) >= 10 and len(gaps) >= 2:
        if statistics.pstdev(gaps) / statistics.mean(gaps) >= 1.0:
            return "sporadic"
    return None


def pick():
    kinds = {"sporadic": [], "periodic": [], "bursty": []}
    with gzip.open(trace_path(), "rt") as f:
        rows = csv.reader(f)
        next(rows)
        for row in rows:
            k = kind_of([int(x) for x in row[3:]])
            if k:
                kinds[k].append(row[0])
    return {k: sorted(v)[:PER_KIND] for k, v in kinds.items()}


def write(kind, policy, hashes):
    path = os.path.join(HERE, f"coldstart-{kind}-{policy}.json")
    with open(path) as f:
        s = json.load(f)
    w0 = s["workload"][0]
    f0 = s["platform"]["functions"][0]
    s["workload"] = []
    s["platform"]["functions"] = []
    for i, h in enumerate(hashes):
        w = dict(w0, hashes=[h[:12]], function=f"f{i}")
        s["workload"].append(w)
        s["platform"]["functions"].append(dict(f0, name=f"f{i}"))
    s["platform"]["cluster"]["hosts"][0]["count"] = HOSTS_PER_KIND[kind]
    d = s["description"]
    head = d[: d.index("HashFunction prefixes")] if "HashFunction prefixes" in d else d[: d.index("all ")]
    s["description"] = (
        head + f"all {len(hashes)} functions of the kind, by the rules of "
        "scenarios/infless/coldstart_functions.py; one day of per-minute counts at their own "
        f"rates), each served as a resnet-50 function by INFless on {HOSTS_PER_KIND[kind]} Table 2 "
        "servers.")
    with open(path, "w") as f:
        json.dump(s, f, indent=2, ensure_ascii=True)
        f.write("\n")


def main():
    picked = pick()
    for k, v in picked.items():
        print(k, len(v), " ".join(h[:12] for h in v))
    if "--write" in sys.argv:
        for k, v in picked.items():
            for p in ("lsth", "hhp", "fixed"):
                write(k, p, v)


if __name__ == "__main__":
    main()
