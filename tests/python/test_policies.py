"""Policies written in Python: a twin of a C++ policy gives the same run, byte for byte."""

import json

import pandas as pd
import pytest

import dcsim
import twins
from conftest import QUICKSTART

UNTIL = "20s"
SEED = 3


@pytest.fixture(autouse=True)
def registered():
    twins.register()
    yield
    dcsim.policy.unregister("py-reactive-rate")
    dcsim.policy.unregister("py-round-robin")


def same_run(a, b):
    assert json.dumps(a.summary) == json.dumps(b.summary)
    pd.testing.assert_frame_equal(a.requests, b.requests)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)


@pytest.mark.parametrize("scale_down", [False, True])
def test_python_reactive_autoscaler_equals_cpp(scale_down):
    params = {"target_utilisation": 0.6, "scale_down": scale_down}
    cpp = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL, set={
        "platform.policies.autoscaler": {"type": "reactive-rate", **params}})
    twins.ReactiveRate.calls = 0
    py = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL, set={
        "platform.policies.autoscaler": {"type": "py-reactive-rate", **params}})
    assert twins.ReactiveRate.calls > 10
    assert py.scenario["platform"]["policies"]["autoscaler"]["window"] == 0  # default filled
    same_run(cpp, py)


def test_python_round_robin_dispatcher_equals_cpp():
    # Three instances per function, so that a batch often has several idle instances to go to.
    pool = {"platform.policies.autoscaler": {"type": "fixed-pool", "instances": 3}}
    cpp = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL,
                    set={**pool, "platform.policies.dispatcher": {"type": "round-robin"}})
    twins.RoundRobin.calls = 0
    py = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL,
                   set={**pool, "platform.policies.dispatcher": {"type": "py-round-robin"}})
    assert twins.RoundRobin.calls > 1000
    same_run(cpp, py)
    assert "py-round-robin" in dcsim.list("dispatcher")

    # The choice shows in the run: a dispatcher that picks the newest idle instance differs.
    class Newest(dcsim.policy.Dispatcher):
        def choose(self, view):
            return view.idle[-1].id if view.idle else None

    dcsim.policy.register("py-newest", Newest)
    try:
        newest = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL,
                           set={**pool, "platform.policies.dispatcher": {"type": "py-newest"}})
    finally:
        dcsim.policy.unregister("py-newest")
    assert not newest.requests["device"].equals(py.requests["device"])


def test_python_policy_parameters_are_checked():
    with pytest.raises(dcsim.Error, match="/platform/policies/autoscaler/target_utilisation"):
        dcsim.validate(QUICKSTART, set={"platform.policies.autoscaler": {
            "type": "py-reactive-rate", "target_utilisation": "high"}})
    with pytest.raises(dcsim.Error, match="py-reactive-rat"):
        dcsim.validate(QUICKSTART, set={"platform.policies.autoscaler.type": "py-reactive-rat"})


def test_exception_in_a_python_policy_reaches_the_caller():
    class Broken(dcsim.policy.Autoscaler):
        def decide(self, view):
            raise ZeroDivisionError("broken policy")

    dcsim.policy.register("py-broken", Broken)
    try:
        with pytest.raises(ZeroDivisionError, match="broken policy"):
            dcsim.run(QUICKSTART, until="12s",
                      set={"platform.policies.autoscaler": {"type": "py-broken"}})
    finally:
        dcsim.policy.unregister("py-broken")


def test_register_rejects_what_is_not_a_policy():
    with pytest.raises(TypeError):
        dcsim.policy.register("x", object)
    with pytest.raises(TypeError):
        dcsim.policy.register("x", dcsim.policy.Policy)


def test_views_carry_the_platform_state():
    seen = {}

    class Inspect(dcsim.policy.Dispatcher):
        def choose(self, view):
            assert view.idle, "the platform asks only with an idle instance"
            for i in view.idle:
                assert i.function == view.function
                assert i.state == dcsim.InstanceState.IDLE
            assert all(view.queue[t].arrival.ns <= view.now.ns for t in view.take)
            seen["batches"] = seen.get("batches", 0) + 1
            seen["strict"] = seen.get("strict", 0) + sum(view.queue[t].strict for t in view.take)
            return view.idle[0].id

    class Watch(dcsim.policy.Autoscaler):
        def decide(self, view):
            assert [f.name for f in view.functions] == ["resnet50", "resnet18"]
            assert view.function(0).model == "protean/resnet-50"
            assert len(view.hosts) == 1 and len(view.hosts[0].gpus) == 2
            assert view.hosts[0].gpus[0].type == "A100-40GB"
            seen["ticks"] = seen.get("ticks", 0) + 1
            seen["rate"] = max(seen.get("rate", 0.0), view.functions[0].arrival_rate[0])
            live = sum(f.live() for f in view.functions)
            return dcsim.Decisions(start=[dcsim.StartInstance(f.id) for f in view.functions
                                          if f.live() == 0 and live < 2])

    dcsim.policy.register("py-inspect", Inspect)
    dcsim.policy.register("py-watch", Watch)
    try:
        r = dcsim.run(QUICKSTART, seed=SEED, until="12s", set={
            "platform.policies.dispatcher": {"type": "py-inspect"},
            "platform.policies.autoscaler": {"type": "py-watch"}})
    finally:
        dcsim.policy.unregister("py-inspect")
        dcsim.policy.unregister("py-watch")
    assert seen["ticks"] == 13  # control ticks at 0, 1, ..., 12 s
    assert 250 < seen["rate"] < 350  # resnet50's Poisson rate is 300/s
    assert seen["batches"] > 100 and seen["strict"] > 0
    assert r.summary["requests"]["ok"] > 0


def test_python_keep_alive_prewarm_returns_decisions_or_starts():
    # A twin of the fixed keep-alive with keep_alive 60 s and min_warm 3: prewarm returns its
    # starts as Decisions (like every tick policy) or, as before, as a list; both equal C++.
    class FixedWarm(dcsim.policy.KeepAlive):
        as_list = False

        def idle_timeout(self, instance, function):
            return dcsim.Time.from_seconds(60)

        def prewarm(self, view):
            start = [dcsim.StartInstance(f.id, 3 - f.live()) for f in view.functions
                     if f.live() < 3]
            return start if self.as_list else dcsim.Decisions(start=start)

    class FixedWarmList(FixedWarm):
        as_list = True

    def keep_alive(spec):
        return dcsim.run(QUICKSTART, seed=SEED, until=UNTIL,
                         set={"platform.policies.keep_alive": spec})

    cpp = keep_alive({"type": "fixed", "keep_alive": "60s", "min_warm": 3})
    # Pre-warming matters here: without it the run differs.
    cold = keep_alive({"type": "fixed", "keep_alive": "60s", "min_warm": 0})
    assert json.dumps(cold.summary) != json.dumps(cpp.summary)
    dcsim.policy.register("py-fixed-warm", FixedWarm)
    dcsim.policy.register("py-fixed-warm-list", FixedWarmList)
    try:
        as_decisions = keep_alive({"type": "py-fixed-warm"})
        as_list = keep_alive({"type": "py-fixed-warm-list"})
    finally:
        dcsim.policy.unregister("py-fixed-warm")
        dcsim.policy.unregister("py-fixed-warm-list")
    same_run(cpp, as_decisions)
    same_run(cpp, as_list)
