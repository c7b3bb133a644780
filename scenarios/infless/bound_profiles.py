#!/usr/bin/env python3
"""What the published profiles allow for INFless Fig. 18a / Table 4 on a large-scale load.

  bound_profiles.py SCENARIO [PROFILE_DIR]

For every function of a large-scale scenario (scenarios/infless/large-scale-*.json) it prints the
theoretical throughput upper bound per unified resource (r_up / (beta*threads + SM-%), INFless
eq. (1) and §3.4, beta = 64/142) of
  - OpenFaaS+'s one configuration (batch 1, 2 threads, 10% SMs, INFless §5.1), and
  - the best configuration INFless may choose (Algorithm 1's feasibility: predicted latency,
    measured x 1.1, within t_slo at batch 1 and t_slo/2 above; GPU share > 0),
and, over the whole load, the bound per unified resource of two idealised systems that serve
every function's rate R with exactly R / r_up instances: OpenFaaS+ sized to the load, and INFless
with the best configuration everywhere (no fragments, no rounding). Their ratio bounds what any
configuration choice can give Fig. 18a on this load mix: the measured runs can only be worse for
INFless (rounding, fragments) and, for OpenFaaS+, reflect how far alert scaling got.

Profiles: ../shared/reference/data/infless-profiles/ (`model threads gpu% batch latency_ms`).
DSSM-2365 is LSTM-2365 scaled by the GFLOPs ratio 0.13 / 0.10, as data/models/infless.json.
"""
import json
import pathlib
import sys

BETA = 64.0 / 142.0
OFFSET = 1.1  # INFless §3.3: COP prediction + 10%
PROFILE = {"ssd": ("ssd", 1.0), "mobilenet": ("mobilenet", 1.0), "resnet-50": ("resnet-50", 1.0),
           "textcnn-69": ("textcnn-69", 1.0), "lstm-2365": ("lstm-maxclass-2365", 1.0),
           "dssm-2365": ("lstm-maxclass-2365", 0.13 / 0.10)}


def load(profile_dir):
    tables = {}
    for f in pathlib.Path(profile_dir).glob("*-profile-results.txt"):
        for line in f.read_text().splitlines():
            p = line.split()
            if len(p) < 5:
                continue
            tables.setdefault(p[0], {})[(int(p[1]), int(p[2]), int(p[3]))] = float(p[4])
    return tables


def unit(threads, gpu_pct):
    return BETA * threads + gpu_pct


def main():
    scenario = json.loads(pathlib.Path(sys.argv[1]).read_text())
    root = pathlib.Path(__file__).resolve().parents[2]
    profiles = load(sys.argv[2] if len(sys.argv) > 2
                    else root / "../shared/reference/data/infless-profiles")
    models = {f["name"]: f["model"].split("/")[-1]
              for f in scenario["platform"]["functions"]}
    total = units_of = units_in = 0.0
    print("function | SLO ms | rate | OpenFaaS+ r_up/unit | INFless best r_up/unit (threads, SM%, batch)")
    for w in scenario["workload"]:
        rate = float(w["rate"].split("/")[0])
        slo = float(w["slo"].rstrip("ms"))
        name, scale = PROFILE[models[w["function"]]]
        table = {k: t * scale for k, t in profiles[name].items() if t < 20000}
        of = (1000.0 / table[(2, 10, 1)]) / unit(2, 10)
        feasible = [((b * 1000.0 / t) / unit(c, g), c, g, b) for (c, g, b), t in table.items()
                    if g > 0 and t * OFFSET <= (slo if b == 1 else slo / 2)]
        best = max(feasible)
        total += rate
        units_of += rate / of
        units_in += rate / best[0]
        print(f"{w['function']} | {slo:.0f} | {rate:.0f} | {of:.2f} | {best[0]:.2f} {best[1:]}")
    print(f"load-sized OpenFaaS+: {total / units_of:.3f} req/s per unit; INFless, best everywhere: "
          f"{total / units_in:.3f}; ratio INFless/OpenFaaS+ {units_of / units_in:.2f}")


if __name__ == "__main__":
    main()
