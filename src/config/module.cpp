#include "sim/config/module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#ifndef SIM_MODULE_DIR
#error "SIM_MODULE_DIR (the build directory of dcsim's modules) must be defined"
#endif

namespace sim::config {

std::vector<std::string> module_candidates(const std::string& file) {
  std::vector<std::string> out;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) out.push_back((exe.parent_path() / file).string());
  const std::string built = (std::filesystem::path(SIM_MODULE_DIR) / file).string();
  if (out.empty() || out.front() != built) out.push_back(built);
  return out;
}

void* load_module_symbol(const std::string& file, const char* symbol, const std::string& purpose,
                         bool global) {
  // dlopen is thread-safe, but the error text (dlerror) is per thread and the search should
  // report one consistent story: one load at a time.
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  const auto candidates = module_candidates(file);
  for (const auto& path : candidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (handle == nullptr) {
      const char* why = dlerror();
      throw std::runtime_error(fmt::format("{} needs dcsim's module {}, which cannot be loaded: {}",
                                           purpose, path, why != nullptr ? why : "unknown error"));
    }
    void* entry = dlsym(handle, symbol);
    if (entry == nullptr) {
      throw std::runtime_error(
          fmt::format("{}: {} is not a dcsim module (no symbol {})", purpose, path, symbol));
    }
    return entry;  // never dlclose'd: objects it made may outlive any caller
  }
  throw std::runtime_error(fmt::format(
      "{} needs dcsim's module {}, found neither beside the executable nor in the build "
      "directory (looked for {}); it is built with dcsim and must stay in the directory of the "
      "dcsim executable",
      purpose, file, fmt::join(candidates, " and ")));
}

void check_module_abi(const std::string& file, int found, int expected) {
  if (found != expected) {
    throw std::runtime_error(
        fmt::format("dcsim's module {} is of another version (interface {}, this dcsim needs "
                    "{}): rebuild dcsim",
                    file, found, expected));
  }
}

}  // namespace sim::config
