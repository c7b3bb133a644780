#pragma once
// dcsim's MPI module (libdcsim_mpi.so): the few MPI calls `dcsim sweep` makes under mpirun, on
// MPI_COMM_WORLD, behind a plain C table. The module is linked to MPI and loaded only when the
// process was started by an MPI launcher (mpi_executor.cpp, sim/config/module.hpp), so that
// no other command loads Open MPI and its libraries (open-rte, open-pal, hwloc, libevent, ...).
// The messages are text; return codes are MPI's (0 = MPI_SUCCESS).

extern "C" {

struct DcsimMpiApi {
  int abi;
  int (*init)();
  int (*finalize)();
  void (*abort)(int code);
  int (*rank)(int* rank);
  int (*size)(int* size);
  /// A message from `source` with `tag` (< 0: any) is waiting: sets *flag to 1 and fills
  /// *out_source, *out_tag and *count (chars); otherwise sets *flag to 0.
  int (*iprobe)(int source, int tag, int* flag, int* out_source, int* out_tag, int* count);
  int (*recv)(char* data, int count, int source, int tag);
  int (*send)(const char* data, int count, int dest, int tag);
};

}  // extern "C"

namespace sim::sweep::mpi {
inline constexpr int kAbi = 1;
inline constexpr const char* kModuleFile = "libdcsim_mpi.so";
inline constexpr const char* kModuleSymbol = "dcsim_mpi_module";
}  // namespace sim::sweep::mpi
