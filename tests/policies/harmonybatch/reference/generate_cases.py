#!/usr/bin/env python3
"""Application sets for the HarmonyBatch differential test (cases.json).

Writes, for each model, single applications over a grid of SLOs and rates and random sets of
1-8 applications. Standard library only (no reference code is imported); deterministic for a
given --seed. The plans of the public reference planner for these sets are produced as the
README in this directory describes and stored in reference_plans.json.
"""
import argparse
import json
import random

# SLO grids (seconds) per model: from below the GPU-only region to loose CPU SLOs.
MODELS = {
    "vgg19": {"slos": [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0],
              "slo_range": (0.1, 1.5), "random_sets": 150},
    "bert": {"slos": [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5],
             "slo_range": (0.1, 1.2), "random_sets": 50},
    "gpt-2": {"slos": [0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5],
              "slo_range": (0.6, 2.5), "random_sets": 50},
    "videomae": {"slos": [0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5],
                 "slo_range": (0.8, 2.5), "random_sets": 50},
}
RATES = [0.3, 1.0, 2.5, 5.0, 9.0, 15.0, 24.0, 37.0, 60.0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--out", default="cases.json")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = []
    for model, spec in MODELS.items():
        for slo in spec["slos"]:
            for rate in RATES:
                cases.append({"id": f"{model}-single-s{slo}-r{rate}", "model": model,
                              "applications": [{"name": "a0", "slo": slo, "rate": rate}]})
        lo, hi = spec["slo_range"]
        for k in range(spec["random_sets"]):
            n = rng.randint(1, 8)
            apps = []
            for a in range(n):
                # SLOs on a 0.05 s grid (so that some applications share an SLO), rates
                # log-uniform in [0.2, 60] req/s with three decimals.
                slo = round(rng.randint(round(lo / 0.05), round(hi / 0.05)) * 0.05, 2)
                rate = round(0.2 * (300.0 ** rng.random()), 3)
                apps.append({"name": f"a{a}", "slo": slo, "rate": rate})
            cases.append({"id": f"{model}-random-{k}", "model": model, "applications": apps})
    # One case per line, so that a diff shows which cases changed.
    with open(args.out, "w") as f:
        f.write('{"generator": "generate_cases.py", "seed": %d, "cases": [\n' % args.seed)
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"{len(cases)} cases -> {args.out}")


if __name__ == "__main__":
    main()
