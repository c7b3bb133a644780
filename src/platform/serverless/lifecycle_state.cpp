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

void Lifecycle::transition(InstanceEvent event, Time now) {
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

}  // namespace sim::platform::serverless
