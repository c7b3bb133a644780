#include "partition_plan.hpp"

#include <algorithm>

namespace sim::platform::serverless {

std::optional<PartitionPlan> plan_partition(const Fn& fn, const policy::PartitionSpec& spec,
                                            double host_bps, double pcie_bps) {
  const int n = static_cast<int>(fn.layers.size());
  int prev = -1;
  for (const int c : spec.cut_after) {
    if (n == 0 || c <= prev || c > n - 2) return std::nullopt;
    prev = c;
  }
  const int parts = static_cast<int>(spec.cut_after.size()) + 1;
  // Each part: its layers' share of bytes and load; the pipeline's E, N and I (Table 4.1).
  PartitionPlan plan;
  std::vector<PartSetup>& setup = plan.parts;
  setup.resize(static_cast<std::size_t>(parts));
  double max_exec = 0.0, max_transfer = 0.0, latency = 0.0;
  int k = 0;
  double share = 0.0, exec = 0.0;
  std::size_t next_cut = 0;
  for (int i = 0; i < n; ++i) {
    const auto& l = fn.layers[static_cast<std::size_t>(i)];
    share += fn.layer_share[static_cast<std::size_t>(i)];
    exec += l.exec_s;
    latency += l.exec_s;
    const bool cut = next_cut < spec.cut_after.size() && spec.cut_after[next_cut] == i;
    if (cut || i == n - 1) {
      auto& ps = setup[static_cast<std::size_t>(k)];
      ps.bytes = fn.bytes * share;
      ps.load_s = fn.model->cold_start->load_s.value * share;
      ps.part = k;
      ps.parts = parts;
      max_exec = std::max(max_exec, exec);
      share = exec = 0.0;
      ++k;
    }
    if (cut) {
      max_transfer = std::max(max_transfer, l.transfer_s);
      latency += l.transfer_s;
      ++next_cut;
    }
  }
  plan.interval_s = std::max(max_exec, max_transfer);
  plan.latency_s = latency;
  // Model completion (§4.2.5): the rest of the model comes from the replica's other parts
  // at the host-to-host rate, then loads and copies; the smallest part finishes last.
  double least = fn.bytes;
  for (const auto& q : setup)
    least = std::min(least, q.bytes);
  const double rest = fn.bytes - least;
  plan.completion_s = spec.complete ? rest * 8.0 / host_bps +
                                          fn.model->cold_start->load_s.value * rest / fn.bytes +
                                          rest * 8.0 / pcie_bps
                                    : -1.0;
  return plan;
}

}  // namespace sim::platform::serverless
