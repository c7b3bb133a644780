"""dcsim.run / validate / list / describe: the CLI's commands, through the same C++ functions."""

import builtins
import io
import json
import os

import pandas as pd

from . import _core, policy


def _override_text(key, value):
    # As `--set KEY=VALUE`: a str is passed as typed (JSON if it parses, else a string, so
    # "80/s" and "30s" work), anything else as its JSON.
    if isinstance(value, str):
        return f"{key}={value}"
    return f"{key}={json.dumps(value)}"


def _duration_text(value):
    return f"{value}s" if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _source(scenario, set=None, seed=None, until=None):
    """(path, document text, label, overrides) for _core, in the CLI's override order."""
    overrides = [_override_text(k, v) for k, v in (set or {}).items()]
    if seed is not None:
        overrides.append(_override_text("seed", seed))
    if until is not None:
        overrides.append(_override_text("duration", _duration_text(until)))
    if isinstance(scenario, dict):
        document = dict(scenario)
        # A dict has no file name to name the run after.
        document.setdefault("name", "scenario")
        return "", json.dumps(document), "<dict>", overrides
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario), "", "", overrides
    raise TypeError(f"dcsim: expected a scenario file path or a dict, got {type(scenario).__name__}")


class Result:
    """One run: .summary (dict), .requests and .timeseries (DataFrames), .scenario (dict)."""

    def __init__(self, raw):
        self.summary = json.loads(raw["summary"])
        self.scenario = json.loads(raw["scenario"])
        # The DataFrame's columns and dtypes are those of requests.h5's /requests group.
        self.requests = pd.DataFrame(raw["requests"], copy=False)
        self.function_names = builtins.list(raw["function_names"])
        self.application_names = builtins.list(raw["application_names"])
        self.requests.attrs["function_names"] = self.function_names
        self.requests.attrs["application_names"] = self.application_names
        # timeseries.csv's values are written in shortest round-trip form: read back exactly.
        self.timeseries = pd.read_csv(io.StringIO(raw["timeseries"]), float_precision="round_trip")
        self.events = raw["events"]
        self.wall_seconds = raw["wall_seconds"]
        self.partial = raw["partial"]

    def __repr__(self):
        return (f"<dcsim.Result {self.scenario.get('name')!r}: {len(self.requests)} requests, "
                f"{self.events} events>")


def run(scenario, set=None, seed=None, until=None):
    """Runs a scenario (a file path or a dict) in memory; no file is written.

    `set` maps KEY.PATH to a value (as `--set`), `seed` and `until` are `--seed` and `--until`
    (`until` in seconds or with a unit, "30s"). Raises dcsim.Error with the CLI's message."""
    return Result(_core.run(*_source(scenario, set, seed, until), policy.registrations()))


def validate(scenario, set=None, seed=None, until=None):
    """Checks a scenario as `dcsim validate` does; returns the resolved scenario (dict)."""
    return json.loads(_core.validate(*_source(scenario, set, seed, until),
                                      policy.registrations()))


def list(category=None):
    """Registered components (with the policies registered in Python) as
    {category: {name: description}}, plus "presets": [names].

    With `category`, only that category's dict (or the preset list)."""
    out = {}
    for cat, name, description in _core.components(policy.registrations()):
        out.setdefault(cat, {})[name] = description
    out["presets"] = _core.presets()
    if category is None:
        return out
    if category not in out:
        raise Error(f'unknown category "{category}" (known: {", ".join(sorted(out))})')
    return out[category]


def describe(name):
    """The parameters of a component (or "scenario"), as `dcsim describe NAME` prints them."""
    return _core.describe(name)


Error = _core.Error
