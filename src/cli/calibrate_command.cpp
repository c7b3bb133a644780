// dcsim calibrate: placeholder until its issue lands.

#include "commands.hpp"

namespace sim::cli {

int calibrate_command(const Args& /*args*/, std::ostream& /*out*/, std::ostream& /*err*/) {
  throw UsageError("not implemented yet");
}

}  // namespace sim::cli
