#!/usr/bin/env python3
"""Writes the CI-sized variants of the INFless §5.3 large-scale runs (Fig. 17b's claims):
scenarios/infless/large-scale-<system>.json with a tenth of the servers (200) and a tenth of
every function's rate, nothing else changed -- the same 40 functions, SLOs, durations and
policies. The scale was fixed before any run of the variant (a tenth: the largest round
factor whose three runs take seconds in CI)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCALE = 10

for system in ("infless", "batch", "openfaas-plus"):
    with open(os.path.join(HERE, "..", f"large-scale-{system}.json")) as f:
        s = json.load(f)
    s["name"] = f"ci-large-scale-{system}"
    s["description"] = (
        f"CI variant (a tenth of the servers and of every rate) of: {s['description']}")
    for h in s["platform"]["cluster"]["hosts"]:
        h["count"] //= SCALE
    for w in s["workload"]:
        n, unit = w["rate"].split("/")
        w["rate"] = f"{float(n) / SCALE:g}/{unit}"
    with open(os.path.join(HERE, f"large-scale-{system}.json"), "w") as f:
        json.dump(s, f, indent=2, ensure_ascii=True)
        f.write("\n")
