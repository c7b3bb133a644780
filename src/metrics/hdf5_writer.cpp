// The requests.h5 writer (layout in sim/metrics/hdf5_request_writer.hpp), built into dcsim's
// HDF5 module (hdf5_module.hpp); dcsim reaches it through make_hdf5_request_writer().

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "hdf5_chunk_encoder.hpp"
#include "hdf5_module.hpp"
#include "hdf5_support.hpp"
#include "sim/metrics/atomic_file.hpp"

namespace sim::metrics {

namespace {

using h5::check;
using h5::Id;

void write_string_attribute(hid_t loc, const char* name, const std::string& value,
                            const std::filesystem::path& path) {
  const Id type(check(H5Tcopy(H5T_C_S1), path, "H5Tcopy"), H5Tclose);
  check(H5Tset_size(type.get(), value.size() + 1), path, "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), path, "H5Tset_strpad");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), path, "H5Tset_cset");
  const Id space(check(H5Screate(H5S_SCALAR), path, "H5Screate"), H5Sclose);
  const Id attr(check(H5Acreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      path, fmt::format("cannot create attribute {}", name)),
                H5Aclose);
  check(H5Awrite(attr.get(), type.get(), value.c_str()), path,
        fmt::format("cannot write attribute {}", name));
}

template <typename T>
void write_scalar_attribute(hid_t loc, const char* name, T value,
                            const std::filesystem::path& path) {
  const Id space(check(H5Screate(H5S_SCALAR), path, "H5Screate"), H5Sclose);
  const Id attr(
      check(H5Acreate2(loc, name, h5::file_type<T>(), space.get(), H5P_DEFAULT, H5P_DEFAULT), path,
            fmt::format("cannot create attribute {}", name)),
      H5Aclose);
  check(H5Awrite(attr.get(), h5::native_type<T>(), &value), path,
        fmt::format("cannot write attribute {}", name));
}

/// A creation property list that stores no modification times: HDF5 records them by default,
/// which would make two runs of the same scenario differ byte for byte.
Id untimed_plist(hid_t plist_class, const std::filesystem::path& path) {
  Id plist(check(H5Pcreate(plist_class), path, "H5Pcreate"), H5Pclose);
  check(H5Pset_obj_track_times(plist.get(), 0), path, "H5Pset_obj_track_times");
  return plist;
}

void write_string_table(hid_t group, const char* name, const std::vector<std::string>& values,
                        const std::filesystem::path& path) {
  const Id type(check(H5Tcopy(H5T_C_S1), path, "H5Tcopy"), H5Tclose);
  check(H5Tset_size(type.get(), H5T_VARIABLE), path, "H5Tset_size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), path, "H5Tset_cset");
  const hsize_t dims[1] = {values.size()};
  const Id space(check(H5Screate_simple(1, dims, nullptr), path, "H5Screate_simple"), H5Sclose);
  const Id dcpl = untimed_plist(H5P_DATASET_CREATE, path);
  const Id ds(
      check(H5Dcreate2(group, name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            path, fmt::format("cannot create dataset names/{}", name)),
      H5Dclose);
  if (values.empty()) return;
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const auto& v : values)
    ptrs.push_back(v.c_str());
  check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), path,
        fmt::format("cannot write dataset names/{}", name));
}

class Writer final : public RequestWriter {
 public:
  Writer(std::filesystem::path path, NameTables names, std::size_t chunk_rows, int deflate_level);
  ~Writer() override;

  void write(const RequestRecord& r) override;
  void extend_names(const NameTables& grown) override;
  void close() override;
  [[nodiscard]] std::uint64_t records_written() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace

struct Writer::Impl {
  // Declared first so that it is destroyed last: every HDF5 handle below is closed before an
  // unfinished temporary is removed.
  AtomicFile file;
  NameTables names;
  std::size_t chunk_rows;
  Id fid;
  Id requests_group;
  std::vector<Id> datasets;  // in h5::Columns::for_each order
  h5::Columns buffer;
  /// With compression: makes the full chunks' filtered bytes (hdf5_chunk_encoder.hpp).
  std::optional<h5::ChunkEncoder> encoder;
  std::uint64_t flushed = 0;
  bool closed = false;

