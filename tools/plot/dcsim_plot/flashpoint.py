"""Flashpoint reproduction (thesis §8): tables from run summaries and figures from run outputs.

  flashpoint-table RUNS_DIR        markdown tables: per run, Table 8.1, technique ratios
  flashpoint-cdf RUN_DIR...        CDFs of end-to-end latency and cold-start wait per run
  flashpoint-replicas RUN_DIR      replicas reserved (live) and deployed (ready) over time
"""

import glob
import json
import os

from . import common

SYSTEMS = ["bl", "mp", "mc", "lc", "lc-mc", "lc-mc-mp", "atoll", "gpu-faas"]
MODELS = ["codebert", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
AUTOSCALERS = ["tsk", "atl", "owk", "sm"]


def load_summaries(runs_dir):
    """{run name: summary} of every RUNS_DIR/*/summary.json."""
    out = {}
    for path in sorted(glob.glob(os.path.join(runs_dir, "*", "summary.json"))):
        try:
            with open(path) as f:
                out[os.path.basename(os.path.dirname(path))] = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            common.fail(f"{path}: cannot read the summary: {e}")
    return out


def metrics(summary):
    """Mean / p99 latency (s), mean cold start (s), cold starts, replicas per second."""
    lat = summary["latency_s"]
    cold = summary["cold_starts"]
    return {
        "mean": lat["mean"], "p99": lat["p99"], "cold": cold["total_s"], "cold_n": cold["count"],
        "replicas": summary["instance_seconds"] / summary["duration_s"],
        "left": summary["requests_in_system_at_end"],
        "arrived": summary.get("requests_arrived"),
    }


def diverged(m, max_backlog):
    """A run that ended with more than max_backlog of its arrivals still in the system: its
    latency statistics cover only the requests that completed, so they flatter it."""
    if max_backlog is None or not m["arrived"]:
        return False
    return m["left"] > max_backlog * m["arrived"]


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def run_key(name):
    """'twitter-t5-3b-atl-lc-mc' -> (trace, model, autoscaler, system)."""
    trace, rest = name.split("-", 1)
    for m in MODELS:
        if rest.startswith(m + "-"):
            tail = rest[len(m) + 1:]
            a, system = tail.split("-", 1)
            return trace, m, a, system
    return None


def reductions(pairs):
    """Table cells for (reference, technique) metric pairs: mean ratios reference/technique of
    the mean cold start and mean latency, the pair count, and the mean reductions (%) of the
    cold start, mean and p99 latency; None without any latency pair."""
    c, e, pc, pe, pp = [], [], [], [], []
    for ref, x in pairs:
        if ref["cold"] and x["cold"]:
            c.append(ref["cold"] / x["cold"])
            pc.append(1 - x["cold"] / ref["cold"])
        if ref["mean"] and x["mean"]:
            e.append(ref["mean"] / x["mean"])
            pe.append(1 - x["mean"] / ref["mean"])
            pp.append(1 - x["p99"] / ref["p99"])
    if not e:
        return None
    mean = lambda v: sum(v) / len(v) if v else None
    return [fmt(mean(c)), fmt(mean(e)), str(len(e)), fmt(100 * mean(pc) if pc else None),
            fmt(100 * mean(pe)), fmt(100 * mean(pp))]


def table(args):
    runs = {}
    for name, s in load_summaries(args.runs).items():
        k = run_key(name)
        if k:
            runs[k] = metrics(s)
    bad = lambda *ms: any(diverged(m, args.max_backlog) for m in ms)
    print("| trace | model | autoscaler | system | mean e2e (s) | p99 e2e (s) | mean cold start (s) "
          "| cold starts | replicas/s | queued at end |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(runs, key=lambda k: (k[0], MODELS.index(k[1]), AUTOSCALERS.index(k[2]),
                                         SYSTEMS.index(k[3]) if k[3] in SYSTEMS else 99)):
        m = runs[k]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {fmt(m['mean'], 3)} | {fmt(m['p99'], 3)} | "
              f"{fmt(m['cold'])} | {m['cold_n']} | {fmt(m['replicas'])} | {m['left']} |")
    # Table 8.1: improvement of Flashpoint (lc-mc-mp) over GPU-enabled FaaS and the Baseline,
    # from the ratio of mean latencies, averaged over the autoscalers run (thesis's method).
    print("\nTable 8.1 (dcsim): improvement of lc-mc-mp in mean end-to-end latency, "
          "mean over the autoscalers run")
    print("| model | vs GPU-FaaS Azure | vs GPU-FaaS Twitter | vs Baseline Azure | "
          "vs Baseline Twitter | autoscalers |")
    print("|---|---|---|---|---|---|")
    for m in MODELS:
        cells = []
        used = set()
        for ref in ("gpu-faas", "bl"):
            for trace in ("azure", "twitter"):
                ratios = []
                for a in AUTOSCALERS:
                    fp = runs.get((trace, m, a, "lc-mc-mp"))
                    other = runs.get((trace, m, a, ref))
                    if fp and other and fp["mean"] and other["mean"] and not bad(fp, other):
                        ratios.append(fp["mean"] / other["mean"])
                        used.add(a)
                cells.append(f"{100 * (1 - sum(ratios) / len(ratios)):.2f}%" if ratios else "-")
        print(f"| {m} | " + " | ".join(cells) + f" | {','.join(sorted(used)) or '-'} |")
    # Per-technique reductions against the Baseline (ratios BL / technique, mean over the
    # model x autoscaler pairs run), then the combined techniques of §8.4.2 against GPU-enabled
    # FaaS and against LC alone.
    comparisons = (("bl", "Baseline", ("mp", "mc", "lc", "lc-mc", "lc-mc-mp", "atoll", "gpu-faas")),
                   ("gpu-faas", "GPU-enabled FaaS", ("lc-mc-mp",)),
                   ("lc", "LC", ("lc-mc", "lc-mc-mp")))
    for ref, ref_name, techniques in comparisons:
        for trace in ("twitter", "azure"):
            print(f"\nReduction vs {ref_name} ({trace}): mean of {ref}/technique over model x "
                  "autoscaler")
            print("| technique | cold start (x) | mean e2e (x) | pairs | cold-start reduction (%) "
                  "| mean e2e reduction (%) | p99 reduction (%) |")
            print("|---|---|---|---|---|---|---|")
            for t in techniques:
                pairs = [(runs.get((trace, m, a, ref)), runs.get((trace, m, a, t)))
                         for m in MODELS for a in AUTOSCALERS]
                row = reductions([(r, x) for r, x in pairs if r and x and not bad(r, x)])
                if row:
                    print(f"| {t} | " + " | ".join(row) + " |")
    if args.max_backlog is not None:
        left_out = sorted("-".join(k) for k, m in runs.items() if diverged(m, args.max_backlog))
        print(f"\nLeft out of the aggregates (backlog above {100 * args.max_backlog:g}% of "
              f"arrivals at the end): {', '.join(left_out) or 'none'}")


