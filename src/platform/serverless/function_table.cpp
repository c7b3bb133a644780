#include "function_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"

namespace sim::platform::serverless {

FunctionTable build_function_table(const ServerlessConfig& config, const gpu::ModelCatalog& catalog,
                                   Simulation& sim, const traces::WorkloadLabels* labels) {
  FunctionTable table;
  double largest_gpu_gb = 0.0;
  for (const auto& t : config.hosts) {
    for (const auto& g : t.spec.gpus) {
      const gpu::GpuType& type = catalog.gpu(g.type);
      if (table.planning_gpu == nullptr) table.planning_gpu = &type;
      largest_gpu_gb = std::max(largest_gpu_gb, type.memory_gb);
    }
  }

  // Functions: every function the workload names needs a spec.
  std::map<std::string, const FunctionSpec*> by_name;
  for (const auto& f : config.functions) {
    if (!by_name.emplace(f.name, &f).second) {
      throw std::invalid_argument("serverless platform: function \"" + f.name +
                                  "\" is declared twice");
    }
  }
  const auto& names = labels != nullptr ? labels->functions() : std::vector<std::string>{};
  for (std::uint32_t id = 0; id < names.size(); ++id) {
    const auto it = by_name.find(names[id]);
    if (it == by_name.end()) {
      throw std::invalid_argument(
          "serverless platform: the workload sends requests to function \"" + names[id] +
          "\", which platform.functions does not declare");
    }
    auto fn = std::make_unique<Fn>();
    fn->spec = *it->second;
    fn->id = id;
    fn->model = &catalog.model(fn->spec.model);
    const auto& m = *fn->model;
    if (fn->spec.model_bytes) {
      fn->bytes = *fn->spec.model_bytes;
    } else if (m.cold_start) {
      fn->bytes = m.cold_start->size_mb.value * 1e6;
    } else if (m.weights_mb) {
      fn->bytes = m.weights_mb->value * 1e6;
    } else {
      // No published size: the batch footprint bounds the weights from above.
      fn->bytes = m.memory_gb() * 1e9;
    }
    if (fn->spec.gpu) {
      const auto& cfg = fn->spec.config;
      const bool op = cfg.cpu_threads > 0;
      if (op ? !m.operators : !m.gpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" runs on a GPU but model " + m.name + " has no " +
                                    (op ? "operator profile (cpu_threads > 0)" : "GPU profile"));
      }
      if (cfg.time_slice_gb > 0 && !m.cgpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" is time-sliced but model " + m.name +
                                    " has no cgpu profile (tau, M_max)");
      }
      if (table.planning_gpu == nullptr) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" needs a GPU but the cluster has none");
      }
      fn->device_gb = fn->spec.device_memory_gb.value_or(m.memory_gb());
      // A batch that no GPU can hold would leave the function's requests queued for ever, with
      // nothing in the output saying why. Time-sliced functions page their memory (cGPU's
      // M_max) and layer-partitioned models spread over GPUs (Flashpoint), so only the rest
      // must fit one device.
      const bool spreads = cfg.time_slice_gb > 0 || (m.cold_start && !m.cold_start->layers.empty());
      if (!spreads && fn->device_gb > largest_gpu_gb) {
        throw std::invalid_argument(fmt::format(
            "serverless platform: function \"{}\" needs {:g} GB of GPU memory per batch (model "
            "{}) but the largest GPU of the cluster has {:g} GB",
            fn->spec.name, fn->device_gb, m.name, largest_gpu_gb));
      }
      if (op) {
        fn->batch_latency_s =
            gpu::OperatorProfileLatency(cfg.cpu_threads,
                                        static_cast<int>(std::lround(100.0 * cfg.gpu_share)))
                .predict_s(m, cfg.max_batch);
      } else if (cfg.time_slice_gb > 0) {
        fn->batch_latency_s =
            gpu::TimeSlicedUnit(sim, "planning", *table.planning_gpu,
                                gpu::TimeSlicedUnit::options_for(m, cfg.time_slice_gb))
                .predict_solo_s(m, cfg.max_batch);  // HarmonyBatch eq. 3
      } else {
        fn->batch_latency_s = m.gpu_solo_s(cfg.max_batch, *table.planning_gpu);
      }
    } else {
      if (!m.cpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" runs on CPUs but model " + m.name + " has no CPU profile");
      }
      fn->batch_latency_s =
          gpu::CpuFunctionLatency(fn->spec.config.cpu_cores, gpu::CpuLatencyMode::kAverage)
              .predict_s(m, fn->spec.config.max_batch);
    }
    if (fn->spec.gpu && m.cold_start && !m.cold_start->layers.empty()) {
      // Flashpoint §4.1.3 per-layer profile in the platform's terms: a layer's share of the
      // model's bytes, load and copy follows its share of the profiled layer cold starts, so
      // the parts of a replica add up to the full model's cold start stages.
      const auto& cs = *m.cold_start;
      const double total = cs.layer_cold_start_total_s();
      const double full_s = transfer_time(fn->bytes, config.store_bps).to_seconds() +
                            cs.load_s.value +
                            transfer_time(fn->bytes, config.pcie_bps).to_seconds();
      for (const auto& l : cs.layers) {
        const double share = total > 0 ? l.cold_start_s / total : 0.0;
        fn->layer_share.push_back(share);
        fn->layers.push_back({share * full_s, l.exec_s, l.output_bytes * 8.0 / config.host_bps});
      }
    }
    const auto& apps = labels->applications();
    for (std::uint32_t a = 0; a < apps.size(); ++a) {
      const auto t = fn->spec.app_timeouts.find(apps[a]);
      fn->timeout_by_app[a] = t == fn->spec.app_timeouts.end() ? fn->spec.batch_timeout : t->second;
    }
    table.functions.push_back(std::move(fn));
  }
  // Queues: one per function, or one per named queue group (same model required, since any
  // instance of the group may take any of its requests).
  std::map<std::string, Queue*> groups;
  for (auto& f : table.functions) {
    const std::string& g = f->spec.queue_group;
    if (!g.empty()) {
      const auto it = groups.find(g);
      if (it != groups.end()) {
        const Fn& first = *it->second->members.front();
        if (first.spec.model != f->spec.model || first.spec.gpu != f->spec.gpu) {
          throw std::invalid_argument("serverless platform: functions \"" + first.spec.name +
                                      "\" and \"" + f->spec.name + "\" share queue_group \"" + g +
                                      "\" but serve different models or resources (" +
                                      first.spec.model + " vs " + f->spec.model + ")");
        }
        f->queue = it->second;
        it->second->members.push_back(f.get());
        continue;
      }
    }
    table.queues.push_back(std::make_unique<Queue>());
    f->queue = table.queues.back().get();
    f->queue->members.push_back(f.get());
    if (!g.empty()) groups[g] = f->queue;
  }

  return table;
}

}  // namespace sim::platform::serverless
