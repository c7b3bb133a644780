// Idle sets: with a dispatcher that keeps each queue's idle instances itself (policy::IdleSet),
// the platform reports every change of a queue's dispatchable instances instead of scanning
// them and building their views on every dispatch (a third of a 2,000-host run's time).
// The dispatcher sees the same instances at every dispatch either way.
//
// Used only where dispatchability has few causes (the ControlPlane constructor): cluster-wide
// dispatch (an instance is in one queue) and no activation memory (activations_fit() always
// holds). An instance is then dispatchable while it is among its queue's idle instances
// (Inst::in_idle) and it is idle, not held and on an available host. It enters in became_idle() and
// leaves in run_batch() and terminate(); terminate() also tells the set to forget it
// (IdleSet::forget), since the set keeps state beyond membership and no instance comes back;
// anything else that changes dispatchability or a dispatcher's view of an idle instance (a host's
// availability, `held`, a model completion's latency) calls dispatchability_changed(), and each set
// is rebuilt by the scan before its next dispatch.

#include <algorithm>
#include <stdexcept>

#include "control_plane.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

bool ControlPlane::dispatchable(const Inst& i) const {
  return i.life.state() == InstanceState::kIdle && !i.held && fleet_->host(i.loc.host).available;
}

void ControlPlane::enter_idle_set(Queue& q, Inst& inst) {
  if (inst.activation_gb > 0) {
    throw std::logic_error("serverless platform: idle sets with activation memory");
  }
  auto& d = *q.dispatchable;
  if (!inst.in_idle_set) {
    inst.in_idle_set = true;
    ++d.members;
    d.batch_sizes.add(inst.config.max_batch);
  }
  d.set->insert(instance_view(inst));  // again if a member: its view may have changed
}

void ControlPlane::leave_idle_set(Queue& q, Inst& inst) {
  // The scan would drop it from the idle instances at the next dispatch; dropping it now
  // keeps them exact.
  inst.in_idle = false;
  if (!inst.in_idle_set) return;
  auto& d = *q.dispatchable;
  inst.in_idle_set = false;
  --d.members;
  d.batch_sizes.remove(inst.config.max_batch);
  d.set->erase(inst.id);
}

std::vector<Inst*> ControlPlane::idle_instances(const Queue& q) const {
  // Ascending ids, as Queue::idle keeps them without idle sets: the set sees its members
  // erased and inserted in that order on a resync.
  std::vector<Inst*> out;
  for (const Fn* fn : q.members) {
    for (const InstanceId id : fn->instances) {
      Inst* i = by_id_[static_cast<std::size_t>(id)];
      if (i != nullptr && i->in_idle) out.push_back(i);
    }
  }
  if (q.members.size() > 1) {
    std::sort(out.begin(), out.end(), [](const Inst* a, const Inst* b) { return a->id < b->id; });
  }
  return out;
}

void ControlPlane::resync_idle_set(Queue& q) {
  auto& d = *q.dispatchable;
  const std::vector<Inst*> idle = idle_instances(q);
  for (Inst* i : idle) {
    if (!i->in_idle_set) continue;
    d.set->erase(i->id);
    i->in_idle_set = false;
  }
  d.members = 0;
  d.batch_sizes.clear();
  // The scan's rules (scan_idle without activations).
  for (Inst* i : idle) {
    if (i->life.state() != InstanceState::kIdle || i->held) {
      i->in_idle = false;
      continue;
    }
    if (fleet_->host(i->loc.host).available) enter_idle_set(q, *i);
  }
  d.epoch = dispatchable_epoch_;
}

void ControlPlane::check_idle_set(const Queue& q) const {
  // The set is the scan's result: the idle instances that are dispatchable.
  std::size_t members = 0;
  for (const Inst* i : idle_instances(q)) {
    if (i->in_idle_set != dispatchable(*i)) {
      throw std::logic_error("serverless platform: an idle set differs from the scan");
    }
    members += i->in_idle_set ? 1 : 0;
  }
  if (members != q.dispatchable->members) {
    throw std::logic_error("serverless platform: an idle set differs from the scan");
  }
}

}  // namespace sim::platform::serverless
