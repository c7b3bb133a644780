"""dcsim-plot harmonybatch: predicted (dcsim plan --format json) against simulated cost, SLO
violations and maximum latency of HarmonyBatch, BATCH and MBS+ runs."""

import json
import os

from .common import fail, pyplot, save


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}: line {e.lineno}: not valid JSON ({e.msg})")


def _row(spec):
    if "=" not in spec or "," not in spec.split("=", 1)[1]:
        fail(f"{spec}: expected LABEL=PLAN.json,RUN_DIR")
    label, rest = spec.split("=", 1)
    plan_path, run_dir = rest.split(",", 1)
    plan = _load(plan_path)
    summary = _load(os.path.join(run_dir, "summary.json"))
    if "function_billing" not in summary:
        fail(f"{run_dir}/summary.json: no function_billing (the scenario needs platform.billing)")
    billing = summary["function_billing"]
    violated = with_slo = 0
    worst = 0.0  # simulated max latency over the predicted one (t_w + L_max), worst application
    for group in plan["groups"]:
        for app in group["applications"]:
            name = f"g{group['group']}.{app['name']}"
            fn = summary["per_function"].get(name)
            if fn is None:
                continue
            violated += fn["slo"]["violated"]
            with_slo += fn["slo"]["with_slo"]
            if app["predicted_max_latency_s"] > 0:
                worst = max(worst, fn["latency_s"]["max"] / app["predicted_max_latency_s"])
    return {
        "label": label,
        "predicted": plan["cost_per_request"],
        "simulated": billing["usd_per_request"],
        "violations": violated / with_slo if with_slo else 0.0,
        "latency_ratio": worst,
        "batch": billing["requests"] / billing["invocations"] if billing["invocations"] else 0.0,
    }


def compare(args):
    rows = [_row(s) for s in args.runs]
    base = rows[0]["simulated"] or 1.0
    print("| run | predicted $/req | simulated $/req | sim/pred | norm. cost (sim) | "
          "SLO violations | max latency / predicted | mean batch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['predicted']:.4e} | {r['simulated']:.4e} | "
              f"{r['simulated'] / r['predicted']:.3f} | {r['simulated'] / base:.2f} | "
              f"{100 * r['violations']:.2f}% | {r['latency_ratio']:.3f} | {r['batch']:.2f} |")
    if args.out:
        plt = pyplot()
        figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        x = range(len(rows))
        width = 0.4
        left.bar([i - width / 2 for i in x], [r["predicted"] / base for r in rows], width,
                 label="predicted (eq. 6)")
        left.bar([i + width / 2 for i in x], [r["simulated"] / base for r in rows], width,
                 label="simulated (billing)")
        left.set_ylabel(f"cost per request (normalised to {rows[0]['label']})")
        right.bar(list(x), [100 * r["violations"] for r in rows])
        right.set_ylabel("SLO violations (%)")
        for axes in (left, right):
            axes.set_xticks(list(x))
            axes.set_xticklabels([r["label"] for r in rows], rotation=30, ha="right")
            axes.grid(True, axis="y", alpha=0.3)
        left.legend()
        figure.suptitle(args.title or "HarmonyBatch: predicted and simulated cost")
        figure.tight_layout()
        save(figure, args.out)


def register(sub):
    p = sub.add_parser("harmonybatch",
                       help="predicted vs simulated cost and SLO violations of plan runs")
    p.add_argument("runs", nargs="+",
                   help="LABEL=PLAN.json,RUN_DIR (plan from dcsim plan --format json; the first "
                        "run is the normalisation base)")
    p.add_argument("-o", "--out", help="also plot to this path without extension")
    p.add_argument("--title", help="figure title")
    p.set_defaults(handler=compare)
