#include "sim/metrics/streaming_quantile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "sim/engine/random.hpp"

namespace sim::metrics {
namespace {

constexpr double kAlpha = StreamingQuantile::kDefaultRelativeError;
// The bound alpha is exact in real arithmetic; log/exp rounding can move a value that sits on
// a bucket boundary by one ulp, which this slack absorbs.
constexpr double kBound = kAlpha * (1.0 + 1e-9);

// The order statistic the sketch approximates: 0-based rank floor(q (n - 1)).
double exact_quantile(const std::vector<double>& sorted, double q) {
  const auto rank =
      static_cast<std::size_t>(std::floor(q * static_cast<double>(sorted.size() - 1)));
  return sorted[rank];
}

struct Case {
  const char* name;
  std::size_t n;
  std::function<double(RandomStream&)> draw;
};

void check_accuracy(const Case& c) {
  SCOPED_TRACE(c.name);
  RandomStream rng(fnv1a64(c.name));
  std::vector<double> values(c.n);
  StreamingQuantile sketch;
  double sum = 0.0;
  for (auto& v : values) {
    v = c.draw(rng);
    sketch.add(v);
    sum += v;
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(sketch.count(), c.n);
  EXPECT_EQ(sketch.min(), values.front());
  EXPECT_EQ(sketch.max(), values.back());
  EXPECT_EQ(sketch.sum(), sum);  // same additions in the same order
  EXPECT_FALSE(sketch.collapsed());
  for (const double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = exact_quantile(values, q);
    const double est = sketch.quantile(q);
    EXPECT_LE(std::fabs(est - exact), kBound * exact) << "q=" << q << " exact=" << exact;
  }
  EXPECT_EQ(sketch.quantile(0.0), values.front());
  EXPECT_EQ(sketch.quantile(1.0), values.back());
}

TEST(StreamingQuantile, RelativeErrorBoundOnUniform) {
  check_accuracy({"uniform", 1000000, [](RandomStream& r) { return r.uniform(1e-3, 1.0); }});
  check_accuracy({"uniform-small", 1000, [](RandomStream& r) { return r.uniform(0.5, 2.0); }});
}

TEST(StreamingQuantile, RelativeErrorBoundOnHeavyTailedLognormal) {
  // sigma = 2: p99.9 / p50 = exp(2 * 3.09) ~ 480, a heavy tail like cold-start latencies.
  check_accuracy({"lognormal", 1000000, [](RandomStream& r) { return r.lognormal(-3.0, 2.0); }});
}

TEST(StreamingQuantile, RelativeErrorBoundOnBimodal) {
  // 80% warm requests around 20 ms, 20% cold starts around 3 s.
  check_accuracy({"bimodal", 1000000, [](RandomStream& r) {
                    return r.bernoulli(0.8) ? r.lognormal(std::log(0.02), 0.2)
                                            : r.lognormal(std::log(3.0), 0.4);
                  }});
  check_accuracy({"bimodal-100k", 100000, [](RandomStream& r) {
                    return r.bernoulli(0.5) ? r.uniform(1e-6, 2e-6) : r.uniform(1e3, 2e3);
                  }});
}

TEST(StreamingQuantile, MergeEqualsOneSketchOverAllValues) {
  RandomStream rng(7);
  StreamingQuantile whole;
  StreamingQuantile parts[3];
  for (int i = 0; i < 30000; ++i) {
    // Each part covers a different range, so merging must widen the store both ways.
    const int p = i % 3;
    const double x = p == 0   ? rng.lognormal(0.0, 1.0)
                     : p == 1 ? rng.uniform(1e-5, 1e-4)
                              : rng.uniform(1e2, 1e4);
    whole.add(x);
    parts[p].add(x);
  }
  whole.add(0.0);
  parts[1].add(0.0);
  StreamingQuantile merged;
  merged.merge(parts[2]);
  merged.merge(parts[0]);
  merged.merge(parts[1]);
  merged.merge(StreamingQuantile());  // merging an empty sketch changes nothing
  EXPECT_EQ(merged.count(), whole.count());
  EXPECT_EQ(merged.min(), whole.min());
  EXPECT_EQ(merged.max(), whole.max());
  EXPECT_NEAR(merged.sum(), whole.sum(), 1e-9 * whole.sum());
  for (int i = 0; i <= 1000; ++i) {
    const double q = i / 1000.0;
    EXPECT_EQ(merged.quantile(q), whole.quantile(q)) << "q=" << q;
  }
}

// A value keyed by one sketch and added to another of the same alpha lands where add(x) puts
// it; a key taken under another alpha is refused (it would name another bucket).
TEST(StreamingQuantile, KeyedValueAddsLikeTheValue) {
  StreamingQuantile by_value(0.01), keyed(0.01), keyer(0.01), other(0.02);
  // gamma = 1.01 / 0.99: 1.0 is key 0 (ceil of 0), 1.5 key ceil(ln 1.5 / ln gamma) = 21.
  EXPECT_EQ(keyer.keyed(1.0).key, 0);
  EXPECT_EQ(keyer.keyed(1.5).key, 21);
  EXPECT_EQ(keyer.keyed(0.0).key, 0);
  for (const double x : {0.0, 0.003, 1.0, 1.5, 42.0, 1e6}) {
    by_value.add(x);
    keyed.add(keyer.keyed(x));
  }
  for (const double q : {0.0, 0.2, 0.5, 0.8, 1.0})
    EXPECT_EQ(keyed.quantile(q), by_value.quantile(q)) << q;
  EXPECT_EQ(keyed.count(), 6U);
  EXPECT_EQ(keyed.sum(), by_value.sum());
  EXPECT_THROW(other.add(keyer.keyed(1.5)), std::invalid_argument);
  EXPECT_THROW((void)keyer.keyed(-1.0), std::invalid_argument);
}

TEST(StreamingQuantile, MergeRejectsDifferentAlpha) {
  StreamingQuantile a(0.005);
  StreamingQuantile b(0.01);
  b.add(1.0);
  EXPECT_THROW(a.merge(b), std::invalid_argument);
}

TEST(StreamingQuantile, ZerosAreCountedExactly) {
  StreamingQuantile s;
  for (int i = 0; i < 6; ++i)
    s.add(0.0);
  for (int i = 0; i < 4; ++i)
    s.add(10.0);
  // Ten values, six zeros: ranks 0..5 are 0, ranks 6..9 are 10.
  EXPECT_EQ(s.quantile(0.5), 0.0);                    // rank floor(4.5) = 4
  EXPECT_EQ(s.quantile(0.6), 0.0);                    // rank floor(5.4) = 5
  EXPECT_NEAR(s.quantile(0.7), 10.0, kBound * 10.0);  // rank 6
  EXPECT_EQ(s.quantile(1.0), 10.0);
  EXPECT_EQ(s.min(), 0.0);
  EXPECT_DOUBLE_EQ(s.mean(), 4.0);
}

TEST(StreamingQuantile, SingleValueIsExact) {
  // Every quantile is clamped to [min, max] = [x, x].
  StreamingQuantile s;
  s.add(0.123);
  for (const double q : {0.0, 0.5, 0.99, 1.0})
    EXPECT_EQ(s.quantile(q), 0.123);
}

TEST(StreamingQuantile, MemoryIsBoundedAndLowBucketsCollapse) {
  // With 64 buckets of factor gamma = 1.01005, the kept range spans gamma^64 ~ 1.9: values
  // from 1e-6 to 1e6 force collapsing. The top quantile keeps its guarantee.
  StreamingQuantile s(kAlpha, 64);
  std::vector<double> values;
  RandomStream rng(11);
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp(rng.uniform(std::log(1e-6), std::log(1e6)));
    values.push_back(x);
    s.add(x);
  }
  EXPECT_TRUE(s.collapsed());
  EXPECT_LE(s.allocated_buckets(), 64U);
  EXPECT_EQ(s.count(), 20000U);
  std::sort(values.begin(), values.end());
  const double exact = exact_quantile(values, 0.9999);
  EXPECT_LE(std::fabs(s.quantile(0.9999) - exact), kBound * exact);
  // A low quantile falls in the collapsed bucket and is over-estimated, never below min.
  EXPECT_GE(s.quantile(0.01), exact_quantile(values, 0.01));
}

TEST(StreamingQuantile, CollapsingKeepsTopQuantilesForAnyInsertionOrder) {
  // 64 buckets of factor gamma keep a range of gamma^64 ~ 1.9 below the maximum. For values
  // log-uniform over 12 decades that is the top log10(1.9) / 12 ~ 2.3% of them, so p98 and
  // above keep the alpha guarantee whether the store is widened upwards (increasing input),
  // downwards (decreasing) or both ways (shuffled).
  std::vector<double> values;
  for (int i = 0; i < 12000; ++i)
    values.push_back(std::pow(10.0, -6.0 + i * 12.0 / 12000.0));
  std::vector<double> decreasing(values.rbegin(), values.rend());
  std::vector<double> shuffled = values;
  RandomStream rng(5);
  for (std::size_t i = shuffled.size() - 1; i > 0; --i) {
    std::swap(shuffled[i], shuffled[rng.uniform_int(0, i)]);
  }
  for (const auto* order : {&values, &decreasing, &shuffled}) {
    StreamingQuantile s(kAlpha, 64);
    for (const double x : *order)
      s.add(x);
    EXPECT_TRUE(s.collapsed());
    EXPECT_LE(s.allocated_buckets(), 64U);
    EXPECT_EQ(s.count(), values.size());
    EXPECT_EQ(s.quantile(0.0), values.front());
    for (const double q : {0.98, 0.99, 0.999}) {
      const double exact = exact_quantile(values, q);
      EXPECT_LE(std::fabs(s.quantile(q) - exact), kBound * exact) << "q=" << q;
    }
  }
}

TEST(StreamingQuantile, DefaultCapCoversNanosecondsToDays) {
  StreamingQuantile s;
  s.add(1e-9);
  s.add(86400.0);
  EXPECT_FALSE(s.collapsed());
  EXPECT_LE(s.allocated_buckets(), StreamingQuantile::kDefaultMaxBuckets);
}

TEST(StreamingQuantile, RejectsBadInput) {
  StreamingQuantile s;
  EXPECT_THROW((void)s.quantile(0.5), std::logic_error);
  EXPECT_THROW(s.add(-1.0), std::invalid_argument);
  EXPECT_THROW(s.add(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(s.add(std::numeric_limits<double>::infinity()), std::invalid_argument);
  s.add(1.0);
  EXPECT_THROW((void)s.quantile(-0.1), std::invalid_argument);
  EXPECT_THROW((void)s.quantile(1.5), std::invalid_argument);
  EXPECT_THROW((void)s.quantile(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(StreamingQuantile(0.0), std::invalid_argument);
  EXPECT_THROW(StreamingQuantile(0.9), std::invalid_argument);
  EXPECT_THROW(StreamingQuantile(0.01, 8), std::invalid_argument);
  try {
    s.add(-2.5);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "StreamingQuantile::add: expected a finite value >= 0, got -2.5");
  }
}

}  // namespace
}  // namespace sim::metrics
