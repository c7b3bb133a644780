#pragma once
/// dcsim's own shared modules: the parts of dcsim that need a large library (HDF5 for
/// requests.h5, MPI for `dcsim sweep` under mpirun) are built as small shared objects that are
/// loaded on first use, so that every other command starts without mapping and relocating
/// those libraries and their dependencies (HDF5 alone brings libcurl and its TLS, Kerberos,
/// LDAP and SSH chain). Each module exports one C function returning a table of entry points.

#include <string>
#include <vector>

namespace sim::config {

/// Where a module named `file` (e.g. "libdcsim_hdf5.so") is looked for, in order: the directory
/// of the running executable (/proc/self/exe), then the build directory CMake puts the modules
/// in (compiled in, for the tests and the Python extension, which run from elsewhere).
std::vector<std::string> module_candidates(const std::string& file);

/// Loads the module `file` (once per process; it is never unloaded) and returns the address of
/// its `symbol`. `global` makes the module's libraries' symbols visible to libraries they load
/// in turn (Open MPI's components). `purpose` says what needs it ("requests.h5 output").
/// Throws std::runtime_error naming the file and every place looked in when it is missing, or
/// the loader's message when it is found but cannot be loaded.
void* load_module_symbol(const std::string& file, const char* symbol, const std::string& purpose,
                         bool global = false);

/// Throws std::runtime_error when the module `file` was built for interface version `found`
/// and this dcsim needs `expected`: a module left beside the executable by another build.
void check_module_abi(const std::string& file, int found, int expected);

/// load_module_symbol for a module whose symbol is its table of entry points, an `Api` whose
/// member `abi` is the interface version it was built for; checks it against `abi`.
template <class Api>
const Api& load_module_api(const std::string& file, const char* symbol, int abi,
                           const std::string& purpose, bool global = false) {
  const auto* api = static_cast<const Api*>(load_module_symbol(file, symbol, purpose, global));
  check_module_abi(file, api->abi, abi);
  return *api;
}

}  // namespace sim::config
