#pragma once
/// Progress of a sweep: runs finished of the total, how many ran, were up to date or failed,
/// and the time left estimated from the wall time per executed run so far (which already
/// reflects how many workers run at once).

#include <cstddef>
#include <string>

#include "sim/sweep/sweep_run.hpp"

namespace sim::sweep {

/// "45s", "3m05s", "2h10m".
std::string format_duration(double seconds);

class SweepProgress {
 public:
  explicit SweepProgress(std::size_t total) : total_(total) {}

  void record(const RunReport& report);

  /// "[12/40] 9 ran, 2 up to date, 1 failed, ETA 3m05s" at `elapsed` wall seconds.
  [[nodiscard]] std::string line(double elapsed_seconds) const;

  [[nodiscard]] std::size_t finished() const { return ran_ + up_to_date_ + failed_ + stopped_; }
  [[nodiscard]] std::size_t ran() const { return ran_; }
  [[nodiscard]] std::size_t up_to_date() const { return up_to_date_; }
  [[nodiscard]] std::size_t failed() const { return failed_; }
  [[nodiscard]] std::size_t stopped() const { return stopped_; }

 private:
  std::size_t total_;
  std::size_t ran_ = 0;
  std::size_t up_to_date_ = 0;
  std::size_t failed_ = 0;
  std::size_t stopped_ = 0;  // interrupted or not run
};

}  // namespace sim::sweep
