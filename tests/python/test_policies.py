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
