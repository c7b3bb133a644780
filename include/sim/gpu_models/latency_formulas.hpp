#pragma once
/// The closed-form latency and slowdown formulas of the seed papers, as pure functions.
///
/// Every execution model computes its times from these functions, so that each formula lives
/// in exactly one place and is tested once against hand computation. Units: seconds unless a
/// name says otherwise; GPU memory in GB; CPU in vCPU cores.

#include <span>

namespace sim::gpu {

/// Exponential CPU latency coefficients for one batch size (HarmonyBatch eq. 1).
struct ExpCoefficients {
  double alpha = 0.0;  ///< seconds
  double beta = 1.0;   ///< cores (> 0)
  double gamma = 0.0;  ///< seconds
};

/// HarmonyBatch eq. (1): L = alpha_b * exp(-c / beta_b) + gamma_b, for c vCPU cores.
/// Throws std::invalid_argument if cores <= 0 or beta <= 0.
double cpu_latency_s(const ExpCoefficients& k, double cores);

/// HarmonyBatch eq. (2): GPU function latency with the whole GPU, L0 = xi1 * b + xi2.
/// Throws std::invalid_argument if batch < 1.
double gpu_base_latency_s(double xi1_s, double xi2_s, int batch);

/// HarmonyBatch eq. (3): average latency of a cGPU function with memory m out of M_max,
/// (M_max / m) * L0. Throws std::invalid_argument unless 0 < m <= M_max.
double cgpu_average_latency_s(double l0_s, double m_gb, double m_max_gb);

/// HarmonyBatch eq. (4): worst-case latency under cGPU time-slicing with slice length tau,
/// ceil(L0 / (m tau)) * (M_max - m) * tau + L0.
double cgpu_max_latency_s(double l0_s, double m_gb, double m_max_gb, double tau_s);

/// The actual cGPU time-slice schedule: the GPU cycles with period M_max*tau; the function
/// owns the window [offset, offset + m*tau) of every cycle (cycle origin at time 0) and is
/// preempted for the rest. Returns the finish time (seconds) of a request that needs l0_s of
/// GPU time and becomes ready at start_s. Non-work-conserving, as eq. (4) assumes.
double cgpu_slot_finish_s(double start_s, double l0_s, double m_gb, double m_max_gb, double tau_s,
                          double offset_s = 0.0);

}  // namespace sim::gpu
