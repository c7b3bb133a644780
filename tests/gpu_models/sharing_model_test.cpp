// The sharing physics (sharing_model.hpp): hand-computed demands per MIG profile and property
// tests over the catalog: no resource over-committed, no slice out-serving the whole GPU, work
// conserved, deterministic completion order.
#include "sim/gpu_models/sharing_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "sim/gpu_models/shared_unit.hpp"
#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using testing::a100;
using testing::linear_model;
using testing::repo_catalog;

constexpr double kEps = 1e-9;

TEST(SharingModel, BandwidthDemandPerSliceProfile) {
  const GpuType gpu = a100();
  // FBR 0.3; helper RDFs 7g 1, 4g 1.2, 3g 1.5, 2g 2, 1g 3; bandwidth shares 8/8, 4/8, 4/8,
  // 2/8, 1/8: d = 0.3 / (RDF x share) = 0.3, 0.5, 0.4, 0.6, 0.8.
  const ModelProfile m = linear_model("m", 0.01, 0.02, 0.3);
  const std::map<std::string, double> expected = {
      {"7g.40gb", 0.3}, {"4g.20gb", 0.5}, {"3g.20gb", 0.4}, {"2g.10gb", 0.6}, {"1g.5gb", 0.8}};
  for (const auto& [name, d] : expected) {
    const MigProfile& p = gpu.profile(name);
    EXPECT_NEAR(demand_on(m, 8, gpu, &p).bandwidth, d, 1e-12) << name;
    EXPECT_NEAR(demand_on(m, 8, gpu, &p).compute, 0.8, 1e-12) << name;  // 0.08 / 0.1
  }
  EXPECT_NEAR(demand_on(m, 8, gpu, nullptr).bandwidth, 0.3, 1e-12);
  // A demand above the slice's bandwidth is capped at 1 (the solo time already includes it).
  const ModelProfile heavy = linear_model("h", 0.01, 0.02, 0.9);
  EXPECT_DOUBLE_EQ(demand_on(heavy, 8, gpu, &gpu.profile("1g.5gb")).bandwidth, 1.0);
}

TEST(SharingModel, RatesHandComputed) {
  // Two: c 0.8 + 0.5 = 1.3, d 0.3 + 0.6 = 0.9 -> s 1.3; kappa 0.5:
  // r1 = 1 / (1.3 x 1.3) = 0.591716; r2 = 1 / (1.3 x 1.15) = 0.668896.
  const std::vector<Demand> two = {{0.8, 0.3}, {0.5, 0.6}};
  const auto r = co_run_rates(two, {SharingMode::kMps, 0.5});
  EXPECT_NEAR(r[0], 0.591716, 1e-6);
  EXPECT_NEAR(r[1], 0.668896, 1e-6);
  // Three, bandwidth-bound: c 0.2 x 3 = 0.6, d 0.5 x 3 = 1.5 -> s 1.5, kappa 0: 2/3 each.
  const std::vector<Demand> three(3, Demand{0.2, 0.5});
  for (double x : co_run_rates(three, {}))
    EXPECT_NEAR(x, 2.0 / 3.0, 1e-12);
  // Time-slicing: 1/n whatever the demands.
  for (double x : co_run_rates(three, {SharingMode::kTimeSlice, 0.7}))
    EXPECT_NEAR(x, 1.0 / 3.0, 1e-12);
}

// Every catalog model MPS can run on `profile` (a GPU profile with FBR and an RDF there).
std::vector<const ModelProfile*> runnable(const GpuType& gpu, const MigProfile* profile) {
  std::vector<const ModelProfile*> out;
  for (const auto& [name, m] : repo_catalog().models()) {
    if (!m.gpu || !m.gpu->fbr) continue;
    if (m.memory_gb() > (profile ? profile->memory_gb : gpu.memory_gb)) continue;
    try {
      (void)m.rdf(gpu, profile);
    } catch (const std::invalid_argument&) {
      continue;
    }
    out.push_back(&m);
  }
  return out;
}

int reference_batch(const ModelProfile& m) {
  return m.gpu->reference_batch ? m.gpu->reference_batch->value : 8;
}

