"""Errors carry the CLI's message; validate, list and describe answer as the CLI does."""

import pytest

import dcsim
from conftest import QUICKSTART, run_cli


def test_bad_value_raises_with_json_path_and_cli_text():
    with pytest.raises(dcsim.Error) as e:
        dcsim.run(QUICKSTART, set={"workload.0.rate": "fast"})
    message = str(e.value)
    assert "/workload/0/rate" in message
    assert "--set workload.0.rate=fast" in message
    code, _, err = run_cli("run", str(QUICKSTART), "--set", "workload.0.rate=fast")
    assert code == 1
    assert err == message + "\n"


def test_bad_dict_names_the_path_and_the_dict():
    document = {"duration": "10s", "workload": [{"type": "poisson", "rate": -3}]}
    with pytest.raises(dcsim.Error, match=r"<dict>.*/workload/0/rate"):
        dcsim.run(document)


def test_missing_file_and_bad_seed():
    with pytest.raises(dcsim.Error, match="no-such-scenario.json"):
        dcsim.run("no-such-scenario.json")
    with pytest.raises(dcsim.Error, match="/seed"):
        dcsim.validate(QUICKSTART, seed=-1)
    with pytest.raises(TypeError):
        dcsim.run(42)


def test_validate_returns_resolved_scenario():
    resolved = dcsim.validate(QUICKSTART, set={"platform.policies.autoscaler.target_utilisation": 0.5})
    assert resolved["name"] == "quickstart"
    assert resolved["platform"]["policies"]["autoscaler"]["target_utilisation"] == 0.5
    assert resolved["warmup"] == "10s"


def test_list_and_describe_match_the_cli():
    components = dcsim.list()
    assert "reactive-rate" in components["autoscaler"]
    assert "poisson" in dcsim.list("workload")
    assert "serverless-reference" in dcsim.list("presets")
    with pytest.raises(dcsim.Error, match="unknown category"):
        dcsim.list("no-such-category")
    code, out, _ = run_cli("describe", "reactive-rate")
    assert code == 0
    assert dcsim.describe("reactive-rate") == out
    with pytest.raises(dcsim.Error, match="did you mean"):
        dcsim.describe("reactive-rat")
