// Idle sets (Dispatcher::idle_set) over instances that come and go: the platform tells each
// set when an instance terminates (IdleSet::forget), so a set that keeps state beyond
// membership (INFless's smooth WRR credits) can drop it and grows with the live instances,
// not with every instance ever started.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness.hpp"
#include "infless/request_path.hpp"

namespace sim::platform {
namespace {

namespace ref = policy::reference;
using policy::InstanceId;
using testing::Harness;

struct Seen {
  std::set<InstanceId> kept;  ///< inserted ever, not forgotten
  std::set<InstanceId> forgotten;
  std::size_t inserts = 0;
  bool reinserted = false;  ///< an id inserted after it was forgotten
};

// INFless's idle set, watched.
class ProbeSet final : public policy::IdleSet {
 public:
  ProbeSet(std::unique_ptr<policy::IdleSet> inner, Seen& seen)
      : inner_(std::move(inner)), seen_(seen) {}
  void insert(const policy::InstanceView& i) override {
    if (seen_.forgotten.contains(i.id)) seen_.reinserted = true;
    seen_.kept.insert(i.id);
    ++seen_.inserts;
    inner_->insert(i);
  }
  void erase(InstanceId id) override { inner_->erase(id); }
  void forget(InstanceId id) override {
    seen_.kept.erase(id);
    seen_.forgotten.insert(id);
    inner_->forget(id);
  }
  std::optional<InstanceId> choose(const policy::DispatchView& v) override {
    return inner_->choose(v);
  }

 private:
  std::unique_ptr<policy::IdleSet> inner_;
  Seen& seen_;
};

class ProbeDispatcher final : public policy::Dispatcher {
 public:
  explicit ProbeDispatcher(Seen& seen) : seen_(seen) {}
  std::optional<InstanceId> choose(const policy::DispatchView& v) override {
    return inner_.choose(v);
  }
  std::unique_ptr<policy::IdleSet> idle_set() override {
    return std::make_unique<ProbeSet>(inner_.idle_set(), seen_);
  }

 private:
  policy::infless::RateSplitDispatcher inner_{1.0};
  Seen& seen_;
};

// Bursts of arrivals separated by lulls longer than the 1 s keep-alive: the reactive
// autoscaler starts instances for each burst and the keep-alive stops them in the lull. After
// each lull, the ids the set was told of and not told to forget are live instances only.
TEST(IdleSets, TerminatedInstancesAreForgotten) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(2, "A100-40GB", 2));
  auto f = testing::function("f", "protean/resnet-50", 4);
  f.batch_timeout = ms(5);
  f.model_bytes = 1e8;  // cold starts well under a second
  c.functions = {f};
  c.rate_windows = {seconds(1)};
  Seen seen;
  auto p = testing::reference_policies();
  p.dispatcher = std::make_unique<ProbeDispatcher>(seen);
  p.autoscaler = std::make_unique<ref::ReactiveRateAutoscaler>(
      ref::ReactiveRateAutoscaler::Config{0.6, 0, 0, 4, false});
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(1), 0);
  Harness h(std::move(c), std::move(p), 3);
  RandomStream rng(3);
  constexpr int kBursts = 8;
  for (int b = 0; b < kBursts; ++b) {
    for (double t = 10.0 * b; t < 10.0 * b + 3.0;) {
      t += rng.exponential(300.0);
      h.arrive(seconds(t), 0);
    }
  }
  std::size_t most_live = 0;
  for (int b = 0; b < kBursts; ++b) {
    h.sim.run_until(seconds(10.0 * b + 3.0));
    most_live = std::max(most_live, h.platform->live_instances());
    h.sim.run_until(seconds(10.0 * b + 9.9));
    EXPECT_EQ(h.platform->live_instances(), 0U) << "lull " << b;
    EXPECT_TRUE(seen.kept.empty()) << "lull " << b << ": " << seen.kept.size() << " kept";
  }
  EXPECT_EQ(h.platform->requests_in_system(), 0U);
  EXPECT_EQ(h.records.size(), h.arrived);
  // Instances came and went: every burst started some, more than were ever live at once.
  EXPECT_GT(seen.inserts, 0U);
  EXPECT_GE(seen.forgotten.size(), static_cast<std::size_t>(kBursts));
  EXPECT_GT(seen.forgotten.size(), most_live);
  EXPECT_EQ(seen.forgotten.size(), h.platform->cold_starts().size());
  EXPECT_FALSE(seen.reinserted);
}

// The dispatcher shown every idle instance (no idle sets: per-node dispatch scans the
// idle instances) is told of every termination too: after each lull the INFless
// dispatcher keeps no credit.
class ScanDispatcher final : public policy::Dispatcher {
 public:
  explicit ScanDispatcher(std::size_t& forgotten) : forgotten_(forgotten) {}
  std::optional<InstanceId> choose(const policy::DispatchView& v) override {
    ++chosen_;
    return inner_.choose(v);
  }
  void forget(InstanceId id) override {
    ++forgotten_;
    inner_.forget(id);
  }
  [[nodiscard]] std::size_t kept() const { return inner_.kept(); }
  [[nodiscard]] std::size_t chosen() const { return chosen_; }

 private:
  policy::infless::RateSplitDispatcher inner_{1.0};
  std::size_t& forgotten_;
  std::size_t chosen_ = 0;
};

TEST(IdleSets, ScanPathDispatcherForgetsTerminatedInstances) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(2, "A100-40GB", 2));
  auto f = testing::function("f", "protean/resnet-50", 4);
  f.batch_timeout = ms(5);
  f.model_bytes = 1e8;
  c.functions = {f};
  c.rate_windows = {seconds(1)};
  c.dispatch_scope = DispatchScope::kNode;
  std::size_t forgotten = 0;
  auto p = testing::reference_policies();
  auto d = std::make_unique<ScanDispatcher>(forgotten);
  const ScanDispatcher* probe = d.get();
  p.dispatcher = std::move(d);
  p.autoscaler = std::make_unique<ref::ReactiveRateAutoscaler>(
      ref::ReactiveRateAutoscaler::Config{0.6, 0, 0, 4, false});
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(1), 0);
  Harness h(std::move(c), std::move(p), 3);
  RandomStream rng(5);
  constexpr int kBursts = 6;
  for (int b = 0; b < kBursts; ++b) {
    for (double t = 10.0 * b; t < 10.0 * b + 3.0;) {
      t += rng.exponential(300.0);
      h.arrive(seconds(t), 0);
    }
  }
  for (int b = 0; b < kBursts; ++b) {
    h.sim.run_until(seconds(10.0 * b + 9.9));
    EXPECT_EQ(h.platform->live_instances(), 0U) << "lull " << b;
    EXPECT_EQ(probe->kept(), 0U) << "lull " << b;
  }
  EXPECT_GT(probe->chosen(), 0U);  // the scan path ran
  EXPECT_EQ(forgotten, h.platform->cold_starts().size());
  EXPECT_EQ(h.records.size(), h.arrived);
}

}  // namespace
}  // namespace sim::platform
