#include "sim/metrics/streaming_quantile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace sim::metrics {

namespace {
// Buckets allocated for the first value; the store then grows by doubling up to max_buckets.
constexpr std::size_t kInitialBuckets = 64;
// Extra room added on the growing side when the store is reallocated, so that a slowly widening
// range does not reallocate on every new extreme.
constexpr std::size_t kGrowthSlack = 64;
}  // namespace

StreamingQuantile::StreamingQuantile(double relative_error, std::uint32_t max_buckets)
    : alpha_(relative_error), max_buckets_(max_buckets) {
  if (!(relative_error >= 1e-6 && relative_error <= 0.5)) {
    throw std::invalid_argument(fmt::format(
        "StreamingQuantile: relative error must be in [1e-6, 0.5], got {}", relative_error));
  }
  if (max_buckets < 16) {
    throw std::invalid_argument(
        fmt::format("StreamingQuantile: max_buckets must be >= 16, got {}", max_buckets));
  }
  gamma_ = (1.0 + alpha_) / (1.0 - alpha_);  // DDSketch §2.1
  log_gamma_ = std::log(gamma_);
  inv_log_gamma_ = 1.0 / log_gamma_;
}

std::int32_t StreamingQuantile::key_of(double x) const {
  // i = ceil(log_gamma(x)); |log x| <= 745 for every positive finite double, so with
  // alpha >= 1e-6 the key stays below 4e8 in magnitude.
  return static_cast<std::int32_t>(std::ceil(std::log(x) * inv_log_gamma_));
}

double StreamingQuantile::value_of(std::int32_t key) const {
  // The representative 2 gamma^i / (gamma + 1) is within relative distance alpha of every
  // value in (gamma^(i-1), gamma^i] (DDSketch Lemma 2).
  return 2.0 * std::exp(static_cast<double>(key) * log_gamma_) / (gamma_ + 1.0);
}

StreamingQuantile::Keyed StreamingQuantile::keyed(double x) const {
  if (!(x >= 0.0) || std::isinf(x)) {
    throw std::invalid_argument(
        fmt::format("StreamingQuantile::add: expected a finite value >= 0, got {}", x));
  }
  return {x, x == 0.0 ? 0 : key_of(x), alpha_};
}

void StreamingQuantile::add(double x) {
  add(keyed(x));
}

void StreamingQuantile::add(const Keyed& v) {
  if (v.alpha != alpha_) {
    throw std::invalid_argument(fmt::format(
        "StreamingQuantile::add: a value keyed under alpha {} added to a sketch of alpha {}",
        v.alpha, alpha_));
  }
  const double x = v.x;
  if (count_ == 0) {
    min_ = x;
    max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  ++count_;
  sum_ += x;
  if (x == 0.0) {
    ++zero_count_;
  } else {
    add_to_key(v.key, 1);
  }
}

void StreamingQuantile::relocate(std::int32_t new_offset, std::size_t new_size,
                                 std::int32_t fold_below) {
  std::vector<std::uint64_t> fresh(new_size, 0);
  for (std::int32_t k = min_key_; k <= max_key_; ++k) {
    const std::uint64_t c = counts_[static_cast<std::size_t>(k - offset_)];
    if (c != 0) fresh[static_cast<std::size_t>(std::max(k, fold_below) - new_offset)] += c;
  }
  counts_ = std::move(fresh);
  offset_ = new_offset;
}

void StreamingQuantile::add_to_key(std::int32_t key, std::uint64_t n) {
  const auto cap = static_cast<std::int64_t>(max_buckets_);
  if (store_count_ == 0) {
    const std::size_t size = std::min<std::size_t>(max_buckets_, kInitialBuckets);
    counts_.assign(size, 0);
    offset_ = key - static_cast<std::int32_t>(size / 2);
    min_key_ = key;
    max_key_ = key;
  } else if (key < min_key_ || key > max_key_) {
    std::int64_t lo = std::min(key, min_key_);
    const std::int64_t hi = std::max(key, max_key_);
    if (hi - lo + 1 > cap) {
      // Collapsing-lowest store (DDSketch §2.2): keep the top max_buckets keys and fold
      // everything below into the lowest kept bucket.
      lo = hi - cap + 1;
      collapsed_ = true;
    }
    const auto lo32 = static_cast<std::int32_t>(lo);
    const auto hi32 = static_cast<std::int32_t>(hi);
    key = std::max(key, lo32);
    const std::int64_t end = static_cast<std::int64_t>(offset_) + std::ssize(counts_);
    if (lo >= offset_ && hi < end) {
      for (std::int32_t k = min_key_; k < lo32; ++k) {  // in-place fold (no-op unless collapsing)
        auto& c = counts_[static_cast<std::size_t>(k - offset_)];
        counts_[static_cast<std::size_t>(lo32 - offset_)] += c;
        c = 0;
      }
    } else {
      const auto needed = static_cast<std::size_t>(hi - lo + 1);
      const std::size_t new_size =
          std::min<std::size_t>(max_buckets_, std::max(2 * counts_.size(), needed + kGrowthSlack));
      // Leave the slack on the side that is growing.
      const std::int32_t new_offset =
          key == lo32 && key < min_key_ ? hi32 - static_cast<std::int32_t>(new_size) + 1 : lo32;
      relocate(new_offset, new_size, lo32);
    }
    min_key_ = lo32;
    max_key_ = hi32;
  }
  counts_[static_cast<std::size_t>(key - offset_)] += n;
  store_count_ += n;
}

void StreamingQuantile::merge(const StreamingQuantile& other) {
  if (other.alpha_ != alpha_) {
    throw std::invalid_argument(fmt::format(
        "StreamingQuantile::merge: relative errors differ ({} vs {}); only sketches with the "
        "same alpha share bucket boundaries",
        alpha_, other.alpha_));
  }
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  sum_ += other.sum_;
  zero_count_ += other.zero_count_;
  collapsed_ = collapsed_ || other.collapsed_;
  if (other.store_count_ == 0) return;
  // Highest key first: the store then widens downwards only, collapsing at most once.
  for (std::int32_t k = other.max_key_; k >= other.min_key_; --k) {
    const std::uint64_t c = other.counts_[static_cast<std::size_t>(k - other.offset_)];
    if (c != 0) add_to_key(k, c);
  }
}

double StreamingQuantile::quantile(double q) const {
  if (!(q >= 0.0 && q <= 1.0)) {
    throw std::invalid_argument(
        fmt::format("StreamingQuantile::quantile: q must be in [0, 1], got {}", q));
  }
  if (count_ == 0) {
    throw std::logic_error("StreamingQuantile::quantile: the sketch is empty");
  }
  // The answer approximates the element of 0-based rank floor(q (n - 1)) of the sorted input.
  const double rank = q * static_cast<double>(count_ - 1);
  if (rank <= 0.0) return min_;
  if (rank >= static_cast<double>(count_ - 1)) return max_;
  std::uint64_t seen = zero_count_;
  if (static_cast<double>(seen) > rank) return 0.0;
  for (std::int32_t k = min_key_; k <= max_key_; ++k) {
    seen += counts_[static_cast<std::size_t>(k - offset_)];
    if (static_cast<double>(seen) > rank) return std::clamp(value_of(k), min_, max_);
  }
  return max_;  // unreachable: the counts add up to count_
}

}  // namespace sim::metrics
