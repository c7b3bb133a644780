#!/usr/bin/env python3
"""Flashpoint §8.5: the resources the baselines need to reach Flashpoint's latency.

For every (trace, model, autoscaler) whose Flashpoint run (lc-mc-mp) is in RUNS, and for each
compared system (bl, gpu-faas): if the system's own run is already at most 10% slower than
Flashpoint, it needs no more resources (0%); otherwise `dcsim calibrate --match-latency`
searches the autoscaler threshold until the system's mean end-to-end latency is in
[Flashpoint's, Flashpoint's x 1.1] (thesis §8.5) and reports its replicas per second against
Flashpoint's. Prints one Markdown row per search and the means per trace and system.

usage: scenarios/flashpoint/match_resources.py DCSIM RUNS OUT [--models m,...] [--autoscalers a,...]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["codebert", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]
AUTOSCALERS = ["atl", "owk", "sm", "tsk"]
COMPARED = ["gpu-faas", "bl"]
RUN = re.compile(r"^  run +[0-9]+: \S+ = \S+ +replicas/s +([0-9.]+)  mean latency ([0-9.]+) s")
MAX_BACKLOG = 0.1  # as `flashpoint-table --max-backlog 0.1` in docs/reproduction/flashpoint.md
BRACKET = re.compile(r"^bracketed: ([0-9.]+) replicas/s give ([0-9.]+) s, ([0-9.]+) replicas/s "
                     r"give ([0-9.]+) s$")
FINAL = re.compile(r"^(matched|closest) (\S+)=(\S+): ([0-9.]+)% from the target, ([0-9.]+) "
                   r"replicas/s(?: \(([+-][0-9.]+)% of the matched run's ([0-9.]+)\))?$")


def summary(runs, name):
    path = os.path.join(runs, name, "summary.json")
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: line {e.lineno}: expected JSON: {e.msg}")


def diverged(s):
    """Ended with more than MAX_BACKLOG of its arrivals still in the system."""
    return s["requests_in_system_at_end"] > MAX_BACKLOG * max(s.get("requests_arrived") or 0, 1)


def replicas_per_second(s):
    return s["instance_seconds"] / max(s["duration_s"] - s.get("warmup_s", 0.0), 1e-9)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dcsim")
    p.add_argument("runs", help="directory of the §8.4 runs (OUT of run.sh)")
    p.add_argument("out", help="directory for the calibration runs")
    p.add_argument("--traces", default="twitter,azure")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--autoscalers", default=",".join(AUTOSCALERS))
    p.add_argument("--iterations", default="10")
    a = p.parse_args()
    rows = []
    print("| trace | model | autoscaler | system | Flashpoint mean e2e (s) | system's at equal "
          "resources (s) | outcome | threshold | replicas/s | Flashpoint's | extra resources |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for trace in a.traces.split(","):
        for model in a.models.split(","):
            for scaler in a.autoscalers.split(","):
                fp_name = f"{trace}-{model}-{scaler}-lc-mc-mp"
                fp = summary(a.runs, fp_name)
                if fp is None or fp["latency_s"]["mean"] is None:
                    continue
                target = fp["latency_s"]["mean"]
                fp_replicas = replicas_per_second(fp)
                for system in COMPARED:
                    own = summary(a.runs, f"{trace}-{model}-{scaler}-{system}")
                    if own is None or own["latency_s"]["mean"] is None:
                        continue
                    if diverged(fp) or diverged(own):
                        # Latency over completed requests only: not comparable (TSK baselines
                        # that take the whole cluster; flashpoint-table --max-backlog).
                        print(f"| {trace} | {model} | {scaler} | {system} | {target:.3f} | "
                              f"{own['latency_s']['mean']:.3f} | left out: backlog > "
                              f"{100 * MAX_BACKLOG:g}% at the end | | | {fp_replicas:.2f} | |")
                        continue
                    mean = own["latency_s"]["mean"]
                    if mean <= 1.1 * target:
                        outcome, threshold, replicas = "within 10% as run", "default", replicas_per_second(own)
                    else:
                        scenario = os.path.join(HERE, "techniques", trace, model, f"{scaler}-{system}.json")
                        cmd = [a.dcsim, "calibrate", scenario, "--match-latency",
                               os.path.join(a.runs, fp_name, "summary.json"), "--iterations",
                               a.iterations, "-o", a.out]
                        r = subprocess.run(cmd, capture_output=True, text=True)
                        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
                        m = FINAL.match(last)
                        if m is None:
                            # Report it and go on with the other searches.
                            print(f"{' '.join(cmd)}: unexpected output (exit {r.returncode}):\n"
                                  f"{r.stdout}{r.stderr}", file=sys.stderr)
                            continue
                        outcome, threshold, replicas = m.group(1), m.group(3), float(m.group(5))
                        if outcome == "closest":
                            # No threshold in the band. Either runs on both sides of the target
                            # bound the answer, or no run was as fast as Flashpoint: report the
                            # fastest.
                            runs = [(float(x.group(2)), float(x.group(1)))
                                    for x in map(RUN.match, r.stdout.splitlines()) if x]
                            fastest = min(runs) if runs else (float("nan"), float("nan"))
                            outcome = (f"never as fast: best {fastest[0]:.3f} s at "
                                       f"{100 * (fastest[1] / fp_replicas - 1):+.0f}%")
                            for line in r.stdout.splitlines():
                                b = BRACKET.match(line)
                                if b:
                                    outcome = (f"between {100 * (float(b.group(3)) / fp_replicas - 1):+.0f}% "
                                               f"({b.group(4)} s) and "
                                               f"{100 * (float(b.group(1)) / fp_replicas - 1):+.0f}% "
                                               f"({b.group(2)} s)")
                    extra = 100.0 * (replicas / fp_replicas - 1.0)
                    rows.append((trace, system, model, outcome, extra))
                    print(f"| {trace} | {model} | {scaler} | {system} | {target:.3f} | {mean:.3f} | "
                          f"{outcome} | {threshold} | {replicas:.2f} | {fp_replicas:.2f} | {extra:+.1f}% |",
                          flush=True)
    print()
    # Means over the pairs with an answer: already within 10%, or matched by the search; a
    # search that found no threshold in the band is counted apart, not averaged.
    print("| trace | system | pairs | mean extra resources | of which searched | no match found "
          "(bracketed or never as fast) | T5-3B mean |")
    print("|---|---|---|---|---|---|---|")
    for trace in a.traces.split(","):
        for system in COMPARED:
            sel = [r for r in rows if r[0] == trace and r[1] == system]
            ok = [r for r in sel if r[3] in ("matched", "within 10% as run")]
            if not sel:
                continue
            t5 = [r[4] for r in ok if r[2] == "t5-3b"]
            mean = sum(r[4] for r in ok) / len(ok) if ok else float("nan")
            print(f"| {trace} | {system} | {len(ok)} | {mean:+.1f}% | "
                  f"{sum(1 for r in ok if r[3] == 'matched')} | {len(sel) - len(ok)} | "
                  f"{(sum(t5) / len(t5)) if t5 else float('nan'):+.1f}% |")


if __name__ == "__main__":
    main()
