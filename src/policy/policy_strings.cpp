#include "sim/policy/cold_start_sourcing.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::policy {

const char* to_string(InstanceState s) {
  switch (s) {
    case InstanceState::kColdStarting:
      return "cold-starting";
    case InstanceState::kIdle:
      return "idle";
    case InstanceState::kBusy:
      return "busy";
    case InstanceState::kDraining:
      return "draining";
    case InstanceState::kTerminated:
      return "terminated";
  }
  return "?";
}

const char* to_string(ColdStartStage s) {
  switch (s) {
    case ColdStartStage::kNone:
      return "none";
    case ColdStartStage::kDownload:
      return "download";
    case ColdStartStage::kRuntime:
      return "runtime";
    case ColdStartStage::kLoad:
      return "load";
    case ColdStartStage::kCopy:
      return "copy";
  }
  return "?";
}

const char* to_string(SourceKind k) {
  switch (k) {
    case SourceKind::kLocalMemory:
      return "local_memory";
    case SourceKind::kRemoteHost:
      return "remote_host";
    case SourceKind::kStore:
      return "store";
  }
  return "?";
}

}  // namespace sim::policy
