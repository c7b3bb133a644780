#!/usr/bin/env python3
"""Tabulates INFless metrics from dcsim run directories (summary.json).

  collect.py RUN_DIR... [--json]

Per run: SLO compliance (requests still in the system at the end count as violations),
throughput (req/s), cold-start rate (share of requests that waited for a cold start),
unified resource (beta * thread-seconds + 100 * SM-share-seconds, beta = 64/142, INFless
§3.4) per second, throughput per unified resource, fragment ratio (unallocated unified
resource on servers holding an INFless instance, Fig. 17b; servers of 32 threads and 2 GPUs)
cost per request (INFless Table 4 prices: $0.034 per CPU-hour, $2.5 per GPU-hour,
charged per thread and per SM share), and Table 4's CPUs and GPUs per 100 RPS (mean CPU threads
and mean SM shares held -- 1.0 = a whole GPU -- per 100 req/s of throughput), and Fig. 18a's
theoretical throughput upper bound per unified resource (the instances' max_batch / t_exec,
summed and time-weighted by the platform: operator_instances.capacity_request_seconds).
Table 4 as §5.3 measures it (the large-scale runs): CPUs and GPUs per 100 req/s and cost per
request of that upper bound (`*_bound_*`), the only throughput the paper's simulator collects.
data/reproduction/infless.json states the same quantities as expressions for dcsim reproduce.
"""
import json
import pathlib
import sys

BETA = 64.0 / 142.0
CPU_PER_H = 0.034
GPU_PER_H = 2.5


def row(run):
    s = json.loads((pathlib.Path(run) / "summary.json").read_text())
    o = s.get("operator_instances") or {}
    slo = s["slo"]
    stuck = s.get("requests_in_system_at_end", 0)
    met = slo["met"] or 0
    with_slo = (slo["with_slo"] or 0) + stuck
    measured = s["measured_s"]
    threads = o.get("cpu_thread_seconds", 0.0)
    shares = o.get("gpu_share_seconds", 0.0)
    duration = s["duration_s"]
    unified_per_s = (BETA * threads + 100.0 * shares) / duration if duration else 0.0
    completed = s["requests"]["completed"] + s["requests"].get("warmup_excluded", 0)
    cost = threads / 3600 * CPU_PER_H + shares / 3600 * GPU_PER_H
    fc, fg = o.get("free_cpu_fraction_mean", 0.0), o.get("free_gpu_fraction_mean", 0.0)
    frag = (BETA * 32 * fc + 200 * fg) / (BETA * 32 + 200)
    recorded = s["requests"]["recorded"]
    bound = o.get("capacity_request_seconds", 0.0)
    return {
        "run": pathlib.Path(run).name,
        "slo_compliance": met / with_slo if with_slo else None,
        "throughput_rps": s["throughput_rps"],
        "goodput_rps": met / measured if measured else None,
        "cold_start_rate": s["waits_s"]["cold_start_affected"] / recorded if recorded else None,
        "instances": o.get("instances", 0),
        "unified_resource_mean": unified_per_s,
        "rps_per_unified_resource": s["throughput_rps"] / unified_per_s if unified_per_s else None,
        "bound_per_unified_resource": o.get("capacity_request_seconds", 0.0) / duration
        / unified_per_s if unified_per_s else None,
        "fragment_ratio": frag,
        "free_cpu_fraction": fc,
        "free_gpu_fraction": fg,
        "cost_per_request_usd": cost / completed if completed else None,
        "cpus_per_100rps": 100 * threads / duration / s["throughput_rps"]
        if duration and s["throughput_rps"] else None,
        "gpus_per_100rps": 100 * shares / duration / s["throughput_rps"]
        if duration and s["throughput_rps"] else None,
        "cpus_per_100_bound_rps": 100 * threads / bound if bound else None,
        "gpus_per_100_bound_rps": 100 * shares / bound if bound else None,
        "cost_per_bound_request_usd": cost / bound if bound else None,
        "batch_size_mean": s["batch_size_mean"],
    }


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    rows = [row(r) for r in args]
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    keys = list(rows[0].keys()) if rows else []
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in r.values()))


if __name__ == "__main__":
    main()
