#pragma once
/// Value types of HarmonyBatch planning (Chen et al., "HarmonyBatch", §III-IV): applications,
/// the model coefficients the planner works with, prices, function configurations, groups and
/// plans. Units: seconds, requests/s, vCPU cores, GB.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/gpu_models/latency_formulas.hpp"

namespace sim::gpu {
struct ModelProfile;
}

namespace sim::policy::harmonybatch {

/// One inference application: (name, latency SLO s, arrival rate r).
struct Application {
  std::string name;
  double slo_s = 1.0;
  double rate = 1.0;
};

/// The coefficients of one model as the planner uses them (eq. 1-4 plus Alibaba's memory
/// rules, implementations.md §1.2-1.5). Built from the catalog (`from_profile`).
struct PlannerModel {
  std::string name;
  std::vector<gpu::ExpCoefficients> cpu_avg;  ///< eq. 1, index b-1
  std::vector<gpu::ExpCoefficients> cpu_max;
  double mem_a_mb = 0.0;  ///< CPU function memory a_m*b + b_m (MB)
  double mem_b_mb = 0.0;
  double xi1_s = 0.0;  ///< eq. 2
  double xi2_s = 0.0;
  double tau_s = 0.002;                       ///< cGPU unit slice
  double m_max_gb = 24.0;                     ///< M_max
  double gpu_fraction = 1.0;                  ///< a: share of L0 on the GPU
  double cpu_fraction = 0.0;                  ///< b: share of L0 on the CPU
  double gpu_function_mem_mb = 512.0;         ///< host memory of a GPU function
  std::vector<double> min_memory_thresholds;  ///< gpu_mem thresholds (minimum GPU memory)
  bool has_cpu = true;
  bool has_gpu = true;

  /// From a catalog profile; throws std::invalid_argument naming the model if it lacks the
  /// cgpu/gpu parts the planner needs.
  static PlannerModel from_profile(const gpu::ModelProfile& profile);
};

/// Unit prices (eq. 6). The paper's (§V-A, USD, Nov 2023) bill a GPU function only for its
/// GPU memory (c = 0 in eq. 6) and have no memory term; the code's (CNY list prices,
/// implementations.md §1.2) also bill the GPU function's g/3 vCPU and every function's memory.
struct PriceTable {
  std::string name = "paper";
  double vcpu_s = 1.3e-5;           ///< K1 per vCPU-s
  double memory_gb_s = 0.0;         ///< function memory per GB-s
  double gpu_memory_gb_s = 1.5e-5;  ///< K2 per GB-s of GPU memory
  double invocation = 1.3e-7;       ///< K3 per invocation
  bool gpu_function_bills_cpu_and_memory = false;

