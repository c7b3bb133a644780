#!/usr/bin/env python3
"""Flashpoint §8.4.1, MP < MC < LC: per-run cold-start breakdowns of BL, MC and MP.

For every (model, autoscaler) of a trace in RUNS (directories named TRACE-MODEL-SCALER-SYSTEM,
each with a summary.json; run.sh's layout), prints one Markdown row per system: cold starts
started / completed, the mean per-instance cold start (`cold_starts.total_s`) and its download
stage, the store-link contention (mean download over the model's uncontended store download),
for MC the chains launched and how many cold starts each served at launch, for MP the
partitioned replicas by parts. Issue #20: whether dcsim's multicast has anything to work on.

usage: scenarios/flashpoint/multicast.py RUNS [twitter|azure] [--models m,...]
"""
import argparse
import json
import os

MODELS = ["codebert", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
AUTOSCALERS = ["atl", "owk", "sm", "tsk"]
STORE_BPS = 2203e6  # data/topologies/flashpoint-datacenter.json, cloud store egress
HERE = os.path.dirname(os.path.abspath(__file__))


def model_bytes(model):
    with open(os.path.join(HERE, "..", "..", "data", "models", "flashpoint.json")) as f:
        m = json.load(f)["models"].get(model)
    return m["weights_mb"]["value"] * 1e6 if m else None


def summary(runs, name):
    try:
        with open(os.path.join(runs, name, "summary.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def fmt(x, spec=".1f"):
    return "—" if x is None else format(x, spec)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs")
    p.add_argument("trace", nargs="?", default="twitter")
    p.add_argument("--models", default=",".join(MODELS))
    a = p.parse_args()
    print("| model | autoscaler | system | cold starts (completed) | per instance (s) | download (s) "
          "| store contention | starts per scale-up | chains (cold starts each: count) | parts "
          "(replicas) | mean e2e (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for model in a.models.split(","):
        size = model_bytes(model)
        alone = size * 8 / STORE_BPS if size else None
        for scaler in AUTOSCALERS:
            for system in ["bl", "mc", "mp"]:
                s = summary(a.runs, f"{a.trace}-{model}-{scaler}-{system}")
                if s is None:
                    continue
                cs = s["cold_starts"]
                if cs["count"] == 0:
                    continue
                dl = cs["by_stage"]["download_s"]
                chains = cs.get("chains", {}).get("by_cold_starts", {})
                chain_text = ", ".join(f"{k}: {v}" for k, v in
                                       sorted(chains.items(), key=lambda kv: int(kv[0])))
                parts = s.get("partitioned_replicas", {}).get("by_parts", {})
                part_text = ", ".join(f"{k}: {v}" for k, v in
                                      sorted(parts.items(), key=lambda kv: int(kv[0])))
                contention = dl / alone if dl is not None and alone else None
                print(f"| {model} | {scaler} | {system} | {cs['count']} ({cs['completed']}) | "
                      f"{fmt(cs['total_s'])} | {fmt(dl)} | {fmt(contention, '.2f')}x | "
                      f"{fmt(s['autoscaler'].get('starts_per_scale_up'), '.2f')} | "
                      f"{chain_text if system == 'mc' else ''} | "
                      f"{part_text if system == 'mp' else ''} | "
                      f"{fmt(s['latency_s']['mean'], '.3f')} |")


if __name__ == "__main__":
    main()