  Impl(std::filesystem::path path, NameTables n, std::size_t rows)
      : file(std::move(path)), names(std::move(n)), chunk_rows(rows) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  // Closes the handles under the HDF5 lock on every path, including a constructor that threw.
  ~Impl() {
    const h5::QuietErrors quiet;
    datasets.clear();
    requests_group.reset();
    fid.reset();
  }

  [[nodiscard]] const std::filesystem::path& out_path() const { return file.final_path(); }

  // Appends the buffered rows to every column dataset.
  void flush() {
    const std::size_t n = buffer.size();
    if (n == 0) return;
    const hsize_t start[1] = {flushed};
    const hsize_t count[1] = {n};
    const hsize_t new_size[1] = {flushed + n};
    // A whole chunk (every flush but the last): its filtered bytes are made here and written
    // as they are; the last, partial one goes through the library's filters.
    const bool whole_chunk = encoder && n == chunk_rows && flushed % chunk_rows == 0;
    std::size_t column = 0;
    buffer.for_each([&](const char* name, auto& values) {
      using T = typename std::decay_t<decltype(values)>::value_type;
      const hid_t ds = datasets[column++].get();
      check(H5Dset_extent(ds, new_size), out_path(),
            fmt::format("cannot extend requests/{}", name));
      if (whole_chunk) {
        bool deflated = true;
        const auto bytes = encoder->encode(
            {reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(T)},
            sizeof(T), deflated);
        // Filter mask: bit k set = the pipeline's filter k (0 shuffle, 1 deflate) skipped.
        const std::uint32_t mask = deflated ? 0U : 1U << 1;
        check(H5Dwrite_chunk(ds, H5P_DEFAULT, mask, start, bytes.size(), bytes.data()), out_path(),
              fmt::format("cannot write requests/{}", name));
        values.clear();
        return;
      }
      const Id file_space(check(H5Dget_space(ds), out_path(), "H5Dget_space"), H5Sclose);
      check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
            out_path(), "H5Sselect_hyperslab");
      const Id mem_space(check(H5Screate_simple(1, count, nullptr), out_path(), "H5Screate"),
                         H5Sclose);
      check(H5Dwrite(ds, h5::native_type<T>(), mem_space.get(), file_space.get(), H5P_DEFAULT,
                     values.data()),
            out_path(), fmt::format("cannot write requests/{}", name));
      values.clear();
    });
    flushed += n;
  }
};

Writer::Writer(std::filesystem::path path, NameTables names, std::size_t chunk_rows,
               int deflate_level) {
  if (chunk_rows == 0) {
    throw std::invalid_argument(
        fmt::format("{}: Hdf5RequestWriter chunk_rows must be >= 1", path.string()));
  }
  if (deflate_level < 0 || deflate_level > 9) {
    throw std::invalid_argument(
        fmt::format("{}: Hdf5RequestWriter deflate_level must be in [0, 9], got {}", path.string(),
                    deflate_level));
  }
  const h5::QuietErrors quiet;
  impl_ = std::make_unique<Impl>(std::move(path), std::move(names), chunk_rows);
  Impl& m = *impl_;
  const auto& p = m.out_path();
  m.fid = Id(check(H5Fcreate(m.file.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                   p, fmt::format("cannot create HDF5 file {}", m.file.temp_path().string())),
             H5Fclose);
  write_string_attribute(m.fid.get(), "format", h5::kFormat, p);
  write_scalar_attribute<std::int32_t>(m.fid.get(), "version", h5::kVersion, p);

  const Id gcpl = untimed_plist(H5P_GROUP_CREATE, p);
  m.requests_group =
      Id(check(H5Gcreate2(m.fid.get(), "requests", H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), p,
               "cannot create group requests"),
         H5Gclose);
  const Id dcpl = untimed_plist(H5P_DATASET_CREATE, p);
  const hsize_t chunk[1] = {chunk_rows};
  check(H5Pset_chunk(dcpl.get(), 1, chunk), p, "H5Pset_chunk");
  if (deflate_level > 0) {
    // Byte shuffle first: it groups the high-order bytes of the integers, which are mostly
    // equal from one row to the next, so deflate finds long runs.
    check(H5Pset_shuffle(dcpl.get()), p, "H5Pset_shuffle");
    check(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate_level)), p,
          "H5Pset_deflate (is zlib support missing from this HDF5?)");
    m.encoder.emplace();
  }
  const hsize_t dims[1] = {0};
  const hsize_t max_dims[1] = {H5S_UNLIMITED};
  m.buffer.for_each([&](const char* name, auto& values) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    const Id space(check(H5Screate_simple(1, dims, max_dims), p, "H5Screate_simple"), H5Sclose);
    m.datasets.emplace_back(check(H5Dcreate2(m.requests_group.get(), name, h5::file_type<T>(),
                                             space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                                  p, fmt::format("cannot create dataset requests/{}", name)),
                            H5Dclose);
    const std::string_view column = name;
    if (column == "class") {
      write_string_attribute(m.datasets.back().get(), "labels", h5::kClassLabels, p);
    } else if (column == "outcome") {
      write_string_attribute(m.datasets.back().get(), "labels", h5::kOutcomeLabels, p);
    }
    values.reserve(chunk_rows);
  });
}

Writer::~Writer() {
  const h5::QuietErrors quiet;
  impl_.reset();
}

void Writer::write(const RequestRecord& r) {
  Impl& m = *impl_;
  if (m.closed) {
    throw std::logic_error(fmt::format("{}: write() after close()", m.out_path().string()));
  }
  if (r.function >= m.names.functions.size()) {
    throw std::invalid_argument(
        fmt::format("{}: request {}: function id {} has no name (the name table has {} entries)",
                    m.out_path().string(), r.id, r.function, m.names.functions.size()));
  }
  if (r.application >= m.names.applications.size()) {
    throw std::invalid_argument(
        fmt::format("{}: request {}: application id {} has no name (the name table has {} entries)",
                    m.out_path().string(), r.id, r.application, m.names.applications.size()));
  }
  m.buffer.append(r);
  if (m.buffer.size() >= m.chunk_rows) {
    const h5::QuietErrors quiet;
    m.flush();
  }
}

void Writer::extend_names(const NameTables& grown) {
  Impl& m = *impl_;
  if (!extends(grown, m.names)) {
    throw std::invalid_argument(
        fmt::format("{}: the name tables may only grow", m.out_path().string()));
  }
  m.names = grown;
}

void Writer::close() {
  Impl& m = *impl_;
  if (m.closed) {
    throw std::logic_error(fmt::format("{}: close() called twice", m.out_path().string()));
  }
  m.closed = true;
  const h5::QuietErrors quiet;
  m.flush();
  write_scalar_attribute<std::uint64_t>(m.fid.get(), "records", m.flushed, m.out_path());
  // Written last: the tables may have grown while the run discovered functions.
  const Id gcpl = untimed_plist(H5P_GROUP_CREATE, m.out_path());
  const Id names_group(check(H5Gcreate2(m.fid.get(), "names", H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                             m.out_path(), "cannot create group names"),
                       H5Gclose);
  write_string_table(names_group.get(), "functions", m.names.functions, m.out_path());
  write_string_table(names_group.get(), "applications", m.names.applications, m.out_path());
  m.datasets.clear();
  m.requests_group.reset();
  check(m.fid.close(), m.out_path(), "cannot close the HDF5 file");
  m.file.commit();
}

std::uint64_t Writer::records_written() const {
  return impl_->flushed + impl_->buffer.size();
}

std::unique_ptr<RequestWriter> h5::make_writer(std::filesystem::path path, NameTables names,
                                               std::size_t chunk_rows, int deflate_level) {
  return std::make_unique<Writer>(std::move(path), std::move(names), chunk_rows, deflate_level);
}

}  // namespace sim::metrics
