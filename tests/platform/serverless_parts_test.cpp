// Parts of the serverless control plane tested on their own (src/platform/serverless/): the
// instance lifecycle, the one request-record construction site, Flashpoint's partition plan,
// the cold-start figures of a log, a statistics subscriber's summary block.

#include <gtest/gtest.h>

#include <stdexcept>

#include "cold_start_stats.hpp"
#include "model.hpp"
#include "partition_plan.hpp"
#include "records.hpp"
#include "replica_stats.hpp"
#include "statistics.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {
namespace {

TEST(ServerlessLifecycle, TransitionsWriteStateAndTimestamps) {
  StateCounts counts;
  Lifecycle life(seconds(2), counts);
  EXPECT_EQ(life.state(), InstanceState::kColdStarting);
  EXPECT_EQ(life.created(), seconds(2));
  EXPECT_EQ(life.state_since(), seconds(2));
  EXPECT_EQ(life.ready_at(), Time::zero());

  life.transition(InstanceEvent::kReady, seconds(5));
  EXPECT_EQ(life.state(), InstanceState::kIdle);
  EXPECT_EQ(life.state_since(), seconds(5));
  EXPECT_EQ(life.ready_at(), seconds(5));
  EXPECT_EQ(life.idle_since(), seconds(5));

  life.transition(InstanceEvent::kDispatched, seconds(7));
  EXPECT_EQ(life.state(), InstanceState::kBusy);
  EXPECT_EQ(life.state_since(), seconds(7));
  EXPECT_EQ(life.idle_since(), seconds(5));  // a batch's avail reads it after the dispatch

  // Draining keeps the time the instance became busy.
  life.transition(InstanceEvent::kDrain, seconds(8));
  EXPECT_EQ(life.state(), InstanceState::kDraining);
  EXPECT_EQ(life.state_since(), seconds(7));

  life.transition(InstanceEvent::kBatchDone, seconds(9));
  EXPECT_EQ(life.state(), InstanceState::kIdle);
  EXPECT_EQ(life.state_since(), seconds(9));
  EXPECT_EQ(life.idle_since(), seconds(9));
  EXPECT_EQ(life.ready_at(), seconds(5));
  EXPECT_EQ(life.created(), seconds(2));

  life.transition(InstanceEvent::kTerminate, seconds(10));
  EXPECT_EQ(life.state(), InstanceState::kTerminated);
}

TEST(ServerlessLifecycle, RejectsEventsTheStateDoesNotAllow) {
  StateCounts counts;
  Lifecycle cold(Time::zero(), counts);
  EXPECT_THROW(cold.transition(InstanceEvent::kDispatched, seconds(1)), std::logic_error);
  EXPECT_THROW(cold.transition(InstanceEvent::kBatchDone, seconds(1)), std::logic_error);
  EXPECT_THROW(cold.transition(InstanceEvent::kDrain, seconds(1)), std::logic_error);
  Lifecycle idle(Time::zero(), counts);
  idle.transition(InstanceEvent::kReady, seconds(1));
  EXPECT_THROW(idle.transition(InstanceEvent::kBatchDone, seconds(2)), std::logic_error);
  idle.transition(InstanceEvent::kDispatched, seconds(2));
  EXPECT_THROW(idle.transition(InstanceEvent::kReady, seconds(3)), std::logic_error);
  EXPECT_THROW(idle.transition(InstanceEvent::kDispatched, seconds(3)), std::logic_error);
}

/// The counts by state Lifecycle keeps for a function, step by step, and the scan that checks
/// them (check_state_counts), which must catch an instance counted under another function.
TEST(ServerlessLifecycle, CountsFollowEveryTransition) {
  Fn fn;
  fn.spec.name = "f";
  Instances instances;
  const auto add = [&](InstanceId id, StateCounts& counts) -> Inst& {
    auto inst = std::make_unique<Inst>(Time::zero(), counts);
    inst->id = id;
    inst->fn = &fn;
    fn.instances.insert(id);
    Inst& ref = *inst;
    instances.emplace(id, std::move(inst));
    return ref;
  };
  const auto expect_counts = [&](int cold, int idle, int busy, int draining, int terminated) {
    EXPECT_EQ(fn.states[InstanceState::kColdStarting], cold);
    EXPECT_EQ(fn.states[InstanceState::kIdle], idle);
    EXPECT_EQ(fn.states[InstanceState::kBusy], busy);
    EXPECT_EQ(fn.states[InstanceState::kDraining], draining);
    EXPECT_EQ(fn.states[InstanceState::kTerminated], terminated);
  };
  Inst& a = add(1, fn.states);
  Inst& b = add(2, fn.states);
  Inst& c = add(3, fn.states);
  expect_counts(3, 0, 0, 0, 0);
  a.life.transition(InstanceEvent::kReady, seconds(1));
  b.life.transition(InstanceEvent::kReady, seconds(1));
  expect_counts(1, 2, 0, 0, 0);
  b.life.transition(InstanceEvent::kDispatched, seconds(2));
  expect_counts(1, 1, 1, 0, 0);
  b.life.transition(InstanceEvent::kDrain, seconds(3));
  expect_counts(1, 1, 0, 1, 0);
  b.life.transition(InstanceEvent::kDrain, seconds(3));  // draining again: no move
  expect_counts(1, 1, 0, 1, 0);
  EXPECT_NO_THROW(check_state_counts(fn, instances));
  // A rejected event changes neither the state nor the counts.
  EXPECT_THROW(c.life.transition(InstanceEvent::kDispatched, seconds(4)), std::logic_error);
  expect_counts(1, 1, 0, 1, 0);
  b.life.transition(InstanceEvent::kBatchDone, seconds(5));
  expect_counts(1, 2, 0, 0, 0);
  c.life.transition(InstanceEvent::kTerminate, seconds(6));
  fn.instances.erase(3);
  expect_counts(0, 2, 0, 0, 1);
  EXPECT_NO_THROW(check_state_counts(fn, instances));

  // An instance of fn whose lifecycle counts elsewhere: the scan finds one more idle.
  StateCounts elsewhere;
  add(4, elsewhere).life.transition(InstanceEvent::kReady, seconds(7));
  EXPECT_EQ(elsewhere[InstanceState::kIdle], 1);
  expect_counts(0, 2, 0, 0, 1);
  EXPECT_THROW(check_state_counts(fn, instances), std::logic_error);
}

/// function_view reads the counts Lifecycle keeps and the rates over the windows: arrivals at
/// 1, 5, 8 and 9.5 s, viewed at 10 s, count in (10 s - w, 10 s]: w = 10 s: all 4, 0.4/s;
/// w = 2 s: 9.5 s only (8 s is the window's open end), 0.5/s; w = 5 s: 8 and 9.5 s, 0.4/s.
TEST(ServerlessViews, FunctionViewCountsAndRates) {
  Fn fn;
  fn.id = 3;
  fn.spec.name = "f";
  fn.recent = {seconds(1), seconds(5), seconds(8), seconds(9.5)};
  fn.arrivals = 4;
  Instances instances;
  for (InstanceId id = 1; id <= 4; ++id) {
    auto inst = std::make_unique<Inst>(Time::zero(), fn.states);
    inst->id = id;
    inst->fn = &fn;
    fn.instances.insert(id);
    instances.emplace(id, std::move(inst));
  }
  instances.at(2)->life.transition(InstanceEvent::kReady, seconds(1));
  instances.at(3)->life.transition(InstanceEvent::kReady, seconds(1));
  instances.at(3)->life.transition(InstanceEvent::kDispatched, seconds(2));
  instances.at(4)->life.transition(InstanceEvent::kReady, seconds(1));
  instances.at(4)->life.transition(InstanceEvent::kDispatched, seconds(2));
  instances.at(4)->life.transition(InstanceEvent::kDrain, seconds(3));
  const std::vector<Time> windows{seconds(10), seconds(2), seconds(5)};
  const policy::FunctionView fv = function_view(fn, seconds(10), windows);
  EXPECT_EQ(fv.id, 3U);
  EXPECT_EQ(fv.cold_starting, 1);
  EXPECT_EQ(fv.idle, 1);
  EXPECT_EQ(fv.busy, 2);  // busy and draining
  EXPECT_EQ(fv.live(), 4);
  ASSERT_EQ(fv.arrival_rate.size(), 3U);
  EXPECT_DOUBLE_EQ(fv.arrival_rate[0], 0.4);
  EXPECT_DOUBLE_EQ(fv.arrival_rate[1], 0.5);
  EXPECT_DOUBLE_EQ(fv.arrival_rate[2], 0.4);
  EXPECT_EQ(fv.arrivals, 4U);
  EXPECT_EQ(fv.oldest_wait, Time::zero());  // nothing queued

  // Later: two more arrivals, the tick has dropped the one at 1 s, instance 1 is ready.
  // Viewed at 14 s: w = 10 s: (4, 14] holds 5, 8, 9.5, 12, 13.5: 0.5/s; w = 2 s: (12, 14]
  // holds 13.5: 0.5/s; w = 5 s: (9, 14] holds 9.5, 12, 13.5: 0.6/s. The refreshed view (the
  // keep-alive's) equals a fresh one.
  fn.recent.pop_front();
  ++fn.recent_dropped;
  fn.recent.push_back(seconds(12));
  fn.recent.push_back(seconds(13.5));
  fn.arrivals = 6;
  instances.at(1)->life.transition(InstanceEvent::kReady, seconds(13));
  policy::FunctionView refreshed = fv;
  refresh_function_view(refreshed, fn, seconds(14), windows);
  const policy::FunctionView fresh = function_view(fn, seconds(14), windows);
  for (const policy::FunctionView* v :
       {static_cast<const policy::FunctionView*>(&refreshed), &fresh}) {
    EXPECT_EQ(v->name, "f");
    EXPECT_EQ(v->cold_starting, 0);
    EXPECT_EQ(v->idle, 2);
    EXPECT_EQ(v->busy, 2);
    EXPECT_EQ(v->arrivals, 6U);
    ASSERT_EQ(v->arrival_rate.size(), 3U);
    EXPECT_DOUBLE_EQ(v->arrival_rate[0], 0.5);
    EXPECT_DOUBLE_EQ(v->arrival_rate[1], 0.5);
    EXPECT_DOUBLE_EQ(v->arrival_rate[2], 0.6);
  }
  // An earlier time (only tests go back) searches again from the front: at 10 s, w = 5 s
  // starts at 8 s again and counts up to the newest arrival, as a binary search would: 8, 9.5,
  // 12, 13.5, 0.8/s (kept where the 14 s view left it, it would start at 9.5 s: 0.6/s).
  EXPECT_DOUBLE_EQ(function_view(fn, seconds(10), windows).arrival_rate[2], 0.8);
}

/// refresh_view (the control plane's view, refreshed in place per dispatched batch) equals a
/// view built afresh: a stale view's instances, cold starts and counts are all rewritten, and
/// another set of functions is built anew.
TEST(ServerlessViews, RefreshedPlatformViewEqualsAFreshOne) {
  std::vector<std::unique_ptr<Fn>> fns;
  for (std::uint32_t id = 0; id < 2; ++id) {
    fns.push_back(std::make_unique<Fn>());
    fns.back()->id = id;
    fns.back()->spec.name = id == 0 ? "a" : "b";
  }
  fns[0]->recent = {seconds(1), seconds(2)};
  fns[0]->arrivals = 2;
  Instances instances;
  for (InstanceId id = 1; id <= 3; ++id) {
    auto inst = std::make_unique<Inst>(Time::zero(), fns[0]->states);
    inst->id = id;
    inst->fn = fns[0].get();
    fns[0]->instances.insert(id);
    instances.emplace(id, std::move(inst));
  }
  instances.at(2)->life.transition(InstanceEvent::kReady, seconds(1));
  const std::vector<Time> windows{seconds(10)};
  const Hosts hosts;
  policy::PlatformView v = build_view({seconds(3), seconds(1), windows, 0, fns, instances, hosts});
  ASSERT_EQ(v.instances.size(), 3U);
  EXPECT_EQ(v.cold_starts.size(), 2U);  // instances 1 and 3
  EXPECT_DOUBLE_EQ(v.functions[0].arrival_rate[0], 0.2);

  // Instance 1 terminates (gone from the map), 3 becomes ready, one more arrival.
  instances.at(1)->life.transition(InstanceEvent::kTerminate, seconds(4));
  fns[0]->instances.erase(1);
  instances.erase(1);
  instances.at(3)->life.transition(InstanceEvent::kReady, seconds(4));
  fns[0]->recent.push_back(seconds(4));
  fns[0]->arrivals = 3;
  refresh_view(v, {seconds(5), seconds(1), windows, 0, fns, instances, hosts});
  ASSERT_EQ(v.instances.size(), 2U);
  EXPECT_EQ(v.instances[0].id, 2U);
  EXPECT_EQ(v.instances[1].id, 3U);
  EXPECT_EQ(v.instances[1].state, InstanceState::kIdle);
  EXPECT_TRUE(v.cold_starts.empty());
  ASSERT_EQ(v.functions.size(), 2U);
  EXPECT_EQ(v.functions[0].idle, 2);
  EXPECT_EQ(v.functions[0].cold_starting, 0);
  EXPECT_EQ(v.functions[0].arrivals, 3U);
  EXPECT_DOUBLE_EQ(v.functions[0].arrival_rate[0], 0.3);
  EXPECT_EQ(v.now, seconds(5));

  // Another set of functions: the view's functions are rebuilt (names and all).
  std::vector<std::unique_ptr<Fn>> other;
  other.push_back(std::make_unique<Fn>());
  other.back()->id = 7;
  other.back()->spec.name = "c";
  refresh_view(v, {seconds(6), seconds(1), windows, 0, other, Instances{}, hosts});
  ASSERT_EQ(v.functions.size(), 1U);
  EXPECT_EQ(v.functions[0].id, 7U);
  EXPECT_EQ(v.functions[0].name, "c");
  EXPECT_TRUE(v.instances.empty());
}

TEST(ServerlessRecords, ServedRecordDecomposesTheLatency) {
  // Arrives at 10 s while its instance cold-starts (ready at 12 s), waits for the batcher until
  // 13 s, queues for the unit until 14 s, runs 3 s: 2 + 1 + 1 + 3 = 7 s > its 5 s SLO.
  Request q;
  q.arrival.time = seconds(10);
  q.arrival.function = 1;
  q.arrival.application = 2;
  q.arrival.cls = traces::RequestClass::kBestEffort;
  q.arrival.slo = seconds(5);
  q.id = 42;
  const BatchTimes t{seconds(13), seconds(12), seconds(12), seconds(14), seconds(17), 4, 3, -1};
  const auto r = served_record(q, t);
  EXPECT_EQ(r.id, 42U);
  EXPECT_EQ(r.function, 1U);
  EXPECT_EQ(r.application, 2U);
  EXPECT_EQ(r.cls, metrics::RequestClass::kBestEffort);
  EXPECT_EQ(r.cold_start_wait, seconds(2));
  EXPECT_EQ(r.batching_wait, seconds(1));
  EXPECT_EQ(r.queue_wait, seconds(1));
  EXPECT_EQ(r.execution, seconds(3));
  EXPECT_EQ(r.batch_size, 4U);
  EXPECT_EQ(r.device, 3);
  EXPECT_EQ(r.outcome, metrics::Outcome::kSloMiss);

  const auto d = dropped_record(q.arrival, 43, seconds(11));
  EXPECT_EQ(d.outcome, metrics::Outcome::kDropped);
  EXPECT_EQ(d.finish, seconds(11));
  EXPECT_EQ(d.id, 43U);
}

TEST(ServerlessPartitionPlan, PartsPipelineAndCompletionFollowTheLayers) {
  gpu::ModelProfile model;
  model.cold_start.emplace();
  model.cold_start->load_s.value = 10.0;
  Fn fn;
  fn.model = &model;
  fn.bytes = 1000.0;
  fn.layer_share = {0.5, 0.3, 0.2};
  fn.layers = {{0.0, 1.0, 0.5}, {0.0, 2.0, 4.0}, {0.0, 3.0, 0.0}};

  policy::PartitionSpec spec;
  spec.cut_after = {0};
  // host 8000 bit/s = 1000 B/s, PCIe 80000 bit/s = 10000 B/s.
  const auto plan = plan_partition(fn, spec, 8000.0, 80000.0);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->parts.size(), 2U);
  EXPECT_DOUBLE_EQ(plan->parts[0].bytes, 500.0);
  EXPECT_DOUBLE_EQ(plan->parts[0].load_s, 5.0);
  EXPECT_DOUBLE_EQ(plan->parts[1].bytes, 500.0);
  EXPECT_EQ(plan->parts[1].part, 1);
  EXPECT_EQ(plan->parts[1].parts, 2);
  // E = max(1, 2 + 3) = 5, N = 0.5: a batch every 5 s; I = 1 + 0.5 + 2 + 3 = 6.5 s.
  EXPECT_DOUBLE_EQ(plan->interval_s, 5.0);
  EXPECT_DOUBLE_EQ(plan->latency_s, 6.5);
  // The other 500 B: 0.5 s over the network, 10 x 0.5 = 5 s load, 0.05 s copy.
  EXPECT_DOUBLE_EQ(plan->completion_s, 5.55);

