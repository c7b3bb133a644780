#include "sim/gpu_models/shared_unit.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim::gpu {

namespace {
// Memory comparisons tolerate rounding in sums of footprints.
constexpr double kMemoryEpsilonGb = 1e-9;
}  // namespace

SharedUnit::SharedUnit(Simulation& sim, std::string name, const GpuType& gpu,
                       const MigProfile* profile, SharedUnitOptions options)
    : ExecutionUnit(sim, std::move(name)),
      gpu_(gpu),
      profile_(profile),
      options_(options),
      last_update_(sim.now()) {
  if (!(options_.sm_knee > 0.0 && options_.sm_knee <= 1.0)) {
    throw std::invalid_argument("shared GPU unit: sm_knee must be in (0, 1]");
  }
  if (options_.max_clients < 1) {
    throw std::invalid_argument("shared GPU unit: max_clients must be >= 1");
  }
  if (!(options_.sharing.interference >= 0.0)) {
    throw std::invalid_argument("shared GPU unit: interference must be >= 0");
  }
}

SharedUnit::~SharedUnit() {
  for (auto& j : running_)
    j.handle.cancel();
}

double SharedUnit::cap_factor(double sm_cap) const {
  // A capped job runs alone at most knee / cap times slower (no slower when cap >= knee).
  return std::max(1.0, options_.sm_knee / sm_cap);
}

double SharedUnit::predict_solo_s(const ModelProfile& model, int batch) const {
  return model.gpu_solo_s(batch, gpu_, profile_);
}

double SharedUnit::memory_capacity_gb() const {
  return profile_ != nullptr ? profile_->memory_gb : gpu_.memory_gb;
}

double SharedUnit::memory_used_gb() const {
  double used = 0.0;
  for (const auto& j : running_)
    used += j.memory_gb;
  return used;
}

std::vector<double> SharedUnit::rates() const {
  std::vector<double> r;
  r.reserve(running_.size());
  for (const auto& j : running_)
    r.push_back(j.rate);
  return r;
}

std::vector<Demand> SharedUnit::demands() const {
  std::vector<Demand> d;
  d.reserve(running_.size());
  for (const auto& j : running_)
    d.push_back(j.demand);
  return d;
}

void SharedUnit::submit(BatchJob job) {
  check_submittable(job);
  Job j;
  j.serial = next_serial_++;
  const double capped = cap_factor(job.sm_cap);
  j.remaining_s = predict_solo_s(*job.model, job.batch) * capped;
  j.demand = demand_on(*job.model, job.batch, gpu_, profile_, job.sm_cap, capped);
  j.memory_gb = job.model->memory_gb();
  j.result.id = job.id;
  j.result.submitted = sim_.now();
  j.result.solo_s = j.remaining_s;
  j.job = std::move(job);
  advance();
  queue_.push_back(std::move(j));
  admit();
}

void SharedUnit::advance() {
  const Time now = sim_.now();
  if (now > last_update_) {
    const double elapsed = (now - last_update_).to_seconds();
    for (auto& j : running_)
      j.remaining_s -= elapsed * j.rate;
  }
  last_update_ = now;
}

void SharedUnit::admit() {
  double used = memory_used_gb();
  const double capacity = memory_capacity_gb();
  while (!queue_.empty() && running_.size() < options_.max_clients &&
         used + queue_.front().memory_gb <= capacity + kMemoryEpsilonGb) {
    used += queue_.front().memory_gb;
    running_.push_back(std::move(queue_.front()));
    queue_.pop_front();
    running_.back().result.started = sim_.now();
  }
  // Rates from scratch (sharing_model.hpp), so that no rounding drift accumulates.
  const std::vector<double> rates = co_run_rates(demands(), options_.sharing);
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Job& j = running_[i];
    const bool changed = rates[i] != j.rate;
    j.rate = rates[i];
    if (changed || !j.handle.pending()) schedule(j);
  }
}

void SharedUnit::schedule(Job& j) {
  j.handle.cancel();
  const double left = std::max(0.0, j.remaining_s) / j.rate;
  const std::uint64_t serial = j.serial;
  j.handle =
      sim_.schedule_at(sim_.now() + ceil_seconds(left), [this, serial] { on_finish(serial); });
  ++events_issued_;
}

void SharedUnit::on_finish(std::uint64_t serial) {
  advance();
  auto it = std::find_if(running_.begin(), running_.end(),
                         [serial](const Job& j) { return j.serial == serial; });
  if (it == running_.end()) {
    throw std::logic_error("shared GPU unit " + name() + ": unknown job finished");
  }
  Job done = std::move(*it);
  running_.erase(it);
  done.result.finished = sim_.now();
  ++completed_;
  admit();
  if (done.job.on_complete) done.job.on_complete(done.result);
}

}  // namespace sim::gpu
