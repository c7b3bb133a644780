#pragma once
// dcsim's HDF5 module (libdcsim_hdf5.so): the requests.h5 writer and reader, the only code that
// calls HDF5. It is a shared object of dcsim's own, linked to HDF5 and loaded on first use
// (hdf5_request_writer.cpp, sim/config/module.hpp), so that the commands that never touch
// requests.h5 do not load HDF5 and the libraries it needs (libcurl and its TLS, Kerberos, LDAP
// and SSH chain): they start in a fraction of the time.
//
// C++ types cross the boundary: the module is built by the same build, from the same headers,
// as the programs that load it. kAbi guards against a module left over from another version.

#include <cstddef>
#include <filesystem>
#include <memory>

#include "sim/metrics/hdf5_request_writer.hpp"

namespace sim::metrics::h5 {

inline constexpr int kAbi = 1;
inline constexpr const char* kModuleFile = "libdcsim_hdf5.so";
inline constexpr const char* kModuleSymbol = "dcsim_hdf5_module";

/// The module's entry points: the writer (arguments as Hdf5RequestWriter's) and the reader
/// (as read_requests_h5).
struct ModuleApi {
  int abi;
  std::unique_ptr<RequestWriter> (*make_writer)(std::filesystem::path path, NameTables names,
                                                std::size_t chunk_rows, int deflate_level);
  RequestFile (*read_file)(const std::filesystem::path& path);
};

// Defined in the module (hdf5_writer.cpp, hdf5_request_reader.cpp).
std::unique_ptr<RequestWriter> make_writer(std::filesystem::path path, NameTables names,
                                           std::size_t chunk_rows, int deflate_level);
RequestFile read_file(const std::filesystem::path& path);

}  // namespace sim::metrics::h5
