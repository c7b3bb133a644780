#pragma once
// The dcsim subcommands. Each takes its arguments (without the subcommand name) and returns the
// process exit code; errors are thrown and turned into messages and exit codes by main().

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/gpu_models/model_catalog.hpp"
#include "sim/scenario/registry.hpp"

namespace sim::cli {

using Args = std::vector<std::string>;

/// Exit codes: 0 success, 1 invalid input or failed run, 2 usage error, 130 interrupted.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 130;

/// Thrown for a malformed command line; main() prints it with a pointer to --help.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run_command(const Args& args, std::ostream& out, std::ostream& err);
int validate_command(const Args& args, std::ostream& out, std::ostream& err);
int list_command(const Args& args, std::ostream& out, std::ostream& err);
int describe_command(const Args& args, std::ostream& out, std::ostream& err);
int docs_command(const Args& args, std::ostream& out, std::ostream& err);
int trace_info_command(const Args& args, std::ostream& out, std::ostream& err);
int model_info_command(const Args& args, std::ostream& out, std::ostream& err);
int fit_command(const Args& args, std::ostream& out, std::ostream& err);
int flows_command(const Args& args, std::ostream& out, std::ostream& err);
int plan_command(const Args& args, std::ostream& out, std::ostream& err);
int calibrate_command(const Args& args, std::ostream& out, std::ostream& err);
int check_command(const Args& args, std::ostream& out, std::ostream& err);
int sweep_command(const Args& args, std::ostream& out, std::ostream& err);
int reproduce_command(const Args& args, std::ostream& out, std::ostream& err);

/// The generated scenario reference, as written to docs/scenario-reference.md.
std::string scenario_reference(const scenario::Registry& registry);

/// The model catalog from data_dir()/models.
gpu::ModelCatalog load_catalog();

/// Installs the handler of SIGINT, SIGTERM and SIGHUP; interrupt_requested() then reports
/// the first of them, and further ones are ignored so that the write-out completes.
void install_interrupt_handler();
/// True once a stop signal arrived; polled by long-running commands.
bool interrupt_requested();

}  // namespace sim::cli
