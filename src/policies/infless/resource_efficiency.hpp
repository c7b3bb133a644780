#pragma once
/// INFless §3.4: the unified CPU-GPU resource (beta c + g) and the resource efficiency e_ij of
/// eq. (10).

namespace sim::policy::infless {

/// The CPU-GPU conversion factor beta, from FLOPS (§3.4): how many GPU-SM-percent one CPU
/// thread is worth, beta = thread GFLOPS / (GPU GFLOPS / 100).
double conversion_factor(double cpu_gflops_per_thread, double gpu_gflops);

/// beta c + g, in GPU-percent units.
double unified_resource(double threads, double gpu_percent, double beta);

/// INFless eq. (10): e_ij = (r_up / (beta c_i + g_i) / e_max) / (1 - (beta c_i + g_i) /
/// (beta C_j + G_j)). e_max normalises the numerator to [0, 1]; an instance that would fill
/// server j exactly has the smallest fragment, so the denominator is floored at
/// `kMinFragment` (the public code adds 0.001 for the same reason).
double resource_efficiency(double r_up, double demand, double server_available, double e_max);

/// Eq. (10) in two steps, for a search over many servers: the numerator r_up / demand / e_max
/// (per configuration), then the quotient by the fragment (per server). The same arithmetic
/// as resource_efficiency().
double efficiency_numerator(double r_up, double demand, double e_max);
double efficiency_on(double numerator, double demand, double server_available);

inline constexpr double kMinFragment = 1e-3;

}  // namespace sim::policy::infless
