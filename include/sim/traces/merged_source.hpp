#pragma once
/// Several workload sources seen as one stream: a k-way merge by time, ties broken by source
/// index (the order of the scenario's "workload" list), so the result is deterministic.

#include <memory>
#include <optional>
#include <vector>

#include "sim/traces/arrival_source.hpp"

namespace sim::traces {

class MergedSource final : public ArrivalSource {
 public:
  explicit MergedSource(std::vector<std::unique_ptr<ArrivalSource>> sources);
  std::optional<Arrival> next() override;
  /// Which source the last arrival returned by next() came from.
  [[nodiscard]] std::size_t last_source() const { return last_source_; }

 private:
  /// A live source's next arrival time: the heap holds these 16-byte keys, not whole
  /// arrivals, so that sinking one moves less.
  struct Key {
    Time time;
    std::size_t source;
    [[nodiscard]] bool before(const Key& o) const {
      return time != o.time ? time < o.time : source < o.source;
    }
  };
  void sift_down(std::size_t i);

  std::vector<std::unique_ptr<ArrivalSource>> sources_;
  std::vector<Arrival> heads_;  ///< by source: its next arrival (valid while it has a key)
  std::vector<Key> keys_;       ///< min-heap on (time, source), one per live source
  std::size_t last_source_ = 0;
};

}  // namespace sim::traces
