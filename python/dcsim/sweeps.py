"""dcsim.sweep: an experiment grid run on threads by the C++ sweep library, into DataFrames."""

import copy
import json
import os
import pathlib
import tempfile

import pandas as pd

from . import _core
from .runs import _override_text


def sweep(experiment, jobs=2, set=None, out=None):
    """Runs an experiment (a file path, or a dict in the experiment file format whose relative
    "scenario" paths are taken from the current directory) as `dcsim sweep` does, on `jobs`
    threads, and returns results.csv as a DataFrame (one row per run: axes, seed, status,
    error and every numeric summary metric, named by its dotted path). The aggregate table
    (mean, sd, 95% interval per combination) is in `df.attrs["aggregate"]`.

    `set` overrides every run (after the axes). With `out`, the runs stay in OUT/NAME/ and a
    later call resumes from them (`df.attrs["directory"]`); without it they go to a temporary
    directory that is removed. Runs use the built-in policies only (not Python ones)."""
    overrides = [_override_text(k, v) for k, v in (set or {}).items()]
    if out is None:
        with tempfile.TemporaryDirectory(prefix="dcsim-sweep-") as tmp:
            return _sweep(experiment, jobs, overrides, tmp, keep=False)
    return _sweep(experiment, jobs, overrides, os.fspath(out), keep=True)


def _sweep(experiment, jobs, overrides, out, keep):
    if isinstance(experiment, dict):
        document = copy.deepcopy(experiment)  # the caller's dict stays as it was
        for key in ("scenario",):
            if key in document and not os.path.isabs(document[key]):
                document[key] = os.path.abspath(document[key])
        for axis in document.get("axes", []):
            for variant in axis.get("variants", []):
                if "scenario" in variant and not os.path.isabs(variant["scenario"]):
                    variant["scenario"] = os.path.abspath(variant["scenario"])
        path = pathlib.Path(out) / (document.get("name", "experiment") + ".experiment.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document))
        experiment = path
    info = _core.sweep(os.fspath(experiment), overrides, jobs, out)
    directory = pathlib.Path(info["directory"])
    results = pd.read_csv(directory / "results.csv", float_precision="round_trip",
                          keep_default_na=False, na_values=[""])
    results.attrs["aggregate"] = pd.read_csv(directory / "aggregate.csv",
                                             float_precision="round_trip")
    results.attrs["failed"] = info["failed"]
    if keep:
        results.attrs["directory"] = str(directory)
    return results
