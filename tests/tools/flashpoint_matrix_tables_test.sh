#!/usr/bin/env bash
# scenarios/flashpoint/matrix_tables.py: flashpoint.md's per-technique means from hand-made
# summaries, both run-directory namings, the later directory winning, the backlog rule and the
# cold-start pairs without a value.
set -euo pipefail
script="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
summary() {  # dir name cold_total_s mean_latency left
  mkdir -p "$dir/$1/$2"
  printf '{"latency_s": {"mean": %s, "p99": 1}, "cold_starts": {"total_s": %s},
  "requests_arrived": 1000, "requests_in_system_at_end": %s}\n' "$4" "$3" "$5" \
    > "$dir/$1/$2/summary.json"
}
summary a t5-3b-atl-bl 100 10 0              # dcsim reproduce's naming: Twitter
summary a t5-3b-atl-lc 4 2 0                 # replaced by b's
summary b twitter-t5-3b-atl-lc 5 2 0         # run.sh's naming: 20x, 5x
summary a twitter-t5-3b-owk-bl 60 6 0
summary a twitter-t5-3b-owk-lc 6 3 0         # 10x, 2x
summary a twitter-t5-3b-tsk-bl 100 90 200    # 20% of the arrivals left: pair left out
summary a twitter-t5-3b-tsk-lc 1 1 0
summary a twitter-gpt2-xl-sm-bl 0 4 0        # no completed cold start: e2e only, 1x
summary a twitter-gpt2-xl-sm-lc 0 4 0
summary a azure-t5-3b-atl-bl 10 1 0
out=$(python3 "$script" "$dir/a" "$dir/b" --section techniques)
# Cold start: (20 + 10) / 2 = 15x over 2 pairs; end to end: (5 + 2 + 1) / 3 = 2.67x; Azure has
# no LC run.
want="| LC | 15.41x | 15.00x (n=2) | 7.93x | - | 4.07x | 2.67x (n=3) | 2.28x | - |"
grep -qF -- "$want" <<< "$out" || { echo "bad LC row: $out"; exit 1; }
grep -qF "the end): twitter-t5-3b-tsk-bl" <<< "$out" || { echo "bad left-out list: $out"; exit 1; }
# Without the backlog rule the TSK pair counts: cold (20 + 10 + 100) / 3, e2e (5 + 2 + 1 + 90) / 4.
out=$(python3 "$script" "$dir/a" "$dir/b" --section techniques --max-backlog 1)
want="| LC | 15.41x | 43.33x (n=3) | 7.93x | - | 4.07x | 24.50x (n=4) | 2.28x | - |"
grep -qF -- "$want" <<< "$out" || { echo "bad LC row without the backlog rule: $out"; exit 1; }
