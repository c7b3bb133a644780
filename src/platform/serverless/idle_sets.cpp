// Idle sets: with a dispatcher that keeps each queue's idle instances itself (policy::IdleSet),
// the platform reports every change of a queue's dispatchable instances instead of scanning
// them and building their views on every dispatch (a third of a 2,000-host run's time).
// The dispatcher sees the same instances at every dispatch either way.
//
// Used only where dispatchability has few causes (the ControlPlane constructor): cluster-wide
// dispatch (an instance is in one queue) and no activation memory (activations_fit() always
// holds). An instance is then dispatchable while its id is in its queue's idle ids and it is
// idle, not held and on an available host. It enters in became_idle() and leaves in
// run_batch() and terminate(); terminate() also tells the set to forget it (IdleSet::forget),
// since the set keeps state beyond membership and no instance comes back; anything else that
// changes dispatchability or a dispatcher's view of an idle instance (a host's availability,
// `held`, a model completion's latency) calls dispatchability_changed(), and each set is rebuilt by
// the scan before its next dispatch.

#include <algorithm>
#include <stdexcept>

#include "control_plane.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

bool ControlPlane::dispatchable(const Inst& i) const {
  return i.life.state() == InstanceState::kIdle && !i.held && fleet_->host(i.loc.host).available;
}

void ControlPlane::enter_idle_set(Queue& q, const Inst& inst) {
  if (inst.activation_gb > 0) {
    throw std::logic_error("serverless platform: idle sets with activation memory");
  }
  auto& d = *q.dispatchable;
  const auto at = std::lower_bound(d.ids.begin(), d.ids.end(), inst.id);
  if (at == d.ids.end() || *at != inst.id) {
    d.ids.insert(at, inst.id);
    ++d.batch_sizes[inst.config.max_batch];
  }
  d.set->insert(instance_view(inst));  // again if a member: its view may have changed
}

void ControlPlane::leave_idle_set(Queue& q, InstanceId id) {
  // The scan would drop the id at the next dispatch; dropping it now keeps `idle` short.
  if (const auto at = std::lower_bound(q.idle.begin(), q.idle.end(), id);
      at != q.idle.end() && *at == id) {
    q.idle.erase(at);
  }
  auto& d = *q.dispatchable;
  const auto at = std::lower_bound(d.ids.begin(), d.ids.end(), id);
  if (at == d.ids.end() || *at != id) return;
  d.ids.erase(at);
  const Inst* i = find(id);
  if (i == nullptr) throw std::logic_error("serverless platform: idle set of a dead instance");
  const auto b = d.batch_sizes.find(i->config.max_batch);
  if (--b->second == 0) d.batch_sizes.erase(b);
  d.set->erase(id);
}

void ControlPlane::resync_idle_set(Queue& q) {
  auto& d = *q.dispatchable;
  for (const InstanceId id : d.ids)
    d.set->erase(id);
  d.ids.clear();
  d.batch_sizes.clear();
  // The scan's rules (scan_idle without activations).
  std::size_t kept = 0;
  for (const InstanceId id : q.idle) {
    const Inst* i = find(id);
    if (i == nullptr || i->life.state() != InstanceState::kIdle || i->held) continue;
    q.idle[kept++] = id;
    if (fleet_->host(i->loc.host).available) enter_idle_set(q, *i);
  }
  q.idle.resize(kept);
  d.epoch = dispatchable_epoch_;
}

void ControlPlane::check_idle_set(const Queue& q) const {
  // The set is the scan's result: the ids of q.idle whose instances are dispatchable.
  std::vector<InstanceId> scan;
  for (const InstanceId id : q.idle) {
    const Inst* i = id < by_id_.size() ? by_id_[static_cast<std::size_t>(id)] : nullptr;
    if (i != nullptr && dispatchable(*i)) scan.push_back(id);
  }
  if (scan != q.dispatchable->ids) {
    throw std::logic_error("serverless platform: an idle set differs from the scan");
  }
}

}  // namespace sim::platform::serverless
