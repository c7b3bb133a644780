#include "hdf5_support.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace sim::metrics::h5 {

namespace {
herr_t innermost(unsigned n, const H5E_error2_t* err, void* client) {
  // Walking upward starts at the innermost frame (the root cause): keep that one.
  auto* out = static_cast<std::string*>(client);
  if (n == 0 && err != nullptr && err->desc != nullptr) *out = err->desc;
  return 0;
}
}  // namespace

std::recursive_mutex& library_mutex() {
  // The one process-wide object of this layer: it guards a library that is itself global.
  static std::recursive_mutex mutex;
  // HDF5's exit handler flushes the files still open. A file whose close failed (a full disk)
  // stays open inside the library, and flushing it at exit crashed the process after the
  // error had been reported (exit 139 instead of 1). dcsim closes every file it opens, so the
  // handler has nothing else to do. It must be turned off before the library starts: this
  // runs before the first HDF5 call of every entry point (QuietErrors takes this mutex first).
  static const bool exit_handler_off = H5dont_atexit() >= 0;
  (void)exit_handler_off;
  return mutex;
}

std::string take_error_message() {
  std::string msg;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &msg);
  H5Eclear2(H5E_DEFAULT);
  // A failed system call reads "file write failed: time = ..., filename = ..., errno = 28,
  // error message = 'No space left on device', buf = 0x..., ...": keep the reason, which is
  // what a user can act on (the time and addresses would also make the message differ per run).
  const std::string marker = "error message = '";
  if (const auto at = msg.find(marker); at != std::string::npos) {
    const auto begin = at + marker.size();
    const auto end = msg.find('\'', begin);
    if (end != std::string::npos) {
      const auto colon = msg.find(':');
      const std::string head = colon != std::string::npos && colon < at ? msg.substr(0, colon) : "";
      msg = (head.empty() ? "" : head + ": ") + msg.substr(begin, end - begin);
    }
  }
  return msg;
}

hid_t check(hid_t rc, const std::filesystem::path& path, std::string_view what) {
  if (rc < 0) {
    const std::string msg = take_error_message();
    throw std::runtime_error(
        fmt::format("{}: {}{}{}", path.string(), what, msg.empty() ? "" : ": ", msg));
  }
  return rc;
}

void Columns::append(const RequestRecord& r) {
  id.push_back(r.id);
  function.push_back(r.function);
  application.push_back(r.application);
  cls.push_back(static_cast<std::uint8_t>(r.cls));
  arrival_ns.push_back(r.arrival.ns());
  dispatch_ns.push_back(r.dispatch.ns());
  start_ns.push_back(r.start.ns());
  finish_ns.push_back(r.finish.ns());
  queue_wait_ns.push_back(r.queue_wait.ns());
  batching_wait_ns.push_back(r.batching_wait.ns());
  cold_start_wait_ns.push_back(r.cold_start_wait.ns());
  execution_ns.push_back(r.execution.ns());
  batch_size.push_back(r.batch_size);
  device.push_back(r.device);
  slice.push_back(r.slice);
  outcome.push_back(static_cast<std::uint8_t>(r.outcome));
  slo_ns.push_back(r.slo.ns());
}

RequestRecord Columns::row(std::size_t i) const {
  RequestRecord r;
  r.id = id[i];
  r.function = function[i];
  r.application = application[i];
  r.cls = static_cast<RequestClass>(cls[i]);
  r.arrival = Time::from_ns(arrival_ns[i]);
  r.dispatch = Time::from_ns(dispatch_ns[i]);
  r.start = Time::from_ns(start_ns[i]);
  r.finish = Time::from_ns(finish_ns[i]);
  r.queue_wait = Time::from_ns(queue_wait_ns[i]);
  r.batching_wait = Time::from_ns(batching_wait_ns[i]);
  r.cold_start_wait = Time::from_ns(cold_start_wait_ns[i]);
  r.execution = Time::from_ns(execution_ns[i]);
  r.batch_size = batch_size[i];
  r.device = device[i];
  r.slice = slice[i];
  r.outcome = static_cast<Outcome>(outcome[i]);
  r.slo = Time::from_ns(slo_ns[i]);
  return r;
}

}  // namespace sim::metrics::h5
