"""dcsim-plot rate and timeseries: a trace's request rate, a run's time series."""

import os

from .common import fail, pyplot, read_columns, save, time_axis


def plot_rate(args):
    plt = pyplot()

    data = read_columns(args.input, ["time_s", "rate_per_s"])
    if not data["time_s"]:
        fail(f"{args.input}: no data rows")
    x, xlabel = time_axis(data["time_s"])
    figure, axes = plt.subplots(figsize=(8, 3.5))
    axes.plot(x, data["rate_per_s"], linewidth=0.8)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("request rate (requests/s)")
    axes.set_title(args.title or os.path.basename(args.input))
    axes.grid(True, alpha=0.3)
    save(figure, args.out or os.path.splitext(args.input)[0])


def plot_timeseries(args):
    plt = pyplot()

    path = os.path.join(args.input, "timeseries.csv")
    data = read_columns(path, ["time_s"])
    series = [c for c in data if c != "time_s"]
    if not data["time_s"] or not series:
        fail(f"{path}: no data rows or no columns besides time_s")
    x, xlabel = time_axis(data["time_s"])
    figure, axes = plt.subplots(len(series), 1, figsize=(8, 2.2 * len(series)), sharex=True,
                                squeeze=False)
    for row, name in enumerate(series):
        axes[row][0].plot(x, data[name], linewidth=0.8)
        axes[row][0].set_ylabel(name.replace("_", " "))
        axes[row][0].grid(True, alpha=0.3)
    axes[-1][0].set_xlabel(xlabel)
    figure.suptitle(args.title or os.path.basename(os.path.normpath(args.input)))
    save(figure, args.out or os.path.join(args.input, "timeseries"))


def register(sub):
    rate = sub.add_parser("rate", help="request rate over time from a trace-info rate CSV")
    rate.add_argument("input", help="CSV with columns time_s,rate_per_s[,requests]")
    rate.set_defaults(handler=plot_rate)
    timeseries = sub.add_parser("timeseries", help="the time series of a run directory")
    timeseries.add_argument("input", help="run directory containing timeseries.csv")
    timeseries.set_defaults(handler=plot_timeseries)
    for p in (rate, timeseries):
        p.add_argument("-o", "--out", help="output path without extension")
        p.add_argument("--title", help="figure title")
