#include "sim/traces/merged_source.hpp"

#include <utility>

namespace sim::traces {

MergedSource::MergedSource(std::vector<std::unique_ptr<ArrivalSource>> sources)
    : sources_(std::move(sources)), heads_(sources_.size()) {
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (!sources_[i]) continue;
    if (auto a = sources_[i]->next()) {
      heads_[i] = *a;
      keys_.push_back({a->time, i});
    }
  }
  for (std::size_t i = keys_.size() / 2; i-- > 0;)
    sift_down(i);
}

void MergedSource::sift_down(std::size_t i) {
  const Key moving = keys_[i];
  const std::size_t n = keys_.size();
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && keys_[child + 1].before(keys_[child])) ++child;
    if (!keys_[child].before(moving)) break;
    keys_[i] = keys_[child];
    i = child;
  }
  keys_[i] = moving;
}

std::optional<Arrival> MergedSource::next() {
  if (keys_.empty()) return std::nullopt;
  // The earliest source's next arrival replaces it at the top and sinks: one pass down the
  // heap per arrival, where a pop and a push took two.
  Key& top = keys_.front();
  const std::size_t source = top.source;
  const Arrival out = heads_[source];
  last_source_ = source;
  if (auto a = sources_[source]->next()) {
    heads_[source] = *a;
    top.time = a->time;
  } else {
    top = keys_.back();
    keys_.pop_back();
    if (keys_.empty()) return out;
  }
  sift_down(0);
  return out;
}

}  // namespace sim::traces