TEST(SharingModel, ProteanResNet50SixCoRunnersNeverBeatTheExclusiveGpu) {
  // The example: six ResNet-50 batches of 128 (110 ms solo, 5% fixed) on one A100.
  const GpuType& gpu = repo_catalog().gpu("A100-40GB");
  const ModelProfile& m = repo_catalog().model("protean/resnet-50");
  const double solo = m.gpu_solo_s(128, gpu);
  const std::vector<Demand> six(6, demand_on(m, 128, gpu, nullptr));
  // compute 0.95 each -> s = 5.7 -> rate 1/5.7: 6 x 128 / (0.110 x 5.7) = 1225/s = 1 / xi1, the
  // exclusive peak over batch sizes (an exclusive batch of 128 serves 1164/s).
  const auto r = co_run_rates(six, {});
  double served = 0.0;
  for (double x : r)
    served += 128 * x / solo;
  EXPECT_NEAR(served, 1.0 / m.gpu->xi1_s.value, 1e-6);
  EXPECT_LT(served, 1.06 * 128 / solo);
}

TEST(SharingModel, AggregateNeverExceedsTheUnitAndSlicesNeverBeatTheWholeGpu) {
  std::mt19937_64 rng(17);
  for (const auto& [gname, gpu] : repo_catalog().gpus()) {
    std::vector<const MigProfile*> units = {nullptr};
    for (const auto& p : gpu.mig_profiles)
      units.push_back(&p);
    for (const MigProfile* profile : units) {
      const auto models = runnable(gpu, profile);
      for (const ModelProfile* m : models) {
        const double whole_peak =
            gpu.relative_speed / (m->gpu->reference_speed * m->gpu->xi1_s.value);
        for (int trial = 0; trial < 5; ++trial) {
          const int n = std::uniform_int_distribution<int>(1, 8)(rng);
          const double kappa = std::uniform_real_distribution<double>(0.0, 2.0)(rng);
          std::vector<Demand> d;
          std::vector<int> batches;
          for (int i = 0; i < n; ++i) {
            const int b = std::uniform_int_distribution<int>(1, 2 * reference_batch(*m))(rng);
            batches.push_back(b);
            d.push_back(demand_on(*m, b, gpu, profile));
          }
          const auto r = co_run_rates(d, {SharingMode::kMps, kappa});
          double compute = 0.0, bandwidth = 0.0, served = 0.0;
          for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            compute += d[k].compute * r[k];
            bandwidth += d[k].bandwidth * r[k];
            served += batches[k] * r[k] / m->gpu_solo_s(batches[k], gpu, profile);
          }
          ASSERT_LE(compute, 1.0 + kEps) << m->name << " on " << gname;
          ASSERT_LE(bandwidth, 1.0 + kEps) << m->name << " on " << gname;
          // Samples/s on the unit never above the whole GPU's best exclusive throughput.
          ASSERT_LE(served, whole_peak * (1 + kEps))
              << m->name << " on " << gname << " " << (profile ? profile->name : "whole");
        }
      }
    }
  }
}

// An independent fluid integration of the same rates: event by event, in doubles.
struct RefJob {
  std::uint64_t id;
  double arrival, work, memory;
  Demand demand;
};
std::vector<std::pair<std::uint64_t, double>> fluid_reference(std::vector<RefJob> jobs,
                                                              double capacity,
                                                              const SharingParams& params) {
  std::sort(jobs.begin(), jobs.end(),
            [](const RefJob& a, const RefJob& b) { return a.arrival < b.arrival; });
  std::deque<RefJob> queue;
  std::vector<RefJob> running;
  std::vector<std::pair<std::uint64_t, double>> done;
  std::size_t next = 0;
  double now = 0.0;
  while (next < jobs.size() || !queue.empty() || !running.empty()) {
    double used = 0.0;
    for (const auto& j : running)
      used += j.memory;
    while (!queue.empty() && used + queue.front().memory <= capacity + kEps) {
      used += queue.front().memory;
      running.push_back(queue.front());
      queue.pop_front();
    }
    std::vector<Demand> d;
    for (const auto& j : running)
      d.push_back(j.demand);
    const auto r = co_run_rates(d, params);
    double t_end = std::numeric_limits<double>::infinity();
    std::size_t first = 0;
    for (std::size_t i = 0; i < running.size(); ++i) {
      if (now + running[i].work / r[i] < t_end) {
        t_end = now + running[i].work / r[i];
        first = i;
      }
    }
    const double t_arr =
        next < jobs.size() ? jobs[next].arrival : std::numeric_limits<double>::infinity();
    const double t = std::min(t_end, t_arr);
    for (std::size_t i = 0; i < running.size(); ++i)
      running[i].work -= (t - now) * r[i];
    now = t;
    if (t_end <= t_arr) {
      done.emplace_back(running[first].id, now);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(first));
    } else {
      queue.push_back(jobs[next++]);
    }
  }
  return done;
}