def read_requests(run_dir):
    """Latency and cold-start wait (s) of every request of a run (requests.h5 or .csv)."""
    h5 = os.path.join(run_dir, "requests.h5")
    if os.path.exists(h5):
        import h5py

        with h5py.File(h5, "r") as f:
            r = f["requests"]
            arrival = r["arrival_ns"][:]
            return (r["finish_ns"][:] - arrival) * 1e-9, r["cold_start_wait_ns"][:] * 1e-9
    csv = os.path.join(run_dir, "requests.csv")
    if os.path.exists(csv):
        cols = common.read_columns(csv, ["arrival_ns", "finish_ns", "cold_start_wait_ns"])
        lat = [(f - a) * 1e-9 for a, f in zip(cols["arrival_ns"], cols["finish_ns"])]
        return lat, [c * 1e-9 for c in cols["cold_start_wait_ns"]]
    common.fail(f"{run_dir}: no requests.h5 or requests.csv")


def cdf(args):
    import numpy as np

    plt = common.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for run in args.runs:
        lat, cold = read_requests(run)
        label = os.path.basename(os.path.normpath(run))
        for ax, values in zip(axes, (lat, cold)):
            v = np.sort(np.asarray(values))
            if len(v):
                ax.plot(np.maximum(v, 1e-3), np.arange(1, len(v) + 1) / len(v), label=label)
    for ax, what in zip(axes, ("end-to-end latency (s)", "cold-start wait of requests (s)")):
        ax.set_xscale("log")
        ax.set_xlabel(what)
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    common.save(fig, args.output)


