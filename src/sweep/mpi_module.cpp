// dcsim's MPI module (mpi_transport.hpp): the table's functions over MPI's C API.

#include <mpi.h>

#include "mpi_transport.hpp"

static_assert(MPI_SUCCESS == 0, "mpi_transport.hpp: 0 means success");

namespace {

int init() {
  return MPI_Init(nullptr, nullptr);
}
int finalize() {
  return MPI_Finalize();
}
void abort_all(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}
int rank(int* out) {
  return MPI_Comm_rank(MPI_COMM_WORLD, out);
}
int size(int* out) {
  return MPI_Comm_size(MPI_COMM_WORLD, out);
}
int iprobe(int source, int tag, int* flag, int* out_source, int* out_tag, int* count) {
  MPI_Status status;
  const int rc = MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag,
                            MPI_COMM_WORLD, flag, &status);
  if (rc != MPI_SUCCESS || *flag == 0) return rc;
  *out_source = status.MPI_SOURCE;
  *out_tag = status.MPI_TAG;
  return MPI_Get_count(&status, MPI_CHAR, count);
}
int recv(char* data, int count, int source, int tag) {
  return MPI_Recv(data, count, MPI_CHAR, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int send(const char* data, int count, int dest, int tag) {
  return MPI_Send(data, count, MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) extern const DcsimMpiApi dcsim_mpi_module;
const DcsimMpiApi dcsim_mpi_module = {
    sim::sweep::mpi::kAbi, init, finalize, abort_all, rank, size, iprobe, recv, send};
}
