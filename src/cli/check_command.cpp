// dcsim check: placeholder until its issue lands.

#include "commands.hpp"

namespace sim::cli {

int check_command(const Args& /*args*/, std::ostream& /*out*/, std::ostream& /*err*/) {
  throw UsageError("not implemented yet");
}

}  // namespace sim::cli
