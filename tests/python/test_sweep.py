"""dcsim.sweep: the same table as `dcsim sweep`'s results.csv, in a DataFrame."""

import json

import pandas as pd
import pytest

import dcsim
from conftest import ROOT, run_cli

EXPERIMENT = {
    "name": "py-sweep",
    "scenario": str(ROOT / "scenarios" / "quickstart.json"),
    "set": ["duration=6s", "warmup=1s", "output.requests=none"],
    "axes": [{"name": "load", "set": "workload.0.rate", "values": ["150/s", "450/s"]}],
    "replications": 2,
    "seed": 5,
}


def test_sweep_equals_cli_results_csv(tmp_path):
    df = dcsim.sweep(EXPERIMENT, jobs=2)
    assert len(df) == 4
    assert list(df["status"]) == ["ok"] * 4
    assert list(df["load"]) == ["150/s", "150/s", "450/s", "450/s"]
    # More load, more requests: the axis reached the runs.
    assert df["requests_arrived"].iloc[2] > 2 * df["requests_arrived"].iloc[0]
    assert len(df.attrs["aggregate"]) > 0

    path = tmp_path / "experiment.json"
    path.write_text(json.dumps(EXPERIMENT))
    code, _, err = run_cli("sweep", str(path), "--out", str(tmp_path / "cli"), "--jobs", "2",
                           "--quiet")
    assert code == 0, err
    expected = pd.read_csv(tmp_path / "cli" / "py-sweep" / "results.csv",
                           float_precision="round_trip", keep_default_na=False, na_values=[""])
    pd.testing.assert_frame_equal(df, expected)


def test_sweep_keeps_runs_in_out_and_reports_errors(tmp_path):
    df = dcsim.sweep(EXPERIMENT, jobs=1, out=tmp_path, set={"duration": "2s", "warmup": "0s"})
    assert (tmp_path / "py-sweep" / "results.csv").is_file()
    assert df.attrs["directory"] == str(tmp_path / "py-sweep")
    with pytest.raises(dcsim.Error, match="no-such-experiment.json"):
        dcsim.sweep("no-such-experiment.json")
