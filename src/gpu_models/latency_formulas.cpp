#include "sim/gpu_models/latency_formulas.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace sim::gpu {

namespace {
// ceil() that does not push an exact multiple up because of rounding in the division: a
// request that needs exactly two windows must not be charged three.
double robust_ceil(double x) {
  return std::ceil(x - 1e-9 * std::max(1.0, std::fabs(x)));
}

void check_cgpu(double m_gb, double m_max_gb) {
  if (!(m_gb > 0.0) || !(m_max_gb > 0.0) || m_gb > m_max_gb) {
    throw std::invalid_argument("cGPU memory m must satisfy 0 < m <= M_max; found m = " +
                                std::to_string(m_gb) + ", M_max = " + std::to_string(m_max_gb));
  }
}
}  // namespace

// HarmonyBatch eq. (1).
double cpu_latency_s(const ExpCoefficients& k, double cores) {
  if (!(cores > 0.0)) {
    throw std::invalid_argument("CPU latency: cores must be > 0, found " + std::to_string(cores));
  }
  if (!(k.beta > 0.0)) {
    throw std::invalid_argument("CPU latency: beta must be > 0, found " + std::to_string(k.beta));
  }
  return k.alpha * std::exp(-cores / k.beta) + k.gamma;
}

// HarmonyBatch eq. (2).
double gpu_base_latency_s(double xi1_s, double xi2_s, int batch) {
  if (batch < 1) {
    throw std::invalid_argument("GPU latency: batch must be >= 1, found " + std::to_string(batch));
  }
  return xi1_s * batch + xi2_s;
}

// HarmonyBatch eq. (3).
double cgpu_average_latency_s(double l0_s, double m_gb, double m_max_gb) {
  check_cgpu(m_gb, m_max_gb);
  return m_max_gb / m_gb * l0_s;
}

// HarmonyBatch eq. (4).
double cgpu_max_latency_s(double l0_s, double m_gb, double m_max_gb, double tau_s) {
  check_cgpu(m_gb, m_max_gb);
  if (!(tau_s > 0.0)) throw std::invalid_argument("cGPU: tau must be > 0");
  return robust_ceil(l0_s / (m_gb * tau_s)) * (m_max_gb - m_gb) * tau_s + l0_s;
}

double cgpu_slot_finish_s(double start_s, double l0_s, double m_gb, double m_max_gb, double tau_s,
                          double offset_s) {
  check_cgpu(m_gb, m_max_gb);
  if (!(tau_s > 0.0)) throw std::invalid_argument("cGPU: tau must be > 0");
  if (l0_s <= 0.0) return start_s;
  const double cycle = m_max_gb * tau_s;
  const double window = m_gb * tau_s;
  double t = start_s;
  double remaining = l0_s;
  double phase = std::fmod(t - offset_s, cycle);
  if (phase < 0) phase += cycle;
  if (phase < window) {
    // Inside an own window: use what is left of it.
    const double available = window - phase;
    if (remaining <= available) return t + remaining;
    remaining -= available;
    t += available + (cycle - window);
  } else {
    // Preempted: wait for the next own window.
    t += cycle - phase;
  }
  // t is the start of an own window; k more windows are needed, the last one partly.
  const double k = robust_ceil(remaining / window);
  return t + (k - 1.0) * cycle + (remaining - (k - 1.0) * window);
}

}  // namespace sim::gpu
