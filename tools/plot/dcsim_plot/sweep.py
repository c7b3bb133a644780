"""dcsim-plot sweep: a metric of a sweep against one axis, one line per value of another axis,
with the 95% confidence interval of each point (aggregate.csv of `dcsim sweep`)."""

import csv
import os
import re

from .common import fail, pyplot, save

_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")


def _float(value):
    return float(value) if value != "" else float("nan")


def read_aggregate(path):
    """Rows of aggregate.csv as dicts, checking the columns dcsim sweep writes."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                fail(f"{path}: empty file, expected a header line")
            required = ["combination", "metric", "n", "mean", "sd", "ci95_low", "ci95_high"]
            missing = [c for c in required if c not in header]
            if missing:
                fail(f"{path}: line 1: missing column(s) {', '.join(missing)}; is this an "
                     f"aggregate.csv of dcsim sweep?")
            rows = []
            for line_number, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    fail(f"{path}: line {line_number}: expected {len(header)} fields, found {len(row)}")
                record = dict(zip(header, row))
                for name in ("mean", "ci95_low", "ci95_high"):
                    try:
                        record[name] = _float(record[name])
                    except ValueError:
                        fail(f"{path}: line {line_number}: column {name}: expected a number, "
                             f"found {record[name]!r}")
                rows.append(record)
            axes = header[1:header.index("metric")]
            return axes, rows
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")


def _numeric_axis(labels):
    """The labels' leading numbers and their common unit ("100/s" -> 100, "/s") if every label
    starts with a number and they share the unit; else None (a categorical axis)."""
    values = []
    units = set()
    for label in labels:
        m = _NUMBER.match(label)
        if not m:
            return None
        values.append(float(m.group(1)))
        units.add(m.group(2))
    return (values, units.pop()) if len(units) == 1 else None


def plot_sweep(args):
    path = args.input
    if os.path.isdir(path):
        path = os.path.join(path, "aggregate.csv")
    axes, rows = read_aggregate(path)
    for name, label in (("--x", args.x), ("--group", args.group)):
        if label is not None and label not in axes:
            fail(f"{path}: {name} {label}: no such axis; the axes are {', '.join(axes) or '(none)'}")
    where = {}
    for condition in args.where or []:
        axis, sep, value = condition.partition("=")
        if not sep or axis not in axes:
            fail(f"--where {condition}: expected AXIS=LABEL with AXIS one of {', '.join(axes)}")
        where[axis] = value
    metrics = sorted({r["metric"] for r in rows})
    rows = [r for r in rows if r["metric"] == args.metric]
    if not rows:
        fail(f"{path}: no metric {args.metric!r}; metrics include {', '.join(metrics[:12])}")
    rows = [r for r in rows if all(r[a] == v for a, v in where.items())]
    others = [a for a in axes if a not in (args.x, args.group) and a not in where]
    for axis in others:
        values = sorted({r[axis] for r in rows})
        if len(values) > 1:
            fail(f"axis {axis} has several values ({', '.join(values)}): choose one with "
                 f"--where {axis}=LABEL or plot it with --group {axis}")

    # Points in the order of the sweep (the experiment file's order of values).
    x_labels = list(dict.fromkeys(r[args.x] for r in rows))
    groups = list(dict.fromkeys(r[args.group] for r in rows)) if args.group else [None]
    numeric = _numeric_axis(x_labels)
    position = {label: (numeric[0][i] if numeric else i) for i, label in enumerate(x_labels)}

    plt = pyplot()
    figure, ax = plt.subplots(figsize=(6.5, 4))
    for g, group in enumerate(groups):
        points = [r for r in rows if group is None or r[args.group] == group]
        points.sort(key=lambda r: position[r[args.x]])
        # Categories are not ordered: points side by side, not joined by lines.
        dodge = 0 if numeric else (g - (len(groups) - 1) / 2) * 0.12
        xs = [position[r[args.x]] + dodge for r in points]
        means = [r["mean"] for r in points]
        low = [r["mean"] - r["ci95_low"] if r["ci95_low"] == r["ci95_low"] else 0 for r in points]
        high = [r["ci95_high"] - r["mean"] if r["ci95_high"] == r["ci95_high"] else 0 for r in points]
        ax.errorbar(xs, means, yerr=[low, high], marker="o", capsize=3, linewidth=1.2,
                    linestyle="-" if numeric else "none",
                    label=f"{args.group}={group}" if group is not None else None)
    unit = numeric[1].strip() if numeric else ""
    unit = f" ({'1' + unit if unit.startswith('/') else unit})" if unit else ""
    ax.set_xlabel(args.xlabel or f"{args.x}{unit}")
    if not numeric:
        ax.set_xticks(range(len(x_labels)))
        ax.set_xticklabels(x_labels, rotation=30 if len(x_labels) > 4 else 0)
    ax.set_ylabel(args.ylabel or args.metric)
    ax.grid(True, alpha=0.3)
    if args.group:
        ax.legend()
    title = args.title or f"{args.metric} (mean, 95% CI over replications)"
    ax.set_title(title, fontsize=10)
    save(figure, args.out or os.path.join(os.path.dirname(path),
                                          f"{args.metric}-vs-{args.x}".replace("/", "_")))


def register(sub):
    p = sub.add_parser("sweep", help="a sweep's metric against an axis, grouped by another")
    p.add_argument("input", help="a sweep's output directory or its aggregate.csv")
    p.add_argument("--metric", required=True,
                   help="metric column of results.csv (dotted path in summary.json), e.g. "
                        "slo.compliance")
    p.add_argument("--x", required=True, help="axis on the horizontal axis")
    p.add_argument("--group", help="axis drawn as one line per value")
    p.add_argument("--where", action="append", metavar="AXIS=LABEL",
                   help="keep only this value of another axis (repeatable)")
    p.add_argument("--xlabel", help="horizontal axis label (default: the axis name and unit)")
    p.add_argument("--ylabel", help="vertical axis label, with its unit (default: the metric)")
    p.add_argument("-o", "--out", help="output path without extension")
    p.add_argument("--title", help="figure title")
    p.set_defaults(handler=plot_sweep)
