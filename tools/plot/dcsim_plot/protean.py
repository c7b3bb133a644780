"""dcsim-plot protean-*: Protean's paper-style figures from dcsim run directories.

- protean-compliance: strict SLO compliance per experiment and scheme (Figs. 5, 12-15, Table 4);
- protean-p99: breakdown of the strict P99 latency into queueing, batching, cold start and
  execution (Figs. 2, 6, 11);
- protean-cdf: CDF of the strict end-to-end latency with the SLO (Fig. 8);
- protean-geometry: strict latency over time with the MIG slices in use per GPU and the
  best-effort model (Fig. 7).

A run directory is dcsim's output for one scenario (summary.json, requests.h5 or
requests.csv); its name is "<experiment>-<scheme>" as the scenarios under scenarios/protean/
name them.
"""

import json
import os

from .common import fail, pyplot, save

SCHEMES = ["molecule", "infless-llama", "naive-slicing", "mig-only", "gpulet", "smart-mps-mig",
           "mps-only", "no-mps-or-mig", "mps-mig", "spot-only", "spot", "protean"]


def split_name(run_dir):
    name = os.path.basename(os.path.normpath(run_dir))
    for scheme in sorted(SCHEMES, key=len, reverse=True):
        if name.endswith("-" + scheme):
            return name[: -len(scheme) - 1], scheme
    return name, name


def read_summary(run_dir):
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def read_requests(run_dir):
    """Columns of the run's request records as numpy arrays (requests.h5, else requests.csv)."""
    import numpy as np

    h5 = os.path.join(run_dir, "requests.h5")
    if os.path.exists(h5):
        import h5py

        with h5py.File(h5, "r") as f:
            g = f["requests"]
            cols = {k: np.asarray(g[k]) for k in g.keys()}
            names = [n.decode() if isinstance(n, bytes) else str(n)
                     for n in np.asarray(f["names"]["functions"])]
        cols["function_names"] = names
        return cols
    csv = os.path.join(run_dir, "requests.csv")
    if not os.path.exists(csv):
        fail(f"{run_dir}: neither requests.h5 nor requests.csv")
    import csv as csvmod

    with open(csv) as f:
        rows = list(csvmod.DictReader(f))
    if not rows:
        fail(f"{csv}: no records")
    cols = {}
    for k in rows[0]:
        try:
            cols[k] = np.array([float(r[k]) for r in rows])
        except ValueError:
            cols[k] = np.array([r[k] for r in rows])
    return cols


def strict_mask(cols):
    import numpy as np

    cls = cols["class"]
    if cls.dtype.kind in "iu":
        return cls == 0
    return np.array([c == "strict" for c in cls])


def strict_compliance(summary):
    """Percentage of strict requests within their SLO."""
    strict = summary.get("per_class", {}).get("strict", {})
    slo = strict.get("slo", {})
    if "compliance" in slo:
        return 100.0 * slo["compliance"]
    fail("summary.json has no per_class.strict.slo.compliance")


def plot_compliance(args):
    plt = pyplot()
    data = {}
    for run in args.runs:
        exp, scheme = split_name(run)
        data.setdefault(exp, {})[scheme] = strict_compliance(read_summary(run))
    exps = sorted(data)
    schemes = [s for s in SCHEMES if any(s in data[e] for e in exps)]
    figure, axes = plt.subplots(figsize=(max(6, 1.6 * len(exps)), 3.8))
    width = 0.8 / max(1, len(schemes))
    for k, scheme in enumerate(schemes):
        xs = [i + (k - (len(schemes) - 1) / 2) * width for i in range(len(exps))]
        ys = [data[e].get(scheme, float("nan")) for e in exps]
        axes.bar(xs, ys, width, label=scheme)
    axes.set_xticks(range(len(exps)))
    axes.set_xticklabels(exps, rotation=20, ha="right")
    axes.set_ylabel("strict requests within SLO (%)")
    axes.set_ylim(0, 105)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=8, ncol=min(4, len(schemes)))
    axes.set_title(args.title or "SLO compliance of strict requests")
    figure.tight_layout()
    save(figure, args.out or "protean-compliance")


