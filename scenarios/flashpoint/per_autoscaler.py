#!/usr/bin/env python3
"""Per-autoscaler technique gains and scale-up shape of a Flashpoint techniques run directory.

    python3 scenarios/flashpoint/per_autoscaler.py RUNS_DIR [twitter|azure]

For each autoscaler: the mean over the models of BL / technique mean cold start (MP, MC, LC;
pairs where both runs had a cold start and neither ended with more than 10% of its requests
still in the system, as `dcsim-plot flashpoint-table --max-backlog 0.1`), and from the BL runs'
`autoscaler` summary block (issue #20) the mean starts per scale-up and the share of scale-ups
that asked for more new replicas than were running (thesis Fig. 6.2).
"""
import json
import os
import statistics
import sys

MODELS = ["t5-3b", "dialogpt-large", "gpt2-xl", "bart-large", "codebert", "albert-xxlarge-v2"]


def load(root, trace, model, scaler, system):
    path = os.path.join(root, f"{trace}-{model}-{scaler}-{system}", "summary.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: line {e.lineno}: expected JSON: {e.msg}")


def backlogged(s):
    left = s["requests_in_system_at_end"]
    return left > 0.1 * (s["requests"]["completed"] + left)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    trace = sys.argv[2] if len(sys.argv) == 3 else "twitter"
    print("| autoscaler | MP | MC | LC | starts per scale-up | new / running > 1 |")
    print("|---|---|---|---|---|---|")
    for scaler in ["atl", "sm", "owk", "tsk"]:
        cells = [scaler]
        for tech in ["mp", "mc", "lc"]:
            ratios = []
            for m in MODELS:
                b, x = load(root, trace, m, scaler, "bl"), load(root, trace, m, scaler, tech)
                if not b or not x or backlogged(b) or backlogged(x):
                    continue
                if b["cold_starts"]["count"] == 0 or x["cold_starts"]["count"] == 0:
                    continue
                ratios.append(b["cold_starts"]["total_s"] / x["cold_starts"]["total_s"])
            cells.append(f"{statistics.mean(ratios):.2f}x (n={len(ratios)})" if ratios else "-")
        starts, above = [], []
        for m in MODELS:
            b = load(root, trace, m, scaler, "bl")
            a = (b or {}).get("autoscaler") or {}
            if a.get("scale_ups", 0) > 0:
                starts.append(a["starts_per_scale_up"])
                above.append(a["new_per_running"]["fraction_above_1"])
        cells.append(f"{statistics.mean(starts):.2f}" if starts else "-")
        cells.append(f"{100 * statistics.mean(above):.0f}%" if above else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
