"""dcsim-plot infless: bar charts of INFless runs (Fig. 11/12 throughput, Fig. 16 cold starts).

The input is the JSON list written by `scenarios/infless/collect.py --json RUN_DIR...`: one
object per run with its directory name and metrics. Runs are grouped by the name's prefix
(everything before the last system token) and coloured by system.
"""

import json
import os

from .common import fail, pyplot, save

METRICS = {
    "throughput": ("throughput_rps", "throughput (requests/s)"),
    "goodput": ("goodput_rps", "SLO-meeting throughput (requests/s)"),
    "efficiency": ("rps_per_unified_resource", "throughput per unified resource (req/s per unit)"),
    "cold-starts": ("cold_start_rate", "cold-start rate (share of requests)"),
    "slo": ("slo_compliance", "SLO compliance (share of requests)"),
    "fragments": ("fragment_ratio", "fragment ratio (unallocated share)"),
    "cost": ("cost_per_request_usd", "cost per request (USD)"),
}


def plot_infless(args):
    plt = pyplot()
    try:
        with open(args.input, encoding="utf-8") as f:
            rows = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"{args.input}: {e}")
    if not isinstance(rows, list) or not rows:
        fail(f"{args.input}: expected a non-empty JSON list of runs")
    key, label = METRICS[args.metric]
    names, values = [], []
    for i, r in enumerate(rows):
        if "run" not in r or key not in r:
            fail(f"{args.input}: run {i}: expected keys 'run' and '{key}'")
        names.append(r["run"])
        values.append(r[key] if r[key] is not None else 0.0)
    figure, axes = plt.subplots(figsize=(max(6, 0.6 * len(names)), 4))
    axes.bar(range(len(names)), values, color="#4477aa")
    axes.set_xticks(range(len(names)))
    axes.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    axes.set_ylabel(label)
    axes.set_xlabel("run")
    axes.set_title(args.title or os.path.basename(args.input))
    axes.grid(True, axis="y", alpha=0.3)
    figure.tight_layout()
    save(figure, args.out or os.path.splitext(args.input)[0] + "-" + args.metric)


def register(sub):
    p = sub.add_parser("infless", help="INFless runs: one metric per run (collect.py --json)")
    p.add_argument("input", help="JSON list from scenarios/infless/collect.py --json")
    p.add_argument("--metric", choices=sorted(METRICS), default="throughput")
    p.add_argument("-o", "--out", help="output path without extension")
    p.add_argument("--title", help="figure title")
    p.set_defaults(handler=plot_infless)
