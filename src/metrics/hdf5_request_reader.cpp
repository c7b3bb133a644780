// The reader of the file Hdf5RequestWriter writes (layout in hdf5_request_writer.hpp), built into
// dcsim's HDF5 module (hdf5_module.hpp); dcsim reaches it through read_requests_h5().

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "hdf5_module.hpp"
#include "hdf5_support.hpp"

namespace sim::metrics {

namespace {

using h5::check;
using h5::Id;

std::runtime_error bad_file(const std::filesystem::path& path, std::string_view what) {
  return std::runtime_error(fmt::format("{}: {}", path.string(), what));
}

bool link_exists(hid_t loc, const char* name, const std::filesystem::path& path) {
  return check(H5Lexists(loc, name, H5P_DEFAULT), path, fmt::format("H5Lexists {}", name)) > 0;
}

std::string read_string_attribute(hid_t loc, const char* name, const std::filesystem::path& path) {
  const Id attr(
      check(H5Aopen(loc, name, H5P_DEFAULT), path, fmt::format("cannot open attribute {}", name)),
      H5Aclose);
  const Id type(check(H5Aget_type(attr.get()), path, "H5Aget_type"), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0) {
    throw bad_file(path, fmt::format("attribute {} is not a fixed-length string", name));
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  check(H5Aread(attr.get(), type.get(), value.data()), path,
        fmt::format("cannot read attribute {}", name));
  value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
  return value;
}

std::int32_t read_int_attribute(hid_t loc, const char* name, const std::filesystem::path& path) {
  const Id attr(
      check(H5Aopen(loc, name, H5P_DEFAULT), path, fmt::format("cannot open attribute {}", name)),
      H5Aclose);
  const Id type(check(H5Aget_type(attr.get()), path, "H5Aget_type"), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER) {
    throw bad_file(path, fmt::format("attribute {} is not an integer", name));
  }
  std::int32_t value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_INT32, &value), path,
        fmt::format("cannot read attribute {}", name));
  return value;
}

// Length of a 1-D dataset, with a message naming it otherwise.
hsize_t length_1d(hid_t ds, const std::string& where, const std::filesystem::path& path) {
  const Id space(check(H5Dget_space(ds), path, "H5Dget_space"), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) {
    throw bad_file(path, fmt::format("dataset {} is not one-dimensional", where));
  }
  hsize_t dims[1] = {0};
  check(H5Sget_simple_extent_dims(space.get(), dims, nullptr), path, "H5Sget_simple_extent_dims");
  return dims[0];
}

std::vector<std::string> read_string_table(hid_t fid, const char* name,
                                           const std::filesystem::path& path) {
  const std::string where = fmt::format("names/{}", name);
  if (!link_exists(fid, "names", path) || !link_exists(fid, where.c_str(), path)) {
    throw bad_file(path, fmt::format("dataset {} is missing", where));
  }
  const Id ds(
      check(H5Dopen2(fid, where.c_str(), H5P_DEFAULT), path, fmt::format("cannot open {}", where)),
      H5Dclose);
  const Id file_type(check(H5Dget_type(ds.get()), path, "H5Dget_type"), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING || H5Tis_variable_str(file_type.get()) <= 0) {
    throw bad_file(path, fmt::format("dataset {} is not a variable-length string array", where));
  }
  const hsize_t n = length_1d(ds.get(), where, path);
  std::vector<std::string> out;
  if (n == 0) return out;
  const Id mem_type(check(H5Tcopy(H5T_C_S1), path, "H5Tcopy"), H5Tclose);
  check(H5Tset_size(mem_type.get(), H5T_VARIABLE), path, "H5Tset_size");
  check(H5Tset_cset(mem_type.get(), H5T_CSET_UTF8), path, "H5Tset_cset");
  std::vector<char*> ptrs(n, nullptr);
  check(H5Dread(ds.get(), mem_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), path,
        fmt::format("cannot read {}", where));
  out.reserve(n);
  for (char* s : ptrs)
    out.emplace_back(s == nullptr ? "" : s);
  const Id space(check(H5Dget_space(ds.get()), path, "H5Dget_space"), H5Sclose);
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(mem_type.get(), space.get(), H5P_DEFAULT, ptrs.data());
#else
  H5Dvlen_reclaim(mem_type.get(), space.get(), H5P_DEFAULT, ptrs.data());
#endif
  return out;
}

}  // namespace

RequestFile h5::read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw bad_file(path, "no such file");
  }
  const h5::QuietErrors quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    h5::take_error_message();
    throw bad_file(path, "not an HDF5 file");
  }
  const Id fid(
      check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), path, "cannot open the HDF5 file"),
      H5Fclose);
  const bool has_format = check(H5Aexists(fid.get(), "format"), path, "H5Aexists format") > 0;
  const std::string format = has_format ? read_string_attribute(fid.get(), "format", path) : "";
  if (format != h5::kFormat) {
    throw bad_file(path, fmt::format("expected attribute format = \"{}\", found {}", h5::kFormat,
                                     has_format ? "\"" + format + "\"" : "none"));
  }
  const std::int32_t version = read_int_attribute(fid.get(), "version", path);
  if (version != h5::kVersion) {
    throw bad_file(path, fmt::format("unsupported {} version {} (this reader reads {})",
                                     h5::kFormat, version, h5::kVersion));
  }
  if (!link_exists(fid.get(), "requests", path)) {
    throw bad_file(path, "group requests is missing");
  }

  h5::Columns columns;
  std::optional<hsize_t> rows;
  columns.for_each([&](const char* name, auto& values) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    const std::string where = fmt::format("requests/{}", name);
    if (!link_exists(fid.get(), where.c_str(), path)) {
      throw bad_file(path, fmt::format("dataset {} is missing", where));
    }
    const Id ds(check(H5Dopen2(fid.get(), where.c_str(), H5P_DEFAULT), path,
                      fmt::format("cannot open {}", where)),
                H5Dclose);
    const Id type(check(H5Dget_type(ds.get()), path, "H5Dget_type"), H5Tclose);
    const bool is_signed = H5Tget_sign(type.get()) == H5T_SGN_2;
    if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != sizeof(T) ||
        is_signed != std::is_signed_v<T>) {
      throw bad_file(
          path, fmt::format("dataset {}: expected {} {}-bit integers, found another "
                            "type",
                            where, std::is_signed_v<T> ? "signed" : "unsigned", 8 * sizeof(T)));
    }
    const hsize_t n = length_1d(ds.get(), where, path);
    if (rows && *rows != n) {
      throw bad_file(path,
                     fmt::format("dataset {} has {} rows, requests/id has {}", where, n, *rows));
    }
    rows = n;
    values.resize(n);
    if (n > 0) {
      check(H5Dread(ds.get(), h5::native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
            path, fmt::format("cannot read {}", where));
    }
  });

  RequestFile out;
  out.records.reserve(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns.cls[i] > 1) {
      throw bad_file(
          path, fmt::format("requests/class row {}: code {} is not 0 or 1", i, columns.cls[i]));
    }
    if (columns.outcome[i] > 2) {
      throw bad_file(path, fmt::format("requests/outcome row {}: code {} is not 0, 1 or 2", i,
                                       columns.outcome[i]));
    }
    out.records.push_back(columns.row(i));
  }
  out.names.functions = read_string_table(fid.get(), "functions", path);
  out.names.applications = read_string_table(fid.get(), "applications", path);
  return out;
}

}  // namespace sim::metrics
