#include "sim/traces/trace_path.hpp"

#include <filesystem>

#include "sim/config/search_path.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {

namespace fs = std::filesystem;

std::vector<std::string> default_trace_search_path(const std::string& repo_root) {
  std::vector<std::string> path = config::search_path_from_env("DCSIM_TRACE_PATH");
  path.emplace_back("../shared/traces");
  path.emplace_back("./traces");
  if (!repo_root.empty()) {
    path.push_back((fs::path(repo_root) / ".." / "shared" / "traces").lexically_normal().string());
    path.push_back((fs::path(repo_root) / "traces").lexically_normal().string());
  }
  return path;
}

std::string find_trace_file(const std::string& name, const std::vector<std::string>& search_path) {
  std::error_code ec;
  const fs::path p(name);
  if (p.is_absolute()) {
    if (fs::is_regular_file(p, ec)) return name;
    if (fs::is_directory(p, ec)) throw TraceError(name, 0, "this is a directory, not a trace file");
    throw TraceError(name, 0, "trace file not found");
  }
  for (const auto& dir : search_path) {
    const fs::path candidate = fs::path(dir) / p;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  if (fs::is_regular_file(p, ec)) return name;
  if (fs::is_directory(p, ec)) throw TraceError(name, 0, "this is a directory, not a trace file");
  std::string searched;
  for (const auto& dir : search_path)
    searched += (searched.empty() ? "" : ", ") + dir;
  throw TraceError(name, 0,
                   "trace file not found (searched " + searched +
                       " and the working directory); trace data are not in the repository: set "
                       "DCSIM_TRACE_PATH or download them with scripts/fetch-traces");
}

}  // namespace sim::traces
