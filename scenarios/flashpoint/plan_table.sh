#!/bin/sh
# Fig. 8.1 analogue: the partition plans of the eq.-4.10 DP (P = the model's layer count, the
# worst-case costs of §4.2.2: store download + load + copy per layer, transfers at 7,506 Mbit/s)
# and those of Gillis and SerFer (250 MB limit), with eq. 4.8's benefit over the full model.
# Usage (repository root): sh scenarios/flashpoint/plan_table.sh
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/main.cpp" <<'EOF'
#include <cstdio>
#include <iostream>
#include "flashpoint/partitioning.hpp"
using namespace sim::policy::flashpoint;
int main() {
  std::vector<LayerCost> l;
  double c, e, t, b;
  while (std::cin >> c >> e >> t >> b) l.push_back({c, e, t, b});
  const int p = static_cast<int>(l.size());
  const auto full = plan_costs(l, {});
  const auto g = plan_costs(l, gillis_cuts(l, 250e6));
  const auto s = plan_costs(l, serfer_cuts(l, 250e6));
  for (long x : {1L, 10L, 100L, 1000L, 3000L}) {
    const auto best = best_plan(l, p, x, p);
    const double tf = average_time_s(full, x, p);
    std::printf("| %ld | %d | %.1f%% | %d | %.1f%% | %d | %.1f%% |\n", x, best.partitions() - 1,
                100 * (1 - average_time_s(best, x, p) / tf), g.partitions() - 1,
                100 * (1 - average_time_s(g, x, p) / tf), s.partitions() - 1,
                100 * (1 - average_time_s(s, x, p) / tf));
  }
}
EOF
g++ -O2 -std=c++20 -Iinclude -Isrc/policies "$tmp/main.cpp" src/policies/flashpoint/partitioning.cpp -o "$tmp/plans"
for m in codebert albert-xxlarge-v2 bart-large dialogpt-large gpt2-xl t5-3b; do
  echo "$m"
  echo "| x | Flashpoint cuts | benefit | Gillis cuts | benefit | SerFer cuts | benefit |"
  echo "|---|---|---|---|---|---|---|"
  python3 - "$m" <<'EOF' | "$tmp/plans"
import json, sys
d = json.load(open("data/models/flashpoint.json"))["models"][sys.argv[1]]
cs = d["cold_start"]
layers = cs["layers"]["value"]
size = cs["size_mb"]["value"] * 1e6
total = sum(layers["cold_start_ms"])
full = size * 8 / 2203e6 + cs["load_s"]["value"] + size * 8 / 75.67e9
for c, e, o in zip(layers["cold_start_ms"], layers["exec_ms"], layers["output_kb"]):
    share = c / total
    print(share * full, e / 1000, o * 1000 * 8 / 7506e6, share * size)
EOF
done