def replicas(args):
    plt = common.pyplot()
    path = os.path.join(args.run, "timeseries.csv")
    cols = common.read_columns(path, ["time_s", "instances_cold_starting", "instances_idle",
                                      "instances_busy", "queue_length"])
    t, label = common.time_axis(cols["time_s"])
    deployed = [i + b for i, b in zip(cols["instances_idle"], cols["instances_busy"])]
    reserved = [c + d for c, d in zip(cols["instances_cold_starting"], deployed)]
    fig, ax = plt.subplots(figsize=(9, 4))
    if "instances_desired" in cols:  # runs written before the column existed have none
        ax.plot(t, cols["instances_desired"], linestyle="--", label="desired (autoscaler)")
    ax.plot(t, reserved, label="reserved (cold-starting + ready)")
    ax.plot(t, deployed, label="deployed (ready)")
    ax.set_xlabel(label)
    ax.set_ylabel("replicas")
    ax2 = ax.twinx()
    ax2.plot(t, cols["queue_length"], color="grey", alpha=0.4, label="queue length")
    ax2.set_ylabel("queued requests")
    ax.legend(loc="upper left")
    common.save(fig, args.output or os.path.join(args.run, "replicas"))


def partitions(args):
    """Fig. 8.10: partitioned replicas by their number of parts, one group of bars per run
    (summary.json's partitioned_replicas.by_parts)."""
    plt = common.pyplot()
    histograms = []
    for run in args.runs:
        path = os.path.join(run, "summary.json")
        try:
            with open(path) as f:
                summary = json.load(f)
        except OSError as e:
            common.fail(f"{path}: cannot read: {e.strerror}")
        except json.JSONDecodeError as e:
            common.fail(f"{path}: line {e.lineno}: expected JSON: {e.msg}")
        by_parts = (summary.get("partitioned_replicas") or {}).get("by_parts") or {}
        try:
            histograms.append({int(k): int(v) for k, v in by_parts.items()})
        except (TypeError, ValueError):
            common.fail(f"{path}: partitioned_replicas.by_parts: expected counts by part number, "
                        f"found {by_parts!r}")
    parts = sorted({p for h in histograms for p in h})
    if not parts:
        common.fail("no run started a partitioned replica (no partitioned_replicas in summary.json)")
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(args.runs)
    for i, (run, h) in enumerate(zip(args.runs, histograms)):
        xs = [p + (i - (len(args.runs) - 1) / 2) * width for p in parts]
        ax.bar(xs, [h.get(p, 0) for p in parts], width=width,
               label=os.path.basename(os.path.normpath(run)))
    ax.set_xticks(parts)
    ax.set_xlabel("parts per partitioned replica")
    ax.set_ylabel("partitioned replicas started (count)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    common.save(fig, args.output)


def register(sub):
    p = sub.add_parser("flashpoint-table", help="Flashpoint tables from a directory of runs")
    p.add_argument("runs", help="directory holding one run directory per scenario")
    p.add_argument("--max-backlog", type=float, default=None, metavar="FRACTION",
                   help="leave out of the aggregates every pair with a run that ended with more "
                        "than FRACTION of its arrivals still queued or running (its latency "
                        "covers only completed requests)")
    p.set_defaults(handler=table)
    p = sub.add_parser("flashpoint-cdf", help="CDFs of latency and cold-start wait per run")
    p.add_argument("runs", nargs="+", help="run directories")
    p.add_argument("-o", "--output", required=True, help="output path without extension")
    p.set_defaults(handler=cdf)
    p = sub.add_parser("flashpoint-partitions",
                       help="partitioned replicas by number of parts (Fig. 8.10)")
    p.add_argument("runs", nargs="+", help="run directories (summary.json)")
    p.add_argument("-o", "--output", required=True, help="output path without extension")
    p.set_defaults(handler=partitions)
    p = sub.add_parser("flashpoint-replicas", help="replicas reserved / deployed over time")
    p.add_argument("run", help="run directory (timeseries.csv)")
    p.add_argument("-o", "--output", help="output path without extension")
    p.set_defaults(handler=replicas)