TEST(SharingModel, RandomCoLocationsConserveWorkDeterministically) {
  std::mt19937_64 rng(2024);
  const auto& gpus = repo_catalog().gpus();
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto git = gpus.begin();
    std::advance(git,
                 std::uniform_int_distribution<long>(0, static_cast<long>(gpus.size()) - 1)(rng));
    const GpuType& gpu = git->second;
    const MigProfile* profile = nullptr;
    const auto pick = std::uniform_int_distribution<std::size_t>(0, gpu.mig_profiles.size())(rng);
    if (pick < gpu.mig_profiles.size()) profile = &gpu.mig_profiles[pick];
    const auto models = runnable(gpu, profile);
    if (models.empty()) continue;
    SharingParams params;
    params.interference = std::uniform_real_distribution<double>(0.0, 1.5)(rng);
    params.mode = trial % 4 == 3 ? SharingMode::kTimeSlice : SharingMode::kMps;
    const int n = std::uniform_int_distribution<int>(2, 10)(rng);
    std::vector<RefJob> ref;
    std::vector<std::tuple<double, const ModelProfile*, int>> submits;
    for (int i = 0; i < n; ++i) {
      const ModelProfile* m =
          models[std::uniform_int_distribution<std::size_t>(0, models.size() - 1)(rng)];
      const int b = std::uniform_int_distribution<int>(1, reference_batch(*m))(rng);
      const double at =
          std::round(std::uniform_real_distribution<double>(0.0, 0.5)(rng) * 1e6) / 1e6;
      submits.emplace_back(at, m, b);
      ref.push_back({static_cast<std::uint64_t>(i), at, m->gpu_solo_s(b, gpu, profile),
                     m->memory_gb(), demand_on(*m, b, gpu, profile)});
    }
    auto run_unit = [&] {
      Simulation sim;
      SharedUnitOptions o;
      o.sharing = params;
      SharedUnit unit(sim, "u", gpu, profile, o);
      std::vector<std::pair<std::uint64_t, Time>> order;
      for (std::size_t i = 0; i < submits.size(); ++i) {
        const auto& [at, m, b] = submits[i];
        sim.schedule_at(seconds(at), [&, i, m = m, b = b] {
          unit.submit({i, m, b, 1.0, [&](const JobResult& r) {
                         EXPECT_GE((r.finished - r.started).to_seconds(), r.solo_s - 1e-9);
                         order.emplace_back(r.id, r.finished);
                       }});
        });
      }
      sim.run();
      return order;
    };
    ++checked;
    const auto first = run_unit();
    EXPECT_EQ(first, run_unit()) << "trial " << trial;  // deterministic
    const auto expected =
        fluid_reference(ref, profile ? profile->memory_gb : gpu.memory_gb, params);
    ASSERT_EQ(first.size(), expected.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      const auto& [id, t] = first[i];
      const auto it = std::find_if(expected.begin(), expected.end(),
                                   [id = id](const auto& e) { return e.first == id; });
      ASSERT_NE(it, expected.end());
      // Each batch ends when its integrated progress reaches its solo work (to rounding).
      EXPECT_NEAR(t.to_seconds(), it->second, 1e-6) << "trial " << trial << " job " << id;
    }
  }
  EXPECT_GE(checked, 40);  // most trials find runnable models
}

}  // namespace
}  // namespace sim::gpu
