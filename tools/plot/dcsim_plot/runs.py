"""dcsim-plot run and compare: every figure of one run directory, or a comparison of several.

    dcsim-plot run RUN_DIR [-o OUT_DIR]
        timeseries, latency CDF per class and per function, mean latency breakdown per class
        (queue / batching / cold start / execution), plus every figure a policy family's module
        offers for that run (a module's figures_for_run(run_dir, out_dir) hook).
    dcsim-plot compare RUN_DIR RUN_DIR ... [--labels A,B,...] -o OUT
        OUT-latency-cdf: the latency CDFs of all runs on one axis; OUT-metrics: headline summary
        metrics side by side (P50/P99 latency, SLO compliance, cold starts, cost).
"""

import importlib
import json
import os
import pkgutil

from .common import fail, pyplot, read_columns, save

CLASS_NAMES = {0: "strict", 1: "best_effort"}


def read_summary(run_dir):
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}: line {e.lineno}: expected JSON: {e.msg}")


def read_requests(run_dir):
    """Per-request columns of a run as numpy arrays: latency_s, class_name, function_name and
    the *_ns columns, from requests.h5 (h5py) or requests.csv; None when the run kept none."""
    import numpy as np

    h5 = os.path.join(run_dir, "requests.h5")
    csv_path = os.path.join(run_dir, "requests.csv")
    if os.path.exists(h5):
        import h5py

        try:
            with h5py.File(h5, "r") as f:
                if "requests" not in f:
                    fail(f"{h5}: no /requests group; not a dcsim requests file")
                data = {name: f["requests"][name][()] for name in f["requests"]}
                functions = [n.decode() if isinstance(n, bytes) else n
                             for n in f["names/functions"][()]]
        except OSError as e:
            fail(f"{h5}: cannot read: {e}")
        for column in ("arrival_ns", "finish_ns", "class", "function", "outcome"):
            if column not in data:
                fail(f"{h5}: missing dataset /requests/{column}")
        data["latency_s"] = (data["finish_ns"] - data["arrival_ns"]) / 1e9
        data["class_name"] = np.array([CLASS_NAMES.get(int(c), "?") for c in data["class"]])
        data["function_name"] = np.array([functions[int(i)] for i in data["function"]])
        data["dropped"] = data["outcome"] == 2
        return data
    if os.path.exists(csv_path):
        import csv

        columns = {}
        with open(csv_path, newline="") as f:
            reader = csv.DictReader(f)
            for required in ("latency_s", "class", "function", "outcome"):
                if required not in (reader.fieldnames or []):
                    fail(f"{csv_path}: line 1: missing column {required}")
            rows = list(reader)
        for line_number, row in enumerate(rows, start=2):
            try:
                float(row["latency_s"])
            except ValueError:
                fail(f"{csv_path}: line {line_number}: column latency_s: expected a number, "
                     f"found {row['latency_s']!r}")
        columns["latency_s"] = np.array([float(r["latency_s"]) for r in rows])
        columns["class_name"] = np.array([r["class"] for r in rows])
        columns["function_name"] = np.array([r["function"] for r in rows])
        columns["dropped"] = np.array([r["outcome"] == "dropped" for r in rows])
        return columns
    return None


def plot_cdf(axes, values, label):
    import numpy as np

    if len(values) == 0:
        return
    x = np.sort(values)
    y = np.arange(1, len(x) + 1) / len(x)
    axes.plot(x, y, label=f"{label} (n={len(x)})", linewidth=1.0)


def latency_cdf_figure(requests, group_column, title):
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(7, 4))
    served = ~requests["dropped"]
    for group in sorted(set(requests[group_column][served].tolist())):
        mask = served & (requests[group_column] == group)
        plot_cdf(axes, requests["latency_s"][mask], group)
    axes.set_xscale("log")
    axes.set_xlabel("end-to-end latency (s, log scale)")
    axes.set_ylabel("fraction of requests")
    axes.set_ylim(0, 1.0)
    axes.grid(True, alpha=0.3, which="both")
    axes.legend(fontsize=8)
    axes.set_title(title)
    return figure


def breakdown_figure(summary, title):
    """Mean latency per class split into queue, batching, cold-start and execution waits."""
    plt = pyplot()
    parts = [("queue_mean", "queue"), ("batching_mean", "batching"),
             ("cold_start_mean", "cold start"), ("execution_mean", "execution")]
    classes = [c for c, v in sorted(summary.get("per_class", {}).items())
               if isinstance(v, dict) and "waits_s" in v]
    if not classes:
        return None
    figure, axes = plt.subplots(figsize=(6, 3.5))
    bottoms = [0.0] * len(classes)
    for key, label in parts:
        values = [float(summary["per_class"][c]["waits_s"].get(key) or 0.0) * 1e3
                  for c in classes]
        axes.bar(classes, values, bottom=bottoms, label=label)
        bottoms = [b + v for b, v in zip(bottoms, values)]
    axes.set_ylabel("mean latency (ms)")
    axes.set_xlabel("request class")
    axes.legend(fontsize=8)
    axes.set_title(title)
    axes.grid(True, axis="y", alpha=0.3)
    return figure


