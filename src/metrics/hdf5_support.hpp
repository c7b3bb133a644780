#pragma once
// Private helpers shared by the HDF5 request writer and reader: RAII identifiers, error
// reporting, and the column layout of requests.h5 (defined once, here).

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/metrics/request_record.hpp"

namespace sim::metrics::h5 {

inline constexpr const char* kFormat = "dcsim.requests";
inline constexpr std::int32_t kVersion = 1;

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id(Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), closer_(o.closer_) {}
  Id& operator=(Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      closer_ = o.closer_;
    }
    return *this;
  }
  ~Id() { reset(); }
  void reset() noexcept {
    if (id_ >= 0 && closer_ != nullptr) (void)closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  /// Closes now and reports failure (a file's close is where buffered data is written).
  herr_t close() {
    herr_t rc = 0;
    if (id_ >= 0 && closer_ != nullptr) rc = closer_(id_);
    id_ = H5I_INVALID_HID;
    return rc;
  }
  [[nodiscard]] hid_t get() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// The lock every use of the HDF5 library holds: Debian's libhdf5 is built without its
/// thread-safety option, so concurrent runs (dcsim sweep -j N) must take turns inside it.
/// Recursive because entry points nest (a writer's destructor closing what close() opened).
std::recursive_mutex& library_mutex();

/// Holds library_mutex() and turns HDF5's automatic error printing off for its lifetime
/// (failures become exceptions carrying the library's message instead), then restores the
/// previous handler. Every entry point into HDF5 starts with one, before any Id it creates.
class QuietErrors {
 public:
  QuietErrors() : lock_(library_mutex()) {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  std::unique_lock<std::recursive_mutex> lock_;  // first: taken before, released after the rest
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The innermost message on HDF5's error stack (then clears it), or "" if empty.
std::string take_error_message();

/// Throws std::runtime_error "<path>: <what>: <hdf5 message>" if rc < 0; returns rc otherwise.
hid_t check(hid_t rc, const std::filesystem::path& path, std::string_view what);

template <typename T>
hid_t native_type();
template <>
inline hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}
template <>
inline hid_t native_type<std::uint32_t>() {
  return H5T_NATIVE_UINT32;
}
template <>
inline hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}
template <>
inline hid_t native_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
inline hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}

// Little-endian file types, fixed so the file is the same on every host.
template <typename T>
hid_t file_type();
template <>
inline hid_t file_type<std::uint8_t>() {
  return H5T_STD_U8LE;
}
template <>
inline hid_t file_type<std::uint32_t>() {
  return H5T_STD_U32LE;
}
template <>
inline hid_t file_type<std::uint64_t>() {
  return H5T_STD_U64LE;
}
template <>
inline hid_t file_type<std::int32_t>() {
  return H5T_STD_I32LE;
}
template <>
inline hid_t file_type<std::int64_t>() {
  return H5T_STD_I64LE;
}

inline constexpr const char* kClassLabels = "0=strict,1=best_effort";
inline constexpr const char* kOutcomeLabels = "0=ok,1=slo_miss,2=dropped";

/// Struct-of-arrays buffer of records: the single definition of the column names and types.
struct Columns {
  std::vector<std::uint64_t> id;
  std::vector<std::uint32_t> function;
  std::vector<std::uint32_t> application;
  std::vector<std::uint8_t> cls;
  std::vector<std::int64_t> arrival_ns;
  std::vector<std::int64_t> dispatch_ns;
  std::vector<std::int64_t> start_ns;
  std::vector<std::int64_t> finish_ns;
  std::vector<std::int64_t> queue_wait_ns;
  std::vector<std::int64_t> batching_wait_ns;
  std::vector<std::int64_t> cold_start_wait_ns;
  std::vector<std::int64_t> execution_ns;
  std::vector<std::uint32_t> batch_size;
  std::vector<std::int32_t> device;
  std::vector<std::int32_t> slice;
  std::vector<std::uint8_t> outcome;
  std::vector<std::int64_t> slo_ns;

  /// Calls f(name, vector&) for every column in file order.
  template <typename F>
  void for_each(F&& f) {
    f("id", id);
    f("function", function);
    f("application", application);
    f("class", cls);
    f("arrival_ns", arrival_ns);
    f("dispatch_ns", dispatch_ns);
    f("start_ns", start_ns);
    f("finish_ns", finish_ns);
    f("queue_wait_ns", queue_wait_ns);
    f("batching_wait_ns", batching_wait_ns);
    f("cold_start_wait_ns", cold_start_wait_ns);
    f("execution_ns", execution_ns);
    f("batch_size", batch_size);
    f("device", device);
    f("slice", slice);
    f("outcome", outcome);
    f("slo_ns", slo_ns);
  }

  [[nodiscard]] std::size_t size() const { return id.size(); }
  void append(const RequestRecord& r);
  [[nodiscard]] RequestRecord row(std::size_t i) const;
};

}  // namespace sim::metrics::h5
