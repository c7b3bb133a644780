#!/usr/bin/env python3
"""Writes the Protean scenarios (scenarios/protean/**.json) from one table, so that every
experiment x scheme file is consistent. Run from anywhere: python3 make_scenarios.py.

Each runnable file names one scheme preset (scenarios/presets/protean-<scheme>.json: cluster
+ policies) and includes one experiment file (workloads/<experiment>.json: workload, functions,
duration). CI variants (ci/) include the same experiment with a shorter window."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = json.load(open(os.path.join(HERE, "..", "..", "data", "models", "protean.json")))["models"]

# FP32 weights (parameters x 4 bytes) from the models' papers / torchvision model cards: the
# bytes a cold start moves (the Protean profiles give only the batch memory footprint).
# simplified-dla and the language models beyond the named BERT variants: rounded public sizes.
MODEL_MB = {
    "resnet-50": 102, "googlenet": 27, "densenet-121": 32, "dpn-92": 151, "vgg-19": 575,
    "resnet-18": 47, "mobilenet": 17, "mobilenet-v2": 14, "senet-18": 45, "shufflenet-v2": 9,
    "efficientnet-b0": 21, "simplified-dla": 64, "albert": 47, "bert": 440, "deberta": 560,
    "distilbert": 268, "flaubert": 550, "funnel-transformer": 520, "roberta": 500,
    "squeezebert": 205, "gpt-1": 480, "gpt-2": 548,
}
HI = ["resnet-50", "densenet-121", "dpn-92", "vgg-19", "efficientnet-b0"]
LI = ["googlenet", "resnet-18", "mobilenet", "mobilenet-v2", "senet-18", "shufflenet-v2",
      "simplified-dla"]
LLM = ["albert", "bert", "deberta", "distilbert", "flaubert", "funnel-transformer", "roberta",
       "squeezebert"]
MAIN = ["molecule", "infless-llama", "naive-slicing", "protean"]
EXTRA = ["smart-mps-mig", "gpulet", "mig-only"]

FULL = {"duration": "300s", "warmup": "30s"}
CI = {"duration": "40s", "warmup": "10s"}
# The whole WikiBench hour (3,601 s of counts): issue 24's throughput and memory benchmark, ~18 M
# requests at 5000 rps. Not a paper experiment (Protean's runs are 300 s); no CI variant.
HOUR = {"duration": "3600s", "warmup": "30s"}


def solo_ms(m):
    return MODELS[m]["gpu"]["solo_ms"]["value"]


def function(m):
    batch = MODELS[m]["gpu"]["batch_size"]["value"]
    return {"name": m, "model": "protean/" + m, "max_batch": batch, "batch_timeout": "50ms",
            "model_size": f"{MODEL_MB[m]}MB"}


def seconds(d):
    assert d.endswith("s"), d
    return int(d[:-1])


def trace(kind, rate, window, shares, ramp, prerun=None):
    # The load rises linearly from zero over the warm-up (`ramp`): Protean's runs are of a
    # platform in operation with warm containers (§4.1, §4.2); a cold cluster taking the full
    # 5000 rps at t = 0 hands the first second's queue to every new container at once, and under
    # MPS that burst never drains (docs/reproduction/protean.md, Table 4).
    if kind == "wikipedia":
        t = {"type": "wikipedia"}
        tr = [{"window": {"start": "0s", "duration": window}}, {"rescale": {"mean": rate}},
              {"ramp": {"duration": ramp}}]
    elif kind == "twitter":
        t = {"type": "twitter"}
        tr = [{"window": {"start": "470040s", "duration": window}}, {"rescale": {"peak": rate}},
              {"ramp": {"duration": ramp}}]
    else:  # constant
        t = {"type": "constant", "rate": rate}
        tr = []
    if prerun:
        # Before the ramp, so that only the pre-run's start is ramped and the measured part gets
        # the same counts as without a pre-run (docs/traces.md, `prerun`).
        at = next(i for i, x in enumerate(tr) if "ramp" in x)
        tr.insert(at, {"prerun": {"duration": prerun}})
    tr.append({"split": {"assign": "round_robin", "shares": shares}})
    t["transforms"] = tr
    return t


def strict_share(m, weight, slo_factor=3):
    return {"share": weight, "class": "strict", "function": m,
            "slo": f"{slo_factor * solo_ms(m)}ms"}


def be_share(models, weight):
    if len(models) == 1:
        return {"share": weight, "class": "best-effort", "function": models[0]}
    return {"share": weight, "class": "best-effort", "functions": models, "rotate_every": "20s"}


def experiment(desc, kind, rate, shares, models, size, prerun=False):
    # A pre-run (Table 5): the experiment's own window is played once before it, by the same
    # scheme, and left out of the measurement: Protean §4.1 assumes warm containers and §4.2
    # keeps a container until it has been surplus for ~10 minutes, so the platform measured is
    # one in operation that holds the containers its own autoscaler keeps for every model of the
    # rotation (docs/reproduction/protean.md, Table 5, "Start state decided").
    pre = size["duration"] if prerun else None
    t = trace(kind, rate, size["duration"], shares, size["warmup"], pre)
    t["function"] = models[0]  # every arrival is relabelled by the split
    if pre:
        size = {"duration": f"{2 * seconds(size['duration'])}s",
                "warmup": f"{seconds(size['warmup']) + seconds(pre)}s"}
    return {"description": desc, **size, "seed": 7,
            "output": {"requests": "hdf5", "timeseries_period": "1s"},
            "workload": [t],
            "platform": {"functions": [function(m) for m in models]}}


EXPERIMENTS = {}


def add(name, desc, kind, rate, shares, models, schemes, cluster=None, sizes=None):
    EXPERIMENTS[name] = (desc, kind, rate, shares, models, schemes, cluster,
                         sizes or [("full", FULL, ""), ("ci", CI, "ci")])


def opposite(m):
    return LI if m in HI else HI


# §6.1 (Figs. 5, 6, 8): Wikipedia, mean 5000 rps, 50/50, BE from the other class every ~20 s.
for m in ["resnet-50", "vgg-19", "densenet-121", "shufflenet-v2", "senet-18", "mobilenet"]:
    add(f"wiki-{m}", f"Protean §6.1 (Figs. 5, 6, 8): Wikipedia trace scaled to a mean of 5000 rps, "
        f"50% strict {m} (SLO 3x its 7g batch time), 50% best-effort models of the other "
        f"interference class, changing every 20 s.", "wikipedia", "5000/s",
        [strict_share(m, 1), be_share(opposite(m), 1)], [m] + opposite(m),
        MAIN + (EXTRA if m == "resnet-50" else []))
# Issue 24 (performance): wiki-mobilenet over the trace's whole hour, Protean scheme only.
add("wiki-1h-mobilenet", "Issue 24 benchmark (not a paper figure): the Protean §6.1 wiki-mobilenet "
    "experiment over the whole hour of the Wikipedia trace, scaled to a mean of 5000 rps (~18 M "
    "requests), for requests per CPU second and memory against trace length.", "wikipedia",
    "5000/s", [strict_share("mobilenet", 1), be_share(opposite("mobilenet"), 1)],
    ["mobilenet"] + opposite("mobilenet"), ["protean"], sizes=[("full", HOUR, "")])
# §6.2 Fig. 11: Twitter, peak 5000 rps, strict MobileNet.
add("twitter-mobilenet", "Protean §6.2 (Fig. 11): Twitter trace scaled to a peak of 5000 rps, 50% "
    "strict MobileNet, 50% best-effort HI models changing every 20 s.", "twitter", "5000/s",
    [strict_share("mobilenet", 1), be_share(HI, 1)], ["mobilenet"] + HI, MAIN)
# §6.2 Fig. 14: strictness 75/25 and 25/75.
for ratio, (s, b) in {"strict75": (3, 1), "strict25": (1, 3)}.items():
    for m in ["shufflenet-v2", "dpn-92"]:
        add(f"{ratio}-{m}", f"Protean §6.2 (Fig. 14): {s}:{b} strict:best-effort, strict {m}, "
            "best-effort models of the other class changing every 20 s, Wikipedia at 5000 rps.",
            "wikipedia", "5000/s", [strict_share(m, s), be_share(opposite(m), b)],
            [m] + opposite(m), MAIN)
# Table 4: 100% strict ResNet 50.
add("strict100-resnet-50", "Protean Table 4: 100% strict ResNet 50, Wikipedia at 5000 rps.",
    "wikipedia", "5000/s", [strict_share("resnet-50", 1)], ["resnet-50"], MAIN)
# Table 5: 100% best-effort, HI models at random; measured after a pre-run of its own window.
PRERUN = {"be100-hi"}
add("be100-hi", "Protean Table 5: 100% best-effort requests for HI models changing every 20 s, "
    "Wikipedia at 5000 rps; measured after a pre-run of the same window (the platform's start "
    "state built by the scheme's own policies).", "wikipedia", "5000/s", [be_share(HI, 1)], HI,
    MAIN)
# Fig. 15: tight SLO (2x).
for m in ["resnet-50", "shufflenet-v2"]:
    add(f"tight-slo-{m}", f"Protean §6.2 (Fig. 15): SLO 2x the 7g batch time, strict {m}, "
        "50/50, Wikipedia at 5000 rps.", "wikipedia", "5000/s",
        [strict_share(m, 1, 2), be_share(opposite(m), 1)], [m] + opposite(m), MAIN)
# Figs. 12 and 13: language models (VHI) at 128 rps, batch 4.
for m in ["albert", "bert", "flaubert", "gpt-1", "gpt-2"]:
    others = [x for x in LLM if x != m]
    add(f"llm-{m}", f"Protean §6.2 (Fig. {13 if m.startswith('gpt') else 12}): strict {m}, "
        "best-effort other language models changing every 20 s, Wikipedia scaled to a mean of "
        "128 rps, batch 4.", "wikipedia", "128/s", [strict_share(m, 1), be_share(others, 1)],
        [m] + others, MAIN)
# Fig. 9: spot availability (P_rev 0, 0.354, 0.708), ResNet 50.
for level, p in {"high": 0.0, "medium": 0.354, "low": 0.708}.items():
    add(f"spot-{level}-resnet-50", f"Protean §6.1.3 (Fig. 9): {level} spot availability "
        f"(P_rev = {p}: every 300 s each spot worker gets a revocation notice with "
        "probability P_rev (Protean §5: 'at fixed time intervals based on revocation "
        "probability'; the interval is not given, 300 s is an assumption), and a spot request "
        "fails with probability P_rev), strict ResNet 50 / best-effort LI, Wikipedia at "
        "5000 rps.", "wikipedia",
        "5000/s", [strict_share("resnet-50", 1), be_share(LI, 1)], ["resnet-50"] + LI,
        ["spot", "spot-only"] + MAIN,
        cluster={"spot_revocation_interval": "300s", "spot_revocation_probability": p,
                 "p_rev": p})
# Fig. 2: one A100, constant traces, 50/50 strict/BE of one model, (4g, 3g) for MIG schemes.
FIG2 = {"no-mps-or-mig": ("molecule", "exclusive", None),
        "mps-only": ("infless-llama", "mps", None),
        "mig-only": ("mig-only", "exclusive", ["4g.20gb", "3g.20gb"]),
        "mps-mig": ("naive-slicing", "mps", ["4g.20gb", "3g.20gb"]),
        "smart-mps-mig": ("smart-mps-mig", "mps", ["4g.20gb", "3g.20gb"])}
for m, rate in {"simplified-dla": "500/s", "albert": "6/s"}.items():
    add(f"fig2-{m}", f"Protean §2.2 (Fig. 2): one A100-40GB, constant {rate} of {m}, half of "
        "the requests strict (SLO 3x the 7g batch time), half best-effort; (4g, 3g) for every "
        "MIG scheme.", "constant", rate,
        [strict_share(m, 1), {"share": 1, "class": "best-effort"}], [m], list(FIG2),
        cluster={"fig2": True})


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


for name, (desc, kind, rate, shares, models, schemes, cluster, sizes) in EXPERIMENTS.items():
    for variant, size, sub in sizes:
        shares_fixed = json.loads(json.dumps(shares))
        for s in shares_fixed:
            if "function" not in s and "functions" not in s:
                s["function"] = models[0]
        exp = experiment(desc, kind, rate, shares_fixed, models, size, name in PRERUN)
        if cluster and "spot_revocation_interval" in cluster:
            exp["platform"]["cluster"] = {
                "spot_revocation_interval": cluster["spot_revocation_interval"],
                "spot_revocation_probability": cluster["spot_revocation_probability"]}
        write(os.path.join(HERE, sub, "workloads", f"{name}.json"), exp)
        for scheme in schemes:
            doc = {"name": f"{name}-{scheme}"}
            if cluster and cluster.get("fig2"):
                preset, sharing, mig = FIG2[scheme]
                gpu = {"type": "A100-40GB", "count": 1, "sharing": sharing}
                if mig:
                    gpu["mig"] = mig
                doc["preset"] = f"protean-{preset}"
                doc["include"] = ("../" if variant == "full" else "") + f"workloads/{name}.json"
                doc["platform"] = {"cluster": {"hosts": [
                    {"count": 1, "cores": 48, "memory": "128GB", "gpus": [gpu],
                     "market": "on-demand", "price_per_hour": 4.0966}]},
                    "policies": {"autoscaler": {"reconfigure": False}}}
            else:
                doc["preset"] = f"protean-{scheme}"
                doc["include"] = ("../" if variant == "full" else "") + f"workloads/{name}.json"
                if cluster and "p_rev" in cluster and scheme in ("spot", "spot-only"):
                    doc["platform"] = {"policies": {"procurement": {
                        "spot_unavailable": cluster["p_rev"]}}}
            if variant == "full":
                write(os.path.join(HERE, name, f"{scheme}.json"), doc)
            elif scheme in ("protean", "molecule", "infless-llama", "naive-slicing", "spot",
                            "spot-only", "smart-mps-mig") and (
                    name in ("wiki-resnet-50", "wiki-shufflenet-v2", "strict100-resnet-50", "strict75-dpn-92",
                             "be100-hi", "llm-albert", "spot-low-resnet-50", "fig2-simplified-dla")):
                write(os.path.join(HERE, "ci", f"{name}-{scheme}.json"), doc)