def family_hooks():
    """figures_for_run hooks of the other modules of this package."""
    package = importlib.import_module(__package__)
    hooks = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name in ("common", "runs"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        if hasattr(module, "figures_for_run"):
            hooks.append(module.figures_for_run)
    return hooks


def plot_run(args):
    run_dir = args.input
    summary = read_summary(run_dir)
    out_dir = args.out or os.path.join(run_dir, "figures")
    name = os.path.basename(os.path.normpath(run_dir))
    if os.path.exists(os.path.join(run_dir, "timeseries.csv")):
        from .basic import plot_timeseries

        class TimeseriesArgs:
            input = run_dir
            out = os.path.join(out_dir, "timeseries")
            title = f"{name}: time series"

        plot_timeseries(TimeseriesArgs)
    requests = read_requests(run_dir)
    if requests is not None and len(requests["latency_s"]) > 0:
        save(latency_cdf_figure(requests, "class_name", f"{name}: latency by class"),
             os.path.join(out_dir, "latency-cdf-class"))
        save(latency_cdf_figure(requests, "function_name", f"{name}: latency by function"),
             os.path.join(out_dir, "latency-cdf-function"))
    breakdown = breakdown_figure(summary, f"{name}: where the time goes")
    if breakdown is not None:
        save(breakdown, os.path.join(out_dir, "latency-breakdown"))
    for hook in family_hooks():
        hook(run_dir, out_dir)


def metric(summary, dotted):
    node = summary
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node if isinstance(node, (int, float)) and not isinstance(node, bool) else None


COMPARED = [("latency_s.p50", "P50 latency (s)"), ("latency_s.p99", "P99 latency (s)"),
            ("slo.compliance", "SLO compliance (fraction)"),
            ("cold_starts.count", "cold starts (count)"), ("cost_usd.total", "cost (USD)"),
            ("throughput_rps", "throughput (requests/s)")]


def plot_compare(args):
    if len(args.inputs) < 2:
        fail("compare: give at least two run directories")
    labels = args.labels.split(",") if args.labels else [
        os.path.basename(os.path.normpath(d)) for d in args.inputs]
    if len(labels) != len(args.inputs):
        fail(f"--labels: expected {len(args.inputs)} labels, found {len(labels)}")
    summaries = [read_summary(d) for d in args.inputs]
    plt = pyplot()

    figure, axes = plt.subplots(figsize=(7, 4))
    plotted = 0
    for run_dir, label in zip(args.inputs, labels):
        requests = read_requests(run_dir)
        if requests is None:
            continue
        plot_cdf(axes, requests["latency_s"][~requests["dropped"]], label)
        plotted += 1
    if plotted:
        axes.set_xscale("log")
        axes.set_xlabel("end-to-end latency (s, log scale)")
        axes.set_ylabel("fraction of requests")
        axes.grid(True, alpha=0.3, which="both")
        axes.legend(fontsize=8)
        axes.set_title(args.title or "latency CDF")
        save(figure, f"{args.out}-latency-cdf")

    shown = [(k, label) for k, label in COMPARED
             if any(metric(s, k) is not None for s in summaries)]
    if not shown:
        fail("compare: none of the compared metrics is in the summaries")
    figure, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown), 3.6), squeeze=False)
    for column, (key, label) in enumerate(shown):
        ax = axes[0][column]
        values = [metric(s, key) or 0.0 for s in summaries]
        ax.bar(range(len(values)), values)
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.grid(True, axis="y", alpha=0.3)
    figure.suptitle(args.title or "summary metrics")
    figure.tight_layout(rect=(0, 0, 1, 0.93))
    save(figure, f"{args.out}-metrics")


def register(sub):
    run = sub.add_parser("run", help="every figure of one run directory")
    run.add_argument("input", help="run directory (summary.json, timeseries.csv, requests.*)")
    run.add_argument("-o", "--out", help="output directory (default RUN_DIR/figures)")
    run.set_defaults(handler=plot_run)
    compare = sub.add_parser("compare", help="latency CDFs and summary metrics of several runs")
    compare.add_argument("inputs", nargs="+", help="run directories")
    compare.add_argument("--labels", help="comma-separated labels, one per run")
    compare.add_argument("-o", "--out", required=True, help="output path prefix")
    compare.add_argument("--title", help="figure title")
    compare.set_defaults(handler=plot_compare)
