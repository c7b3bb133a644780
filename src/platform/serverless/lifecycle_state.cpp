#include <array>
#include <stdexcept>
#include <string>

#include "model.hpp"

namespace sim::platform::serverless {
namespace {

[[noreturn]] void illegal(InstanceEvent event, InstanceState state) {
  throw std::logic_error("serverless platform: instance event " +
                         std::to_string(static_cast<int>(event)) + " in state " +
                         std::string(policy::to_string(state)));
}

}  // namespace

Lifecycle::Lifecycle(Time created, StateCounts& counts)
    : counts_(&counts), created_(created), state_since_(created) {
  ++counts_->n_[static_cast<std::size_t>(state_)];
  ++counts_->changes_;
}

void Lifecycle::transition(InstanceEvent event, Time now) {
  const InstanceState s = state_;
  transition_state(event, now);
  --counts_->n_[static_cast<std::size_t>(s)];
  ++counts_->n_[static_cast<std::size_t>(state_)];
  ++counts_->changes_;
}

void Lifecycle::transition_state(InstanceEvent event, Time now) {
  const InstanceState s = state_;
  switch (event) {
    case InstanceEvent::kReady:
      // Idle already: the head or a part of a partitioned replica, ready once the whole
      // replica (or the model completion) is.
      if (s != InstanceState::kColdStarting && s != InstanceState::kIdle) illegal(event, s);
      state_ = InstanceState::kIdle;
      state_since_ = ready_at_ = idle_since_ = now;
      return;
    case InstanceEvent::kDispatched:
      if (s != InstanceState::kIdle) illegal(event, s);
      state_ = InstanceState::kBusy;
      state_since_ = now;
      return;
    case InstanceEvent::kBatchDone:
      if (s != InstanceState::kBusy && s != InstanceState::kDraining) illegal(event, s);
      state_ = InstanceState::kIdle;
      state_since_ = idle_since_ = now;
      return;
    case InstanceEvent::kDrain:
      // A draining instance keeps the time it became busy.
      if (s != InstanceState::kBusy && s != InstanceState::kDraining) illegal(event, s);
      state_ = InstanceState::kDraining;
      return;
    case InstanceEvent::kTerminate:
      state_ = InstanceState::kTerminated;
      return;
  }
}

void check_state_counts(const Fn& fn, const Instances& instances) {
  std::array<int, 5> scan{};
  for (const InstanceId id : fn.instances)
    ++scan[static_cast<std::size_t>(instances.at(id)->life.state())];
  // Terminated instances have left fn.instances; only the live states compare.
  for (const InstanceState s : {InstanceState::kColdStarting, InstanceState::kIdle,
                                InstanceState::kBusy, InstanceState::kDraining}) {
    if (scan[static_cast<std::size_t>(s)] != fn.states[s]) {
      throw std::logic_error("serverless platform: function " + fn.spec.name + " counts " +
                             std::to_string(fn.states[s]) + " instances " + policy::to_string(s) +
                             ", a scan finds " + std::to_string(scan[static_cast<std::size_t>(s)]));
    }
  }
}

}  // namespace sim::platform::serverless
