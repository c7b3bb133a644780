"""Run the quickstart scenario from Python and plot its latency distribution and time series.

    PYTHONPATH=build/release/python python3 examples/python/run_and_plot.py [OUT.png] [--until 60s]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # headless: write a file, open no window
import matplotlib.pyplot as plt

import dcsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="quickstart.png")
    parser.add_argument("--until", default="60s")
    args = parser.parse_args()

    r = dcsim.run(ROOT / "scenarios" / "quickstart.json", until=args.until, seed=1)
    req = r.requests
    ok = req[req["outcome"] != 2]  # 2 = dropped
    latency_ms = (ok["finish_ns"] - ok["arrival_ns"]) / 1e6
    names = r.function_names

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for fid, group in latency_ms.groupby(ok["function"]):
        left.hist(group, bins=60, histtype="step", label=names[fid])
    left.set_xlabel("end-to-end latency (ms)")
    left.set_ylabel("requests")
    left.set_yscale("log")
    left.legend()
    ts = r.timeseries
    right.plot(ts["time_s"], ts["requests_in_system"], label="requests in system")
    right.set_xlabel("simulated time (s)")
    right.legend()
    fig.suptitle(f"quickstart: SLO compliance {r.summary['slo']['compliance']:.1%}, "
                 f"p99 {r.summary['latency_s']['p99'] * 1e3:.1f} ms")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"{len(req)} requests, {r.events} events; wrote {args.out}")


if __name__ == "__main__":
    main()
