"""Shared fixtures: the CLI's results for the scenario the module's results are compared with."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios" / "quickstart.json"
# Short enough for a test, long enough for cold starts, scaling and a few thousand requests.
UNTIL = "15s"
SEED = 7


def cli():
    path = os.environ.get("DCSIM_CLI")
    if not path:
        pytest.skip("DCSIM_CLI is not set (run these tests through ctest)")
    return path


def run_cli(*args):
    """(exit code, stdout, stderr) of the dcsim CLI."""
    p = subprocess.run([cli(), *args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def cli_quickstart(tmp_path_factory):
    """The CLI's output folder for quickstart.json with --seed SEED --until UNTIL."""
    out = tmp_path_factory.mktemp("cli")
    code, _, err = run_cli("run", str(QUICKSTART), "--seed", str(SEED), "--until", UNTIL,
                           "--out", str(out), "--quiet")
    assert code == 0, err
    return out / "quickstart"


def load_json(path):
    return json.loads(pathlib.Path(path).read_text())
