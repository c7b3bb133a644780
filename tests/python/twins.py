"""Python twins of built-in C++ policies (src/policies/reference/), line for line, so that a run
with the twin must equal the run with the C++ policy. Used by the tests and the overhead
measurement (bench/python_policy_overhead.py)."""

import math

import dcsim


class ReactiveRate(dcsim.policy.Autoscaler):
    """Twin of reactive-rate (ReactiveRateAutoscaler)."""
    calls = 0

    def desired(self, f):
        p = self.params
        rate = 0.0
        if f.arrival_rate:
            w = min(max(p["window"], 0), len(f.arrival_rate) - 1)
            rate = f.arrival_rate[w]
        per_instance = f.config.max_batch / f.batch_latency_s if f.batch_latency_s > 0 else 0.0
        n = 0
        if per_instance > 0:
            n = math.ceil(rate / (p["target_utilisation"] * per_instance) - 1e-9)
        elif rate > 0:
            n = 1
        if f.queue_length > 0:
            n = max(n, 1)
        return min(max(n, p["min_instances"]), p["max_instances"])

    def decide(self, view):
        type(self).calls += 1
        start, stop = [], []
        instances = view.instances
        for f in view.functions:
            n = self.desired(f)
            live = f.live()
            if n > live:
                start.append(dcsim.StartInstance(f.id, n - live))
            elif self.params["scale_down"] and n < live:
                excess = live - n
                for i in reversed(instances):  # newest idle instances first
                    if excess == 0:
                        break
                    if i.function == f.id and i.state == dcsim.InstanceState.IDLE:
                        stop.append(dcsim.StopInstance(i.id))
                        excess -= 1
        return dcsim.Decisions(start=start, stop=stop)


class RoundRobin(dcsim.policy.Dispatcher):
    """Twin of round-robin (RoundRobinDispatcher)."""
    calls = 0

    def __init__(self, params):
        super().__init__(params)
        self.last = None

    def choose(self, view):
        type(self).calls += 1
        idle = view.idle
        if not idle:
            return None
        pick = idle[0]
        if self.last is not None:
            for i in idle:
                if i.id > self.last:
                    pick = i
                    break
        self.last = pick.id
        return pick.id


def register():
    dcsim.policy.register("py-reactive-rate", ReactiveRate,
                          params={"target_utilisation": 0.7, "window": 0, "min_instances": 0,
                                  "max_instances": 1000, "scale_down": False})
    dcsim.policy.register("py-round-robin", RoundRobin)