  spec.complete = false;
  EXPECT_DOUBLE_EQ(plan_partition(fn, spec, 8000.0, 80000.0)->completion_s, -1.0);
  spec.cut_after = {1, 0};  // not increasing
  EXPECT_FALSE(plan_partition(fn, spec, 8000.0, 80000.0));
  spec.cut_after = {2};  // after the last layer
  EXPECT_FALSE(plan_partition(fn, spec, 8000.0, 80000.0));
}

ColdStartRecord cold(policy::InstanceId id, policy::InstanceId replica, policy::SourceKind source,
                     double started, double download, double load, double copy, bool completed) {
  ColdStartRecord c;
  c.instance = id;
  c.replica = replica;
  c.function = 0;
  c.source = source;
  c.started = seconds(started);
  c.download = seconds(download);
  c.load = seconds(load);
  c.copy = seconds(copy);
  c.completed = completed;
  return c;
}

// A full instance from the store (8 + 1.5 + 0.5 = 10 s), a 2-part replica (head 5) whose parts
// begin at 2 s and 3 s and are ready at 2 + 3 + 1 = 6 s and 3 + 4 + 2 = 9 s (replica: 2 -> 9 s),
// a local copy (0.5 s), a full instance stopped while cold-starting, and a replica (head 8)
// with a part that never completed. Warm execution 0.5 s.
TEST(ServerlessColdStartStats, BySourceAndPerReplica) {
  using policy::SourceKind;
  const std::vector<ColdStartRecord> log{cold(1, 0, SourceKind::kStore, 0, 8, 1.5, 0.5, true),
                                         cold(5, 5, SourceKind::kStore, 2, 3, 1, 0, true),
                                         cold(6, 5, SourceKind::kRemoteHost, 3, 4, 2, 0, true),
                                         cold(7, 0, SourceKind::kLocalMemory, 20, 0, 0, 0.5, true),
                                         cold(8, 8, SourceKind::kStore, 30, 1, 0, 0, true),
                                         cold(9, 8, SourceKind::kStore, 30, 0, 0, 0, false),
                                         cold(10, 0, SourceKind::kStore, 40, 0, 0, 0, false)};
  const auto per = cold_starts_per_replica(log);
  EXPECT_EQ(per["count"], 3);        // instance 1, replica 5, instance 7
  EXPECT_EQ(per["partitioned"], 1);  // replica 8 never became ready
  EXPECT_NEAR(per["mean_s"].get<double>(), (10.0 + 7.0 + 0.5) / 3, 1e-12);

  const auto by = cold_starts_by_source(log, {{0, 0.5}});
  const auto& store = by["store"];
  EXPECT_EQ(store["count"], 5);
  EXPECT_EQ(store["completed"], 3);  // 1, 5, 8
  EXPECT_NEAR(store["mean_s"].get<double>(), (10.0 + 4.0 + 1.0) / 3, 1e-12);
  EXPECT_NEAR(store["by_stage"]["download_s"].get<double>(), (8.0 + 3.0 + 1.0) / 3, 1e-12);
  EXPECT_NEAR(store["warm_multiple"].get<double>(), (20.0 + 8.0 + 2.0) / 3, 1e-12);
  EXPECT_NEAR(by["remote_host"]["warm_multiple"].get<double>(), 12.0, 1e-12);
  EXPECT_NEAR(by["local_memory"]["warm_multiple"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(by["local_memory"]["warm_multiple_count"], 1);
  // A function that never ran warm has no unit: null multiples.
  EXPECT_TRUE(cold_starts_by_source(log, {})["store"]["warm_multiple"].is_null());
  EXPECT_TRUE(cold_starts_per_replica({})["mean_s"].is_null());
}

// The runtime stage (platform.cluster.runtime_start) is part of a cold start under every
// definition: a store cold start of 8 s download + 1 s runtime + 1.5 s load + 0.5 s copy = 11 s,
// 22 warm starts of 0.5 s.
TEST(ServerlessColdStartStats, RuntimeStageCountsInEveryDefinition) {
  auto c = cold(1, 0, policy::SourceKind::kStore, 0, 8, 1.5, 0.5, true);
  c.runtime = seconds(1);
  const auto by = cold_starts_by_source({c}, {{0, 0.5}});
  EXPECT_NEAR(by["store"]["mean_s"].get<double>(), 11.0, 1e-12);
  EXPECT_NEAR(by["store"]["by_stage"]["runtime_s"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(by["store"]["warm_multiple"].get<double>(), 22.0, 1e-12);
  EXPECT_NEAR(cold_starts_per_replica({c})["mean_s"].get<double>(), 11.0, 1e-12);
}

TEST(ServerlessStatistics, PartitionedReplicasWriteTheirBlockOnlyWhenAnyStarted) {
  Statistics stats;
  stats.add<PartitionedReplicas>();
  const Hosts hosts;
  const Instances instances;
  const std::vector<std::unique_ptr<Fn>> functions;
  const policy::PlatformView view;
  const std::vector<ColdStartRecord> log;
  const SummaryInputs in{Time::zero(), hosts, instances, functions, view, log};
  nlohmann::json out = nlohmann::json::object();
  stats.write_summary(out, in);
  EXPECT_FALSE(out.contains("partitioned_replicas"));
  stats.replica_started(2);
  stats.replica_started(3);
  stats.replica_started(2);
  stats.write_summary(out, in);
  EXPECT_EQ(out["partitioned_replicas"],
            nlohmann::json({{"started", 3}, {"by_parts", {{"2", 2}, {"3", 1}}}}));
}

}  // namespace
}  // namespace sim::platform::serverless
