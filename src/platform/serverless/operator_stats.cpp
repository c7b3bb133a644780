#include "operator_stats.hpp"

#include <algorithm>
#include <vector>

namespace sim::platform::serverless {

double OperatorStats::capacity_rps(const Inst& inst) {
  return inst.batch_latency_s > 0.0 ? inst.config.max_batch / inst.batch_latency_s : 0.0;
}

void OperatorStats::instance_ended(const Inst& inst, Time now) {
  if (inst.config.cpu_threads <= 0) return;
  ++instances_ended_;
  const double lived_s = (now - inst.life.created()).to_seconds();
  thread_seconds_ += inst.config.cpu_threads * lived_s;
  share_seconds_ += inst.config.gpu_share * lived_s;
  capacity_request_seconds_ += capacity_rps(inst) * lived_s;
}

void OperatorStats::tick(const policy::PlatformView& v) {
  // Over the available servers that hold an operator-profile instance: the share of their
  // CPU threads and of their GPUs' SMs that no instance holds (INFless Fig. 17b).
  std::vector<double> share_used;
  std::vector<int> first_gpu(v.hosts.size() + 1, 0);
  for (std::size_t h = 0; h < v.hosts.size(); ++h)
    first_gpu[h + 1] = first_gpu[h] + static_cast<int>(v.hosts[h].gpus.size());
  share_used.assign(static_cast<std::size_t>(first_gpu.back()), 0.0);
  std::vector<bool> active(v.hosts.size(), false);
  for (const auto& i : v.instances) {
    if (i.config.cpu_threads <= 0 || i.location.host < 0 || i.location.gpu < 0) continue;
    const auto h = static_cast<std::size_t>(i.location.host);
    active[h] = true;
    share_used[static_cast<std::size_t>(first_gpu[h] + i.location.gpu)] += i.config.gpu_share;
  }
  double cores = 0.0, cores_free = 0.0, gpus = 0.0, gpu_free = 0.0;
  for (std::size_t h = 0; h < v.hosts.size(); ++h) {
    if (!active[h] || !v.hosts[h].available) continue;
    cores += v.hosts[h].cores;
    cores_free += v.hosts[h].cores_free;
    for (std::size_t g = 0; g < v.hosts[h].gpus.size(); ++g) {
      gpus += 1.0;
      gpu_free += std::max(0.0, 1.0 - share_used[static_cast<std::size_t>(first_gpu[h]) + g]);
    }
  }
  if (cores <= 0.0 && gpus <= 0.0) return;
  free_cpu_sum_ += cores > 0 ? cores_free / cores : 0.0;
  free_gpu_sum_ += gpus > 0 ? gpu_free / gpus : 0.0;
  ++samples_;
}

void OperatorStats::write_summary(nlohmann::json& out, const SummaryInputs& in) const {
  const Time end = in.end;
  std::uint64_t n = instances_ended_;
  double threads = thread_seconds_;
  double shares = share_seconds_;
  double capacity = capacity_request_seconds_;
  for (const auto& [id, i] : in.instances) {
    if (i->config.cpu_threads <= 0) continue;
    ++n;
    const double lived_s = (end - i->life.created()).to_seconds();
    threads += i->config.cpu_threads * lived_s;
    shares += i->config.gpu_share * lived_s;
    capacity += capacity_rps(*i) * lived_s;
  }
  if (n == 0) return;
  const auto per_sample = [&](double sum) {
    return samples_ > 0 ? sum / static_cast<double>(samples_) : 0.0;
  };
  out["operator_instances"] = {{"instances", n},
                               {"cpu_thread_seconds", threads},
                               {"gpu_share_seconds", shares},
                               {"capacity_request_seconds", capacity},
                               {"free_cpu_fraction_mean", per_sample(free_cpu_sum_)},
                               {"free_gpu_fraction_mean", per_sample(free_gpu_sum_)}};
}

}  // namespace sim::platform::serverless