def p99_breakdown(cols):
    """Mean components (ms) of the strict requests at or above the strict P99 latency."""
    import numpy as np

    m = strict_mask(cols)
    lat = (cols["finish_ns"][m] - cols["arrival_ns"][m]) / 1e6
    if lat.size == 0:
        return None
    p99 = float(np.percentile(lat, 99))
    tail = lat >= p99
    parts = {}
    for key, label in [("queue_wait_ns", "queueing"), ("batching_wait_ns", "batching"),
                       ("cold_start_wait_ns", "cold start"), ("execution_ns", "execution")]:
        parts[label] = float(np.mean(cols[key][m][tail])) / 1e6
    scale = p99 / max(1e-9, sum(parts.values()))
    return p99, {k: v * scale for k, v in parts.items()}


def plot_p99(args):
    plt = pyplot()
    labels, stacks = [], []
    for run in args.runs:
        r = p99_breakdown(read_requests(run))
        if r is None:
            continue
        labels.append(os.path.basename(os.path.normpath(run)))
        stacks.append(r[1])
    if not stacks:
        fail("no strict requests in the given runs")
    figure, axes = plt.subplots(figsize=(max(6, 1.1 * len(labels)), 4))
    bottom = [0.0] * len(labels)
    for part in ["execution", "queueing", "batching", "cold start"]:
        ys = [s[part] for s in stacks]
        axes.bar(range(len(labels)), ys, 0.6, bottom=bottom, label=part)
        bottom = [b + y for b, y in zip(bottom, ys)]
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels(labels, rotation=25, ha="right", fontsize=8)
    axes.set_ylabel("strict P99 latency (ms)")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=8)
    axes.set_title(args.title or "Breakdown of the strict P99 latency")
    figure.tight_layout()
    save(figure, args.out or "protean-p99")


def plot_cdf(args):
    import numpy as np

    plt = pyplot()
    figure, axes = plt.subplots(figsize=(6, 4))
    slo_ms = None
    for run in args.runs:
        cols = read_requests(run)
        m = strict_mask(cols)
        lat = np.sort((cols["finish_ns"][m] - cols["arrival_ns"][m]) / 1e6)
        if lat.size == 0:
            continue
        if "slo_ns" in cols and slo_ms is None:
            slo_ms = float(np.max(cols["slo_ns"][m])) / 1e6
        axes.plot(lat, np.arange(1, lat.size + 1) / lat.size,
                  label=split_name(run)[1], linewidth=1.2)
    if slo_ms:
        axes.axvline(slo_ms, color="k", linestyle="--", linewidth=0.8, label="SLO")
    axes.set_xlabel("end-to-end latency of strict requests (ms)")
    axes.set_ylabel("CDF")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    axes.set_title(args.title or "Latency CDF")
    figure.tight_layout()
    save(figure, args.out or "protean-cdf")


