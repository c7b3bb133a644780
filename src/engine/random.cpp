#include "sim/engine/random.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace sim {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

namespace {
// 128-bit products for Lemire's method; __extension__ keeps -Wpedantic quiet about the GCC type.
__extension__ using Uint128 = unsigned __int128;
}  // namespace

RandomStream::RandomStream(std::uint64_t seed) {
  std::uint64_t sm = seed;
  for (auto& w : s_)
    w = splitmix64(sm);
}

RandomStream RandomStream::from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2,
                                      std::uint64_t s3) {
  if ((s0 | s1 | s2 | s3) == 0) throw std::invalid_argument("xoshiro256** state must not be zero");
  RandomStream r;
  r.s_[0] = s0;
  r.s_[1] = s1;
  r.s_[2] = s2;
  r.s_[3] = s3;
  return r;
}

double RandomStream::uniform(double lo, double hi) {
  return lo + (hi - lo) * uniform01();
}

std::uint64_t RandomStream::uniform_int(std::uint64_t lo, std::uint64_t hi) {
  if (lo > hi) throw std::invalid_argument("uniform_int: lo > hi");
  const std::uint64_t span = hi - lo;
  if (span == ~std::uint64_t{0}) return next_u64();
  const std::uint64_t range = span + 1;
  // Lemire (2019), "Fast random integer generation in an interval": multiply-shift with a
  // rejection threshold that removes the bias.
  Uint128 m = static_cast<Uint128>(next_u64()) * range;
  auto low = static_cast<std::uint64_t>(m);
  if (low < range) {
    const std::uint64_t threshold = (0 - range) % range;
    while (low < threshold) {
      m = static_cast<Uint128>(next_u64()) * range;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return lo + static_cast<std::uint64_t>(m >> 64);
}

void RandomStream::throw_bad_rate() {
  throw std::invalid_argument("exponential: rate must be > 0");
}

double RandomStream::normal(double mean, double stddev) {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + stddev * spare_normal_;
  }
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * f;
  has_spare_normal_ = true;
  return mean + stddev * u * f;
}

double RandomStream::lognormal(double mu, double sigma) {
  return std::exp(normal(mu, sigma));
}

std::uint64_t RandomStream::poisson(double mean) {
  if (!(mean >= 0.0) || !std::isfinite(mean)) {
    throw std::invalid_argument("poisson: mean must be finite and >= 0");
  }
  if (mean == 0.0) return 0;
  if (mean < 10.0) {
    // Multiply uniforms until the product drops below e^-mean (Knuth, TAOCP vol. 2, 3.4.1).
    const double limit = std::exp(-mean);
    std::uint64_t k = 0;
    double p = uniform01();
    while (p > limit) {
      ++k;
      p *= uniform01();
    }
    return k;
  }
  // PTRS: W. Hörmann, "The transformed rejection method for generating Poisson random
  // variables", Insurance: Mathematics and Economics 12 (1993), constants from its Table 1.
  const double slam = std::sqrt(mean);
  const double loglam = std::log(mean);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  while (true) {
    const double u = uniform01() - 0.5;
    const double v = uniform01();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    if (us >= 0.07 && v <= v_r) return static_cast<std::uint64_t>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -mean + k * loglam - std::lgamma(k + 1.0)) {
      return static_cast<std::uint64_t>(k);
    }
  }
}

bool RandomStream::bernoulli(double p) {
  return uniform01() < p;
}

DiscreteDistribution::DiscreteDistribution(std::span<const double> weights) {
  const std::size_t n = weights.size();
  if (n == 0) throw std::invalid_argument("DiscreteDistribution: no weights");
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0.0) {
      throw std::invalid_argument("DiscreteDistribution: weight " + std::to_string(i) +
                                  " is negative or not finite");
    }
    total += weights[i];
  }
  if (!(total > 0.0)) throw std::invalid_argument("DiscreteDistribution: all weights are zero");

  probability_.assign(n, 0.0);
  alias_.assign(n, 0);
  std::vector<double> scaled(n);
  std::vector<std::size_t> small;
  std::vector<std::size_t> large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::size_t s = small.back();
    small.pop_back();
    const std::size_t l = large.back();
    large.pop_back();
    probability_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    (scaled[l] < 1.0 ? small : large).push_back(l);
  }
  // Leftovers are 1 up to rounding.
  for (const std::size_t i : large)
    probability_[i] = 1.0;
  for (const std::size_t i : small)
    probability_[i] = 1.0;
}

std::size_t DiscreteDistribution::sample(RandomStream& rng) const {
  const std::size_t column = rng.uniform_int(0, probability_.size() - 1);
  return rng.uniform01() < probability_[column] ? column : alias_[column];
}

RandomStream RandomStreams::stream(std::string_view component, std::string_view purpose) const {
  // Mix seed and both names so that ("a", "bc") and ("ab", "c") differ.
  std::uint64_t state = seed_;
  std::uint64_t key = splitmix64(state) ^ fnv1a64(component);
  key = splitmix64(key) ^ fnv1a64(purpose);
  return RandomStream(splitmix64(key));
}

}  // namespace sim
