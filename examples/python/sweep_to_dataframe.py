"""Sweep the quickstart's ResNet 50 load with dcsim.sweep and tabulate the results with pandas.

    PYTHONPATH=build/release/python python3 examples/python/sweep_to_dataframe.py [--duration 30s]
"""

import argparse
import os
import pathlib

import dcsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", default="30s")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    os.chdir(ROOT)  # the experiment's scenario path is relative to the current directory
    experiment = {
        "name": "python-load",
        "scenario": "scenarios/quickstart.json",
        "set": [f"duration={args.duration}", "warmup=5s", "output.requests=none"],
        "axes": [{"name": "load", "set": "workload.0.rate",
                  "values": ["200/s", "400/s", "600/s"]}],
        "replications": 2,
        "seed": 1,
    }
    df = dcsim.sweep(experiment, jobs=args.jobs)
    assert (df["status"] == "ok").all(), df[["run", "status", "error"]]
    table = (df.groupby("load", sort=False)[["slo.compliance", "latency_s.p99", "throughput_rps"]]
             .mean())
    print(table.to_string(float_format=lambda x: f"{x:.4g}"))
    print(f"{len(df)} runs; aggregate rows: {len(df.attrs['aggregate'])}")


if __name__ == "__main__":
    main()