def plot_geometry(args):
    import numpy as np

    plt = pyplot()
    cols = read_requests(args.run)
    arrival = cols["arrival_ns"] / 1e9
    finish_s = cols["finish_ns"] / 1e9
    m = strict_mask(cols)
    bins = np.arange(0, float(np.max(finish_s)) + args.bin, args.bin)
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    idx = np.digitize(arrival[m], bins)
    lat = (cols["finish_ns"][m] - cols["arrival_ns"][m]) / 1e6
    p99 = [float(np.percentile(lat[idx == i], 99)) if np.any(idx == i) else np.nan
           for i in range(1, len(bins))]
    top.plot(bins[:-1], p99, linewidth=1.0, label="strict P99 per bin")
    if "slo_ns" in cols:
        top.axhline(float(np.max(cols["slo_ns"][m])) / 1e6, color="k", linestyle="--",
                    linewidth=0.8, label="SLO")
    top.set_ylabel("latency (ms)")
    top.grid(True, alpha=0.3)
    top.legend(fontsize=8)
    # MIG slices in use per GPU: distinct slice indices that ran a batch in each bin (the
    # geometry's slice count once busy: 3 for (4g, 2g, 1g), 2 for (4g, 3g)).
    device, sl = cols["device"], cols["slice"]
    start = cols["start_ns"] / 1e9
    for d in sorted(set(int(x) for x in device if x >= 0))[: args.gpus]:
        dm = device == d
        counts = []
        for i in range(len(bins) - 1):
            w = dm & (start >= bins[i]) & (start < bins[i + 1])
            counts.append(len(set(int(x) for x in sl[w])) if np.any(w) else np.nan)
        bottom.step(bins[:-1], np.array(counts) + 0.04 * d, where="post", label=f"GPU {d}",
                    linewidth=0.9)
    # Best-effort model changes.
    names = cols.get("function_names")
    be = ~m
    if names is not None and np.any(be):
        fn = cols["function"][be]
        t = arrival[be]
        order = np.argsort(t)
        last = None
        for k in order[:: max(1, len(order) // 2000)]:
            if fn[k] != last:
                last = fn[k]
                bottom.axvline(t[k], color="grey", linewidth=0.5, alpha=0.5)
                label = names[int(fn[k])] if names else str(fn[k])
                bottom.text(t[k], 3.3, label, rotation=90, fontsize=6, va="bottom")
    bottom.set_ylabel("MIG slices in use")
    bottom.set_ylim(0, 4.5)
    bottom.set_xlabel("time (s)")
    bottom.grid(True, alpha=0.3)
    bottom.legend(fontsize=6, ncol=4, loc="lower right")
    figure.suptitle(args.title or os.path.basename(os.path.normpath(args.run)))
    figure.tight_layout()
    save(figure, args.out or os.path.join(args.run, "protean-geometry"))


def summary_row(run):
    d = read_summary(run)
    pc = d.get("per_class", {})
    st, be = pc.get("strict", {}), pc.get("best_effort", {})
    comp = st.get("slo", {}).get("compliance")

    def ms(c, q):
        v = c.get("latency_s", {}).get(q)
        return f"{1000 * v:.0f}" if isinstance(v, (int, float)) else "-"

    cost = d.get("cost_usd", {})
    total = cost.get("total") if isinstance(cost, dict) else cost
    rec = d.get("decisions", {}).get("applied", {}).get("reconfigure", 0)
    return [f"{100 * comp:.2f}" if isinstance(comp, (int, float)) else "-", ms(st, "p50"),
            ms(st, "p99"), ms(be, "p50"), ms(be, "p99"),
            f"{100 * d.get('gpu_utilisation', 0):.0f}",
            f"{total:.2f}" if isinstance(total, (int, float)) else "-", str(rec)]


def print_table(args):
    header = ["run", "strict SLO %", "strict P50 ms", "strict P99 ms", "BE P50 ms", "BE P99 ms",
              "GPU util %", "cost $", "reconfigs"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for run in args.runs:
        print("| " + " | ".join([os.path.basename(os.path.normpath(run))] + summary_row(run))
              + " |")


def register(sub):
    t = sub.add_parser("protean-table", help="a Markdown table of the runs' headline metrics")
    t.add_argument("runs", nargs="+", help="run directories")
    t.set_defaults(handler=print_table)
    c = sub.add_parser("protean-compliance", help="strict SLO compliance per experiment/scheme")
    c.add_argument("runs", nargs="+", help="run directories named <experiment>-<scheme>")
    c.set_defaults(handler=plot_compliance)
    p = sub.add_parser("protean-p99", help="breakdown of the strict P99 latency per run")
    p.add_argument("runs", nargs="+", help="run directories")
    p.set_defaults(handler=plot_p99)
    d = sub.add_parser("protean-cdf", help="CDF of the strict latency per run")
    d.add_argument("runs", nargs="+", help="run directories")
    d.set_defaults(handler=plot_cdf)
    g = sub.add_parser("protean-geometry", help="strict latency and MIG slices in use over time")
    g.add_argument("run", help="run directory")
    g.add_argument("--bin", type=float, default=1.0, help="bin width in seconds")
    g.add_argument("--gpus", type=int, default=8, help="GPUs to show")
    g.set_defaults(handler=plot_geometry)
    for q in (c, p, d, g):
        q.add_argument("-o", "--out", help="output path without extension")
        q.add_argument("--title", help="figure title")
