// Hdf5RequestWriter and read_requests_h5 in the programs: thin forwarders to dcsim's HDF5
// module, loaded on first use (hdf5_module.hpp).

#include "sim/metrics/hdf5_request_writer.hpp"

#include "hdf5_module.hpp"
#include "sim/config/module.hpp"

namespace sim::metrics {

namespace {

const h5::ModuleApi& hdf5_module() {
  // Thread-safe once: concurrent sweep runs may all open their first requests.h5 together. A
  // load that throws is retried by the next call.
  static const h5::ModuleApi& api = config::load_module_api<h5::ModuleApi>(
      h5::kModuleFile, h5::kModuleSymbol, h5::kAbi, "requests.h5 (HDF5) output");
  return api;
}

}  // namespace

std::unique_ptr<RequestWriter> make_hdf5_request_writer(std::filesystem::path path,
                                                        NameTables names, std::size_t chunk_rows,
                                                        int deflate_level) {
  return hdf5_module().make_writer(std::move(path), std::move(names), chunk_rows, deflate_level);
}

Hdf5RequestWriter::Hdf5RequestWriter(std::filesystem::path path, NameTables names,
                                     std::size_t chunk_rows, int deflate_level)
    : writer_(
          make_hdf5_request_writer(std::move(path), std::move(names), chunk_rows, deflate_level)) {}

Hdf5RequestWriter::~Hdf5RequestWriter() = default;

void Hdf5RequestWriter::write(const RequestRecord& r) {
  writer_->write(r);
}

void Hdf5RequestWriter::extend_names(const NameTables& grown) {
  writer_->extend_names(grown);
}

void Hdf5RequestWriter::close() {
  writer_->close();
}

std::uint64_t Hdf5RequestWriter::records_written() const {
  return writer_->records_written();
}

RequestFile read_requests_h5(const std::filesystem::path& path) {
  return hdf5_module().read_file(path);
}

}  // namespace sim::metrics
