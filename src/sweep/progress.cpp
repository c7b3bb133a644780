#include "sim/sweep/progress.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sim::sweep {

std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

void SweepProgress::record(const RunReport& report) {
  switch (report.status) {
    case RunStatus::kDone:
      ++ran_;
      break;
    case RunStatus::kUpToDate:
      ++up_to_date_;
      break;
    case RunStatus::kFailed:
      ++failed_;
      break;
    case RunStatus::kInterrupted:
    case RunStatus::kNotRun:
      ++stopped_;
      break;
  }
}

std::string SweepProgress::line(double elapsed_seconds) const {
  std::string s = fmt::format("[{}/{}] {} ran, {} up to date, {} failed", finished(), total_, ran_,
                              up_to_date_, failed_);
  // Failed runs count as executed: they took their time too.
  const std::size_t executed = ran_ + failed_;
  const std::size_t left = total_ - std::min(total_, finished());
  if (executed > 0 && left > 0) {
    const double per_run = elapsed_seconds / static_cast<double>(executed);
    s += ", ETA " + format_duration(per_run * static_cast<double>(left));
  }
  return s;
}

}  // namespace sim::sweep
