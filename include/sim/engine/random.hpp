#pragma once
/// Seeded, named random streams with platform-independent distributions (DESIGN.md,
/// "Randomness").
///
/// Every component draws from its own stream, derived from (scenario seed, stream name), so that
/// adding a component never shifts another's draws (ns-3's AssignStreams). The generator is
/// xoshiro256** (Blackman & Vigna, 2018) seeded through SplitMix64; all distributions are written
/// here rather than taken from <random>, whose distributions differ between standard libraries.

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace sim {

/// SplitMix64 (Steele, Lea & Flood, 2014): advances `state` and returns the next output.
std::uint64_t splitmix64(std::uint64_t& state);

/// FNV-1a 64-bit hash of a byte string: stable across platforms and runs.
std::uint64_t fnv1a64(std::string_view bytes);

class RandomStream {
 public:
  /// A stream whose four state words come from SplitMix64 seeded with `seed`.
  explicit RandomStream(std::uint64_t seed);
  /// A stream with an explicit xoshiro256** state (for known-answer tests). Not all zero.
  static RandomStream from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2,
                                 std::uint64_t s3);

  /// The next raw 64-bit output of xoshiro256**.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform on [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  /// Uniform on [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer on [lo, hi], without modulo bias (Lemire's method). Requires lo <= hi.
  std::uint64_t uniform_int(std::uint64_t lo, std::uint64_t hi);
  /// Exponential with the given rate (mean 1/rate). Requires rate > 0.
  double exponential(double rate) {
    if (!(rate > 0.0)) throw_bad_rate();
    // 1 - U lies in (0, 1], so the logarithm is finite.
    return -std::log1p(-uniform01()) / rate;
  }
  /// Normal by the Marsaglia polar method; the second variate of each pair is kept.
  double normal(double mean, double stddev);
  /// exp(N(mu, sigma)).
  double lognormal(double mu, double sigma);
  /// Poisson with the given mean: multiplication method below 10, Hörmann's PTRS
  /// (transformed rejection with squeeze, 1993) above. Requires mean >= 0.
  std::uint64_t poisson(double mean);
  /// Bernoulli trial with success probability p.
  bool bernoulli(double p);

 private:
  // next_u64, uniform01 and exponential are inline: a simulation draws once or more per event,
  // and a call (with the rate check and a division a caller's constant rate of 1 removes) cost
  // ~10% of the hold benchmark's time (issue 24, 2026-11-27). Same operations, same results.
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  [[noreturn]] static void throw_bad_rate();
  RandomStream() = default;
  std::uint64_t s_[4] = {};
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

/// Draws index i with probability weights[i] / sum(weights), in O(1) by Walker's alias method
/// (Vose's construction). Weights must be finite, non-negative and not all zero.
class DiscreteDistribution {
 public:
  explicit DiscreteDistribution(std::span<const double> weights);
  std::size_t sample(RandomStream& rng) const;
  [[nodiscard]] std::size_t size() const { return probability_.size(); }

 private:
  std::vector<double> probability_;
  std::vector<std::size_t> alias_;
};

/// Hands out named streams derived from one master seed.
class RandomStreams {
 public:
  explicit RandomStreams(std::uint64_t seed) : seed_(seed) {}
  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  /// The stream for a component and purpose, e.g. stream("traces/azure", "arrivals").
  [[nodiscard]] RandomStream stream(std::string_view component,
                                    std::string_view purpose = "") const;

 private:
  std::uint64_t seed_;
};

}  // namespace sim
