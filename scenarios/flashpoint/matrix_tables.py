#!/usr/bin/env python3
"""The evaluation-matrix tables of docs/reproduction/flashpoint.md, from run directories.

    build/ci/src/cli/dcsim reproduce flashpoint --size full -j 2 --out REPRO
    python3 scenarios/flashpoint/matrix_tables.py REPRO/runs/flashpoint [EXTRA_RUNS...]

Each RUNS directory holds one directory per run with its summary.json, named as `dcsim
reproduce` names them (`t5-3b-atl-lc` for Twitter, `azure-t5-3b-atl-lc`) or as
scenarios/flashpoint/run.sh does (`twitter-t5-3b-atl-lc`); a run found twice is taken from the
later directory. `dcsim reproduce` runs the systems its claims use; the others (`lc-mc`,
`atoll`, and the TSK runs left out of the claims) come from run.sh into EXTRA_RUNS.

Aggregates follow the page's method: the mean over the (model, autoscaler) pairs of the ratio
BL / technique (or of the reduction 1 - technique / reference), leaving out every pair with a run
that ends with more than 10% of its arrivals still in the system (`--max-backlog`), and for a
cold-start metric the pairs where either run has no value.
"""
import argparse
import glob
import json
import os
import statistics

MODELS = ["codebert", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
NAMES = {"codebert": "CodeBERT", "albert-xxlarge-v2": "ALBERT", "bart-large": "BART",
         "dialogpt-large": "DialoGPT", "gpt2-xl": "GPT-2", "t5-3b": "T5"}
SCALERS = ["atl", "sm", "owk", "tsk"]
SCALER_NAMES = {"atl": "ATL (1 s)", "sm": "SM* (60 s)", "owk": "OWK (HPA)", "tsk": "TSK (HPA)"}
SYSTEMS = ["bl", "mp", "mc", "lc", "lc-mc", "lc-mc-mp", "atoll", "gpu-faas"]
TECH = [("mp", "MP"), ("mc", "MC"), ("lc", "LC"), ("lc-mc-mp", "LC+MC+MP")]
# Cold-start definitions (docs/policy-authors.md "Cold-start metrics").
DEFS = [("cold_starts.total_s", "per instance `cold_starts.total_s`"),
        ("cold_starts.per_replica.mean_s", "per replica `per_replica.mean_s`"),
        ("waits_s.cold_start_mean", "per request, zeros included `waits_s.cold_start_mean`"),
        ("waits_s.cold_start_mean_waiting", "per request that waited `cold_start_mean_waiting`")]
# The thesis's values (§8.4.1, Fig. 8.9; §8.4.2; Table 8.1).
THESIS_TECH = {"twitter": {"mp": (2.12, 1.23), "mc": (3.09, 2.17), "lc": (15.41, 4.07)},
               "azure": {"mp": (1.95, 1.22), "mc": (1.73, 1.30), "lc": (7.93, 2.28)}}
THESIS_COMBINED = {"twitter": [93.51, 75.42, 66.90, 78.46, 20.63, 19.69, 75.21, 75.21],
                   "azure": [87.39, 56.23, 56.67, 68.50, 14.54, 11.20, None, None]}
THESIS_T81 = {"codebert": (4.44, 7.24, 17.25, 16.52), "albert-xxlarge-v2": (6.33, 8.17, 20.79, 27.02),
              "bart-large": (14.52, 18.59, 37.44, 37.66),
              "dialogpt-large": (23.72, 26.18, 49.11, 60.05),
              "gpt2-xl": (15.99, 19.44, 66.57, 74.12), "t5-3b": (19.08, 36.23, 78.64, 92.79)}


def key(name):
    """Run directory name -> (trace, model, autoscaler, system), or None."""
    trace = "twitter"
    for t in ("twitter-", "azure-"):
        if name.startswith(t):
            trace, name = t[:-1], name[len(t):]
    for m in MODELS:
        if name.startswith(m + "-"):
            a, _, system = name[len(m) + 1:].partition("-")
            if a in SCALERS and system in SYSTEMS:
                return trace, m, a, system
    return None


def load(dirs):
    runs = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*", "summary.json"))):
            k = key(os.path.basename(os.path.dirname(path)))
            if k:
                with open(path) as f:
                    runs[k] = json.load(f)
    return runs


def get(s, dotted):
    for part in dotted.split("."):
        if not isinstance(s, dict) or part not in s:
            return None
        s = s[part]
    return s


def backlogged(s, limit):
    return s["requests_in_system_at_end"] > limit * s["requests_arrived"]


def mean(v):
    return statistics.mean(v) if v else None


def x(v, n=None):
    if v is None:
        return "-"
    s = f"{v:,.0f}x" if v >= 1000 else f"{v:.2f}x"
    return s if n is None else f"{s} (n={n})"


def pc(v):
    return "-" if v is None else f"{v:.2f}%"


class Matrix:
    def __init__(self, runs, limit):
        self.runs, self.limit = runs, limit

    def pairs(self, trace, ref, tech, models=MODELS, scalers=SCALERS):
        """(reference, technique) summaries of the pairs kept by the backlog rule."""
        out = []
        for m in models:
            for a in scalers:
                r, t = self.runs.get((trace, m, a, ref)), self.runs.get((trace, m, a, tech))
                if r and t and not backlogged(r, self.limit) and not backlogged(t, self.limit):
                    out.append((r, t))
        return out

    def ratio(self, trace, tech, metric, ref="bl", **kw):
        """Mean of ref / tech over the pairs where both have a positive value, and their count."""
        v = [get(r, metric) / get(t, metric) for r, t in self.pairs(trace, ref, tech, **kw)
             if get(r, metric) and get(t, metric)]
        return mean(v), len(v)

    def reduction(self, trace, tech, metric, ref, **kw):
        v = [100 * (1 - get(t, metric) / get(r, metric))
             for r, t in self.pairs(trace, ref, tech, **kw)
             if get(r, metric) and get(t, metric) is not None]
        return mean(v), len(v)

    def left_out(self):
        return sorted("-".join(k) for k, s in self.runs.items() if backlogged(s, self.limit))


def techniques(mx):
    print("| technique | thesis cold start (Twitter) | dcsim Twitter | thesis (Azure) | dcsim Azure "
          "| thesis mean e2e (Twitter) | dcsim Twitter | thesis (Azure) | dcsim Azure |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t, label in TECH:
        tw, az = THESIS_TECH["twitter"].get(t), THESIS_TECH["azure"].get(t)
        cells = [label, x(tw and tw[0]), x(*mx.ratio("twitter", t, "cold_starts.total_s")),
                 x(az and az[0]), x(*mx.ratio("azure", t, "cold_starts.total_s")),
                 x(tw and tw[1]), x(*mx.ratio("twitter", t, "latency_s.mean")),
                 x(az and az[1]), x(*mx.ratio("azure", t, "latency_s.mean"))]
        print("| " + " | ".join(cells) + " |")


def per_autoscaler(mx):
    print("| autoscaler | Twitter MP | MC | LC | starts per scale-up | new / running > 1 "
          "| Azure MP | MC | LC | starts per scale-up | new / running > 1 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for a in SCALERS:
        cells = [SCALER_NAMES[a]]
        for trace in ("twitter", "azure"):
            for t in ("mp", "mc", "lc"):
                v, n = mx.ratio(trace, t, "cold_starts.total_s", scalers=[a])
                cells.append(x(v, n) if t == "mp" else x(v))
            blocks = [s["autoscaler"] for (tr, m, sa, sy), s in mx.runs.items()
                      if (tr, sa, sy) == (trace, a, "bl") and s["autoscaler"]["scale_ups"] > 0]
            starts = mean([b["starts_per_scale_up"] for b in blocks])
            above = mean([b["new_per_running"]["fraction_above_1"] for b in blocks])
            cells += ["-" if starts is None else f"{starts:.2f}",
                      "-" if above is None else f"{100 * above:.0f}% ({len(blocks)})"]
        print("| " + " | ".join(cells) + " |")


def definitions(mx):
    print("| BL / technique | " + " | ".join(d for _, d in DEFS) + " |")
    print("|---" * (len(DEFS) + 1) + "|")
    for trace in ("twitter", "azure"):
        for t, label in TECH:
            cells = [x(*mx.ratio(trace, t, metric)) for metric, _ in DEFS]
            print(f"| {trace.capitalize()} {label} | " + " | ".join(cells) + " |")


def combined(mx):
    rows = [("Flashpoint vs BL, mean cold start", "lc-mc-mp", "bl", "cold_starts.total_s"),
            ("Flashpoint vs BL, mean e2e", "lc-mc-mp", "bl", "latency_s.mean"),
            ("Flashpoint vs BL, p99 e2e", "lc-mc-mp", "bl", "latency_s.p99"),
            ("Flashpoint vs GPU-FaaS, mean cold start", "lc-mc-mp", "gpu-faas", "cold_starts.total_s"),
            ("Flashpoint vs GPU-FaaS, mean e2e", "lc-mc-mp", "gpu-faas", "latency_s.mean"),
            ("Flashpoint vs GPU-FaaS, p99 e2e", "lc-mc-mp", "gpu-faas", "latency_s.p99"),
            ("LC+MC vs LC, mean cold start", "lc-mc", "lc", "cold_starts.total_s"),
            ("LC+MC+MP vs LC, mean cold start", "lc-mc-mp", "lc", "cold_starts.total_s")]
    print("| | thesis (Twitter) | dcsim (Twitter) | thesis (Azure) | dcsim (Azure) |")
    print("|---|---|---|---|---|")
    for i, (label, t, ref, metric) in enumerate(rows):
        cells = [label]
        for trace in ("twitter", "azure"):
            th = THESIS_COMBINED[trace][i]
            v, n = mx.reduction(trace, t, metric, ref)
            cells += ["" if th is None else f"-{th:.2f}%",
                      "-" if v is None else f"{-v:.2f}% (n={n})"]
        print("| " + " | ".join(cells) + " |")


def table81(mx):
    print("| model | thesis vs GPU-FaaS Azure / Twitter | dcsim | thesis vs BL Azure / Twitter "
          "| dcsim |")
    print("|---|---|---|---|---|")
    for m in MODELS:
        th = THESIS_T81[m]
        cells = [NAMES[m]]
        for ref, (ta, tt) in (("gpu-faas", th[:2]), ("bl", th[2:])):
            vals = [mx.reduction(tr, "lc-mc-mp", "latency_s.mean", ref, models=[m])
                    for tr in ("azure", "twitter")]
            ns = [n for _, n in vals]
            cells += [f"{ta:.2f}% / {tt:.2f}%", " / ".join(pc(v) for v, _ in vals)
                      + ("" if ns == [4, 4] else f" (n={ns[0]} / {ns[1]})")]
        print("| " + " | ".join(cells) + " |")


def resources(mx, model="t5-3b"):
    print("| autoscaler | " + " | ".join(SYSTEMS) + " |")
    print("|---" * (len(SYSTEMS) + 1) + "|")
    for a in SCALERS:
        cells = [SCALER_NAMES[a]]
        for sy in SYSTEMS:
            s = mx.runs.get(("twitter", model, a, sy))
            cells.append("-" if not s else f"{s['instance_seconds'] / s['duration_s']:.2f}")
        print("| " + " | ".join(cells) + " |")


def parts(d):
    return ", ".join(f"{k}: {v}" for k, v in sorted((d or {}).items(), key=lambda kv: int(kv[0])))


def fig810(mx, model="t5-3b"):
    print("| autoscaler | cold starts | scale-ups (by parts) | partitioned replicas by parts "
          "| mean e2e (s) |")
    print("|---|---|---|---|---|")
    for a in SCALERS:
        s = mx.runs.get(("twitter", model, a, "lc-mc-mp"))
        if s:
            au = s["autoscaler"]
            print(f"| {SCALER_NAMES[a]} | {s['cold_starts']['count']} | {au['scale_ups']} "
                  f"({parts(au['scale_ups_by_parts'])}) | "
                  f"{parts((s.get('partitioned_replicas') or {}).get('by_parts')) or '-'} | "
                  f"{s['latency_s']['mean']:.3f} |")


def fig62(mx, models=("t5-3b", "gpt2-xl", "dialogpt-large")):
    print("| autoscaler | " + " | ".join(NAMES[m] for m in models)
          + " | share of scale-ups above 1, per model with a scale-up |")
    print("|---" * (len(models) + 2) + "|")
    for a in SCALERS:
        cells, shares = [SCALER_NAMES[a]], []
        for m in models:
            s = mx.runs.get(("twitter", m, a, "bl"))
            au = s and s["autoscaler"]
            if not au or not au["scale_ups"]:
                cells.append("-")
                continue
            d = au["new_per_running"]["deciles"]
            cells.append(" / ".join(f"{d[i]:.2f}" for i in (1, 5, 9, 10)) + f" ({au['scale_ups']})")
        for m in MODELS:
            s = mx.runs.get(("twitter", m, a, "bl"))
            if s and s["autoscaler"]["scale_ups"]:
                shares.append(f"{NAMES[m]} {100 * s['autoscaler']['new_per_running']['fraction_above_1']:.0f}%")
        cells.append(", ".join(shares) or "-")
        print("| " + " | ".join(cells) + " |")


def t5_atl(mx):
    print("| system | per instance (s) | per replica (s) | per request, zeros (s) "
          "| per waiting request (s) (requests) | mean e2e (s) | p99 e2e (s) | replicas/s |")
    print("|---|---|---|---|---|---|---|---|")
    for sy in SYSTEMS:
        s = mx.runs.get(("twitter", "t5-3b", "atl", sy))
        if not s:
            continue
        w = s["waits_s"]
        print(f"| {sy} | {s['cold_starts']['total_s']:.2f} | "
              f"{s['cold_starts']['per_replica']['mean_s']:.2f} | {w['cold_start_mean']:.3f} | "
              f"{w['cold_start_mean_waiting']:.2f} ({w['cold_start_affected']:,}) | "
              f"{s['latency_s']['mean']:.3f} | {s['latency_s']['p99']:.1f} | "
              f"{s['instance_seconds'] / s['duration_s']:.2f} |")


SECTIONS = {"techniques": techniques, "per-autoscaler": per_autoscaler,
            "definitions": definitions, "combined": combined, "table8.1": table81,
            "resources": resources, "fig8.10": fig810, "fig6.2": fig62, "t5-atl": t5_atl}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="directories of run directories")
    ap.add_argument("--max-backlog", type=float, default=0.1)
    ap.add_argument("--section", choices=sorted(SECTIONS), action="append")
    args = ap.parse_args()
    mx = Matrix(load(args.runs), args.max_backlog)
    for name in args.section or SECTIONS:
        print(f"\n### {name}\n")
        SECTIONS[name](mx)
    print(f"\nLeft out (more than {100 * args.max_backlog:g}% of the arrivals in the system at "
          f"the end): {', '.join(mx.left_out()) or 'none'}")


if __name__ == "__main__":
    main()
