#!/usr/bin/env python3
"""Fig. 6.2 and Fig. 8.10 of the thesis from a directory of Flashpoint runs (their summaries'
`autoscaler` block, issue #20).

    python3 scenarios/flashpoint/scale_ups.py RUNS_DIR [twitter|azure] [--prefix PREFIX]

Fig. 6.2: for each autoscaler, the CDF of new / running replicas per scale-up of the Baseline
runs (`new_per_running.deciles`: 0%, 10%, ..., 100%), one row per model with a scale-up; the
thesis's claim is that every scale-up has a ratio above 1. Fig. 8.10: the scale-ups of the MP
runs by their number of parts (`scale_ups_by_parts`), with MP's and BL's mean latency (thesis
Fig. 8.10a/b: T5-3B and DialoGPT under ATL). Run names are PREFIX + MODEL-AUTOSCALER-SYSTEM;
PREFIX defaults to "TRACE-" (run.sh's names); `dcsim reproduce` names them without the trace.
"""
import argparse
import json
import os

MODELS = ["codebert", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
AUTOSCALERS = ["atl", "sm", "owk", "tsk"]


def load(root, name):
    path = os.path.join(root, name, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs")
    ap.add_argument("trace", nargs="?", default="twitter")
    ap.add_argument("--prefix")
    args = ap.parse_args()
    prefix = args.prefix if args.prefix is not None else args.trace + "-"
    print("Fig. 6.2: new / running per scale-up of the BL runs (deciles 10/50/90/100%)")
    print("| autoscaler | model | scale-ups | from zero | p10 | p50 | p90 | max | share > 1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for a in AUTOSCALERS:
        for m in MODELS:
            s = load(args.runs, f"{prefix}{m}-{a}-bl")
            if s is None or not s["autoscaler"].get("scale_ups"):
                continue
            au = s["autoscaler"]
            npr = au["new_per_running"]
            d = npr.get("deciles") or [None] * 11
            print(f"| {a} | {m} | {au['scale_ups']} | {npr.get('from_zero', 0)} | {fmt(d[1])} | "
                  f"{fmt(d[5])} | {fmt(d[9])} | {fmt(d[10])} | "
                  f"{100 * npr.get('fraction_above_1', 0):.0f}% |")
    print("\nFig. 8.10: scale-ups of the MP runs by parts, mean latency MP / BL (s)")
    print("| autoscaler | model | scale-ups by parts | one part | MP mean | BL mean |")
    print("|---|---|---|---|---|---|")
    for m in ("t5-3b", "dialogpt-large"):
        for a in AUTOSCALERS:
            mp = load(args.runs, f"{prefix}{m}-{a}-mp")
            bl = load(args.runs, f"{prefix}{m}-{a}-bl")
            if mp is None:
                continue
            by = mp["autoscaler"].get("scale_ups_by_parts", {})
            n = sum(by.values())
            parts = ", ".join(f"{k}: {v}" for k, v in sorted(by.items(), key=lambda kv: int(kv[0])))
            one = f"{100 * by.get('1', 0) / n:.0f}%" if n else "-"
            blm = fmt(bl["latency_s"]["mean"]) if bl else "-"
            print(f"| {a} | {m} | {n} ({parts}) | {one} | {fmt(mp['latency_s']['mean'])} | {blm} |")


if __name__ == "__main__":
    main()
