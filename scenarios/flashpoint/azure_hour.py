#!/usr/bin/env python3
"""Picks the Azure hour whose per-minute profile matches the thesis's (§3.1: median 18 req/s,
peak-to-median 2.54) from a rate CSV written by `dcsim trace-info --bin 1min --rate-csv`.

    dcsim trace-info azure-functions-2019/invitro_sample1350_invocations.csv.gz \
        --bin 1min --rate-csv azure.csv
    python3 scenarios/flashpoint/azure_hour.py azure.csv [--top 5]

Every 60-minute window starting on a minute is scored by |peak/median - 2.54|. Windows whose
peak falls in their first or last 10 minutes are skipped: such a burst is partly outside the
hour (on the In-Vitro sample, the window at minute 727 peaks at +56 and its burst goes on for
6 minutes after the window ends). The median is matched by rescaling (the ratio
does not change under it), so the script prints the `rescale` mean that gives a median of
18 req/s: mean x 18 / median.
"""
import argparse
import csv
import statistics

TARGET_P2M = 2.54     # thesis §3.1 / §8.3
TARGET_MEDIAN = 18.0  # req/s, thesis §3.1
EDGE_MIN = 10


def windows(rates, length=60):
    for s in range(len(rates) - length + 1):
        w = rates[s:s + length]
        med = statistics.median(w)
        peak = max(w)
        at = w.index(peak)
        if med <= 0 or at < EDGE_MIN or at > length - 1 - EDGE_MIN:
            continue
        yield {"start_min": s, "median": med, "peak": peak, "peak_at_min": at,
               "p2m": peak / med, "mean": sum(w) / length}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rate_csv")
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    with open(args.rate_csv) as f:
        rows = list(csv.DictReader(f))
    bins = {round(float(rows[i + 1]["time_s"]) - float(rows[i]["time_s"]))
            for i in range(len(rows) - 1)}
    if bins != {60}:
        raise SystemExit(f"{args.rate_csv}: expected 1-minute bins (trace-info --bin 1min), "
                         f"found bin widths {sorted(bins)} s")
    rates = [float(r["rate_per_s"]) for r in rows]
    ranked = sorted(windows(rates), key=lambda w: (abs(w["p2m"] - TARGET_P2M), w["start_min"]))
    print("start_min start_s median peak peak_at p2m mean rescale_mean")
    for w in ranked[:args.top]:
        print(f"{w['start_min']} {w['start_min'] * 60} {w['median']:.3f} {w['peak']:.3f} "
              f"+{w['peak_at_min']} {w['p2m']:.3f} {w['mean']:.3f} "
              f"{w['mean'] * TARGET_MEDIAN / w['median']:.4f}")


if __name__ == "__main__":
    main()
