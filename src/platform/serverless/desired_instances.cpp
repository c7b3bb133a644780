#include "desired_instances.hpp"

#include <algorithm>
#include <cstddef>

namespace sim::platform::serverless {

void DesiredInstances::autoscaler_decided(const policy::Decisions& d, const Instances& instances) {
  // Flashpoint Fig. 3.2b's "desired" replicas: what the autoscaler asks for, whether or not
  // the cluster can place it yet. Counted in instances (a partitioned replica: its parts), like
  // the reserved and deployed columns.
  double n = 0;
  for (const auto& [id, i] : instances)
    if (i->life.state() != InstanceState::kDraining && !i->stop_after_batch) ++n;
  for (const auto& s : d.start) {
    const auto parts = s.partition ? s.partition->cut_after.size() + 1 : std::size_t{1};
    n += static_cast<double>(s.count) * static_cast<double>(parts);
  }
  for (const auto& s : d.stop) {
    const auto it = instances.find(s.id);
    if (it == instances.end()) continue;
    const Inst& i = *it->second;
    if (i.life.state() == InstanceState::kDraining || i.stop_after_batch) continue;
    n -= 1.0 + static_cast<double>(i.part() == 0 ? i.replica->members.size() : 0);
  }
  desired_ = std::max(n, 0.0);
}

}  // namespace sim::platform::serverless