  static PriceTable paper();
  static PriceTable code();
  /// "paper" or "code"; throws std::invalid_argument otherwise.
  static PriceTable named(const std::string& name);
};

/// Planner switches and search ranges (§IV-B; implementations.md §1.2, §1.12).
struct PlannerOptions {
  PriceTable prices = PriceTable::paper();
  /// true: a merged group weighs Σ η (the paper); false: 1 + Σ η (the code's quirk Q1).
  bool fix_merge_ratio = true;
  /// true: a GPU function must meet every SLO of its group (constraint 10 for all w); false:
  /// only the group's largest SLO is checked (the code's quirk Q2).
  bool check_all_slos_on_gpu = true;
  /// false: stage 1 merges a run of CPU groups through the cost-checked Merge (the paper's
  /// Algorithm 1, line 9); true: unconditionally, as the code does (`merge(..., True)`).
  bool forced_stage1_merge = false;
  /// true: before the paper's stage 2, a pass that tries only neighbours whose boundary SLOs
  /// fall in the same knee class (r* < 0.05: always GPU; r* > 39.95: never; else: between),
  /// as the code does (implementations.md §1.11, "stage 2a"); false: the paper's stage 2 only.
  bool knee_class_stage = false;
  /// true: CPU cores from the SLO bound are rounded up to the 0.05-core grid, as Alibaba's
  /// platform allocates them; false: kept continuous, as the code does (quirk Q4).
  bool cpu_cores_on_grid = true;
  /// true: a CPU batch whose SLO bound gives c <= 0 (an SLO looser than alpha + gamma) is
  /// skipped, as the code does (quirk Q3); false: any core count meets that SLO.
  bool skip_loose_slo_batch = false;
  /// MBS+'s per-group search: true = Bayesian optimisation with `mbs_initial_points` random
  /// and `mbs_iterations` guided evaluations per function type (the original's budget);
  /// false = exhaustive over the grids (a stronger MBS+ than the paper's).
  bool mbs_bayesian = true;
  int mbs_initial_points = 5;
  int mbs_iterations = 10;
  std::uint64_t mbs_seed = 1;
  /// MBS+ searches every split of the applications into 1..N groups, each group by its own
  /// search: O(N^2) searches (32 applications ~5 s, 64 ~20 s). Larger sets are refused with
  /// a message naming this limit rather than running for hours.
  int mbs_max_applications = 64;
  double cpu_min_cores = 0.05;
  double cpu_max_cores = 16.0;
  double cpu_step = 0.05;
  int cpu_max_batch = 4;
  int gpu_min_gb = 1;
  int gpu_max_gb = 24;
  int gpu_max_batch = 32;
  /// Overhead on the time-sliced maximum latency (the code's 1.2, not 1 at g = M_max).
  double gpu_max_latency_overhead = 1.2;
  /// Knee point search on [knee_min_rate, knee_max_rate] to knee_resolution (§IV-B, Fig. 7).
  double knee_min_rate = 0.01;
  double knee_max_rate = 40.0;
  double knee_resolution = 0.01;

  /// Every switch set as the public reference code (icloud-ecnu/HarmonyBatch 253269f) runs:
  /// code prices, ratio 1 + Σ η (Q1), largest SLO only (Q2), forced stage-1 merges, the
  /// knee-class stage, continuous cores (Q4), loose-SLO batches skipped (Q3).
  static PlannerOptions reference_code();
};

enum class FunctionType { kCpu, kGpu };
const char* to_string(FunctionType t);

/// A provisioned function for one group: type, resources, batch, per-application timeouts
/// (in the group's SLO order) and the predictions of eq. 1-6.
struct FunctionConfig {
  FunctionType type = FunctionType::kCpu;
  double cores = 0.0;      ///< vCPU (GPU functions: g/3)
  double memory_gb = 0.0;  ///< function memory (64 MB multiples)
  int gpu_gb = 0;          ///< GPU memory m (0: CPU function)
  int batch = 1;
  std::vector<double> timeouts_s;
  double avg_latency_s = 0.0;     ///< L_avg at `batch`
  double max_latency_s = 0.0;     ///< L_max at `batch`
  double cost_per_request = 0.0;  ///< eq. 6
};

/// A group of applications (consecutive in SLO order) and its function.
struct Group {
  std::vector<Application> apps;  ///< sorted by SLO
  FunctionConfig function;
  double ratio = 0.0;  ///< weight used by the merge check (η, or 1 + Σ η with Q1)
  /// A share of each application's rate served by this group (MBS+ splits applications);
  /// 1 for HarmonyBatch and BATCH.
  std::vector<double> shares;
  [[nodiscard]] double rate() const;
  [[nodiscard]] double min_slo() const;
};

struct Plan {
  std::string algorithm;  ///< "harmonybatch", "batch" or "mbs+"
  std::string model;
  std::vector<Group> groups;
  double total_rate = 0.0;
  /// Σ_X η_X C_X (eq. 7) with η_X = r_X / R.
  double cost_per_request = 0.0;
  [[nodiscard]] double cost_per_second() const { return cost_per_request * total_rate; }
};

}  // namespace sim::policy::harmonybatch
