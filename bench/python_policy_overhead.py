"""Overhead of a policy written in Python against its C++ twin (docs/python.md).

Runs the quickstart scenario with a built-in C++ policy and with its line-for-line Python twin
(tests/python/twins.py), checks that both runs are identical, and reports the extra wall time
per policy call. Best of REPEAT runs each. The control loop runs every --control-interval
(10 ms by default instead of the scenario's 1 s) so that the autoscaler is called often enough
for its cost to stand out of the run-to-run noise.

    PYTHONPATH=build/release/python python3 bench/python_policy_overhead.py [--until 120s]
"""

import argparse
import json
import pathlib
import sys
import time

import dcsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import twins  # noqa: E402


def best_wall(scenario, until, overrides, repeat):
    best, result = None, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = dcsim.run(scenario, until=until, seed=1, set=overrides)
        wall = time.perf_counter() - t0
        best = wall if best is None else min(best, wall)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--until", default="120s")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--control-interval", default="10ms")
    args = parser.parse_args()
    twins.register()
    scenario = ROOT / "scenarios" / "quickstart.json"
    cases = [("dispatcher", "round-robin", "py-round-robin", twins.RoundRobin),
             ("autoscaler", "reactive-rate", "py-reactive-rate", twins.ReactiveRate)]
    for category, cpp, py, cls in cases:
        key = f"platform.policies.{category}"
        base = {"platform.control_interval": args.control_interval}
        cpp_wall, cpp_run = best_wall(scenario, args.until, {**base, key: {"type": cpp}},
                                      args.repeat)
        cls.calls = 0
        py_wall, py_run = best_wall(scenario, args.until, {**base, key: {"type": py}},
                                    args.repeat)
        calls = cls.calls // args.repeat
        same = json.dumps(cpp_run.summary) == json.dumps(py_run.summary)
        print(f"{category:>10} {cpp:>14} C++ {cpp_wall:6.3f} s | {py:>17} Python {py_wall:6.3f} s"
              f" | {calls:7d} calls | {1e6 * (py_wall - cpp_wall) / max(calls, 1):6.2f} us/call"
              f" | same run: {same}")


if __name__ == "__main__":
    main()
