"""A scheduling idea prototyped in Python: an autoscaler that keeps a queue-aware headroom,
selected from a scenario by name and compared with the built-in reactive autoscaler.

    PYTHONPATH=build/release/python python3 examples/python/python_autoscaler.py [--until 60s]
"""

import argparse
import math
import pathlib

import dcsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


@dcsim.policy.register("headroom", params={"headroom": 1.3, "idle_grace_s": 5.0})
class HeadroomAutoscaler(dcsim.policy.Autoscaler):
    """Enough instances for the recent rate times a headroom, plus one per 8 queued requests;
    idle instances beyond that stop after a grace period."""

    def decide(self, view):
        start, stop = [], []
        for f in view.functions:
            rate = f.arrival_rate[0] if f.arrival_rate else 0.0
            capacity = f.config.max_batch / f.batch_latency_s if f.batch_latency_s > 0 else 0.0
            want = math.ceil(rate * self.params["headroom"] / capacity) if capacity > 0 else 1
            want += f.queue_length // 8
            if want > f.live():
                start.append(dcsim.StartInstance(f.id, want - f.live()))
            elif want < f.live():
                excess = f.live() - want
                for i in view.instances:
                    idle_for = (view.now.ns - i.state_since.ns) / 1e9
                    if (excess and i.function == f.id and i.state == dcsim.InstanceState.IDLE
                            and idle_for >= self.params["idle_grace_s"]):
                        stop.append(dcsim.StopInstance(i.id))
                        excess -= 1
        return dcsim.Decisions(start=start, stop=stop)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--until", default="60s")
    args = parser.parse_args()
    scenario = ROOT / "scenarios" / "quickstart.json"
    for autoscaler in ({"type": "reactive-rate"}, {"type": "headroom", "headroom": 1.5}):
        r = dcsim.run(scenario, until=args.until, seed=1,
                      set={"platform.policies.autoscaler": autoscaler})
        s = r.summary
        print(f"{autoscaler['type']:>14}: SLO compliance {s['slo']['compliance']:.2%}  "
              f"p99 {s['latency_s']['p99'] * 1e3:7.2f} ms  "
              f"cold starts {s.get('cold_starts', {}).get('count', '-')}")


if __name__ == "__main__":
    main()
