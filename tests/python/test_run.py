"""dcsim.run against the CLI: the same scenario and seed give the same results."""

import json

import h5py
import numpy as np
import pandas as pd
import pytest

import dcsim
from conftest import QUICKSTART, SEED, UNTIL, load_json


@pytest.fixture(scope="module")
def result():
    return dcsim.run(QUICKSTART, seed=SEED, until=UNTIL)


def test_summary_equals_cli_summary_json(result, cli_quickstart):
    assert result.summary == load_json(cli_quickstart / "summary.json")
    assert result.summary["requests_arrived"] > 1000  # a run that did something


def test_scenario_equals_cli_scenario_json(result, cli_quickstart):
    assert result.scenario == load_json(cli_quickstart / "scenario.json")
    assert result.scenario["seed"] == SEED
    assert result.scenario["duration"] == UNTIL


def test_requests_equal_requests_h5(result, cli_quickstart):
    with h5py.File(cli_quickstart / "requests.h5", "r") as f:
        group = f["requests"]
        assert list(result.requests.columns) == list(
            ["id", "function", "application", "class", "arrival_ns", "dispatch_ns", "start_ns",
             "finish_ns", "queue_wait_ns", "batching_wait_ns", "cold_start_wait_ns",
             "execution_ns", "batch_size", "device", "slice", "outcome", "slo_ns"])
        assert set(result.requests.columns) == set(group.keys())
        assert len(result.requests) == f.attrs["records"] > 0
        for column in result.requests.columns:
            expected = group[column][()]
            got = result.requests[column].to_numpy()
            assert got.dtype == expected.dtype, column
            assert np.array_equal(got, expected), column
        names = [n.decode() if isinstance(n, bytes) else n for n in f["names/functions"][()]]
        assert result.function_names == names


def test_timeseries_equals_timeseries_csv(result, cli_quickstart):
    expected = pd.read_csv(cli_quickstart / "timeseries.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(result.timeseries, expected)
    assert len(result.timeseries) == 16  # samples at 0, 1, ..., 15 s


def test_same_seed_same_run_and_other_seed_differs(result):
    again = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL)
    assert json.dumps(again.summary) == json.dumps(result.summary)
    pd.testing.assert_frame_equal(again.requests, result.requests)
    other = dcsim.run(QUICKSTART, seed=SEED + 1, until=UNTIL)
    assert not other.requests["arrival_ns"].equals(result.requests["arrival_ns"])


def test_dict_and_set_equal_file_and_cli_set(result):
    document = load_json(QUICKSTART)
    document["duration"] = "1s"  # replaced by until below
    r = dcsim.run(document, set={"seed": SEED}, until=15)
    assert r.summary == result.summary
    # A str value is read as --set reads it; other values are passed as JSON.
    half = dcsim.run(QUICKSTART, seed=SEED, until=UNTIL, set={"workload.0.rate": "150/s"})
    assert half.scenario["workload"][0]["rate"] == "150/s"
    assert half.summary["requests_arrived"] < result.summary["requests_arrived"]


def test_run_writes_no_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dcsim.run(QUICKSTART, seed=SEED, until="2s", set={"warmup": "0s"})
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_a_long_run():
    import signal
    import time

    # A run holds the interpreter, so the signal comes from a timer, as a terminal's Ctrl-C
    # would: the C handler notes it and the run polls for it. Ten simulated hours take many
    # seconds; the signal after 0.3 s must end the run at once.
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            dcsim.run(QUICKSTART, until="36000s", set={"output.timeseries_period": "60s"})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 5
