#pragma once
/// A mergeable quantile sketch with a relative-error guarantee: DDSketch (Masson, Rim & Lee,
/// "DDSketch: A Fast and Fully-Mergeable Quantile Sketch with Relative-Error Guarantees",
/// VLDB 2019), written for dcsim.
///
/// Values x > 0 fall into logarithmic buckets: with gamma = (1 + alpha) / (1 - alpha), bucket
/// i holds gamma^(i-1) < x <= gamma^i (paper §2.1, i = ceil(log_gamma x)), and a quantile
/// is reported as the bucket's representative 2 gamma^i / (gamma + 1). Every value in the
/// bucket lies within relative distance alpha of that representative (paper Lemma 2), so
///
///     |quantile(q) - x_q| <= alpha * x_q,   x_q = sorted[floor(q * (n - 1))]  (0-based),
///
/// as long as no bucket has been collapsed (below). The result is also clamped to the exact
/// [min, max], so quantile(0) == min() and quantile(1) == max() exactly.
///
/// Zero is counted exactly in its own bucket. Negative, infinite and NaN values are rejected:
/// every quantity dcsim sketches (latencies, waits) is non-negative.
///
/// Memory is bounded: at most `max_buckets` bucket counters (8 bytes each) are kept. With the
/// default alpha = 0.005 one bucket spans a factor gamma = 1.01005, so the default 4096 buckets
/// cover a ratio of gamma^4096 ~ 6e17 between the largest and smallest value (1 ns to 19
/// years). Should a sketch ever need more, the lowest buckets are collapsed into the lowest
/// kept bucket (the paper's "collapsing lowest" store, §2.2): high quantiles keep their
/// guarantee, quantiles that land in the collapsed bucket are over-estimated. `collapsed()`
/// reports whether that happened.

#include <cstdint>
#include <vector>

namespace sim::metrics {

class StreamingQuantile {
 public:
  static constexpr double kDefaultRelativeError = 0.005;
  static constexpr std::uint32_t kDefaultMaxBuckets = 4096;

  /// alpha in [1e-6, 0.5]; max_buckets >= 16. Throws std::invalid_argument otherwise. (The
  /// lower bound on alpha keeps every bucket key of a finite double within 32 bits.)
  explicit StreamingQuantile(double relative_error = kDefaultRelativeError,
                             std::uint32_t max_buckets = kDefaultMaxBuckets);

  /// Adds one value x >= 0 (finite). Throws std::invalid_argument otherwise.
  void add(double x);
  /// A value with its bucket key under one alpha: the logarithm add() takes first. Sketches of
  /// one alpha give a value the same key, so a caller adding a value to several of them (the
  /// summary: all requests, their class, their function) takes it once.
  struct Keyed {
    double x;
    std::int32_t key;  ///< key_of(x); 0 for x == 0 (not bucketed)
    double alpha;
  };
  /// x checked as add() checks it (std::invalid_argument), and its key.
  [[nodiscard]] Keyed keyed(double x) const;
  /// add(v.x), with the key already taken; v must come from a sketch of this alpha
  /// (std::invalid_argument otherwise).
  void add(const Keyed& v);
  /// Adds another sketch's values. Both must have the same alpha (std::invalid_argument).
  /// Without collapsing, the result equals a sketch fed both inputs (bucket by bucket; the sum
  /// may differ in the last bits because floating-point addition is not associative).
  void merge(const StreamingQuantile& other);

  /// The q-quantile, q in [0, 1], within relative error alpha of sorted[floor(q (n-1))].
  /// Throws std::invalid_argument for q outside [0, 1] and std::logic_error when empty.
  [[nodiscard]] double quantile(double q) const;

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  /// Exact sum, minimum, maximum and mean of the values added (0 when empty).
  [[nodiscard]] double sum() const { return sum_; }
  [[nodiscard]] double min() const { return count_ == 0 ? 0.0 : min_; }
  [[nodiscard]] double max() const { return count_ == 0 ? 0.0 : max_; }
  [[nodiscard]] double mean() const {
    return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
  }

  [[nodiscard]] double relative_error() const { return alpha_; }
  [[nodiscard]] std::uint32_t max_buckets() const { return max_buckets_; }
  /// Number of bucket counters currently allocated (<= max_buckets()).
  [[nodiscard]] std::size_t allocated_buckets() const { return counts_.size(); }
  /// True once low buckets have been folded together to respect max_buckets.
  [[nodiscard]] bool collapsed() const { return collapsed_; }

 private:
  [[nodiscard]] std::int32_t key_of(double x) const;
  [[nodiscard]] double value_of(std::int32_t key) const;
  void add_to_key(std::int32_t key, std::uint64_t n);
  void relocate(std::int32_t new_offset, std::size_t new_size, std::int32_t fold_below);

  double alpha_;
  double gamma_;
  double inv_log_gamma_;
  double log_gamma_;
  std::uint32_t max_buckets_;

  // Bucket counters for keys offset_ .. offset_ + counts_.size() - 1; the non-empty ones lie in
  // [min_key_, max_key_] (meaningful only while the store holds a value).
  std::vector<std::uint64_t> counts_;
  std::int32_t offset_ = 0;
  std::int32_t min_key_ = 0;
  std::int32_t max_key_ = 0;
  bool collapsed_ = false;

  std::uint64_t zero_count_ = 0;
  std::uint64_t store_count_ = 0;  // values held in the buckets (count_ - zero_count_)
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
};

}  // namespace sim::metrics
