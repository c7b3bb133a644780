// Spot revocations (Protean §2.3, §4.5, §5): the interval model (a notice with probability
// P_rev at fixed intervals), and the host under notice serving until its replacement is up.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

/// The set-up of serverless_platform_test's SpotRevocationDrainsAndLosesNothing: host 0 (spot)
/// gets a 30 s notice at 30 s for a revocation at 60 s; one instance serves requests arriving
/// every 5 s, one at a time, 4 s each, on host 0 (device 0) from 13.2 s. Up to the notice the
/// instance runs the requests of 0..20 s at 13.2, 17.2, 21.2, 25.2 and 29.2 s; the backlog of
/// one request then stays (request 5i starts at 4i + 13.2 s while on device 0).
struct Outcome {
  std::vector<metrics::RequestRecord> records;
  std::uint64_t in_system = 0;
  nlohmann::json extra;
  std::uint64_t dequeued = 0;  ///< policy::FunctionView::dequeued of the function
  double dequeued_wait_s = 0.0;
};

Outcome revoked_at_60s(SpotDrain drain, Time provisioning, Time lead,
                       SpotRevokedBatches cut = SpotRevokedBatches::kFinish) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1, "A100-40GB", 2);
  t.spec.market = cluster::Market::kSpot;
  t.spec.price_per_hour = 1.0;
  c.hosts.push_back(t);
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  c.provisioning_delay = provisioning;
  c.spot.notice_min = c.spot.notice_max = seconds(30);
  c.spot.scheduled.push_back({0, seconds(60)});
  c.spot.drain = drain;
  c.spot.drain_lead = lead;
  c.spot.revoked_batches = cut;
  auto f = testing::function("f", "test/fig42", 1);
  f.model_bytes = 1e8;
  c.functions.push_back(f);
  auto p = testing::reference_policies();
  p.procurement = std::make_unique<ref::ReplaceRevoked>(std::nullopt);
  Harness h(std::move(c), std::move(p));
  for (int i = 0; i <= 40; ++i)
    h.arrive(seconds(5.0 * i), 0);
  h.sim.run_until(seconds(300));
  const auto view = h.platform->view();
  return {h.records, h.platform->requests_in_system(), h.platform->summary_extra(h.sim.now()),
          view.functions[0].dequeued, view.functions[0].dequeued_wait_s};
}

Time last_start_on_device0(const Outcome& h) {
  Time last;
  for (const auto& r : h.records)
    if (r.device == 0) last = std::max(last, r.start);
  return last;
}

/// Drain at the notice (the old behaviour): nothing starts on host 0 after 30 s.
TEST(SpotRevocation, DrainAtNoticeStopsTheHostAtTheNotice) {
  auto h = revoked_at_60s(SpotDrain::kAtNotice, seconds(20), seconds(1));
  EXPECT_EQ(last_start_on_device0(h), seconds(29.2));
  EXPECT_EQ(h.records.size(), 41u);
}

/// Drain at the replacement (§4.5): the replacement, requested at the 30 s notice, is up at
/// 50 s; host 0 keeps serving until then: its starts at 33.2, 37.2, 41.2, 45.2 and 49.2 s
/// (requests of 25..45 s), the last finishing at 53.2 s, before the revocation at 60 s.
TEST(SpotRevocation, DrainAtReplacementServesUntilTheReplacementIsUp) {
  auto h = revoked_at_60s(SpotDrain::kAtReplacement, seconds(20), seconds(1));
  EXPECT_EQ(last_start_on_device0(h), seconds(49.2));
  int after_notice = 0;
  for (const auto& r : h.records)
    if (r.device == 0 && r.start > seconds(30)) ++after_notice;
  EXPECT_EQ(after_notice, 5);
  EXPECT_EQ(h.records.size(), 41u);
  EXPECT_EQ(h.in_system, 0u);
  const auto& extra = h.extra;
  EXPECT_EQ(extra["spot"]["notices"], 1);
  EXPECT_EQ(extra["spot"]["revocations"], 1);
  EXPECT_EQ(extra["spot"]["batches_running_at_revocation"], 0);
  // Cost as with the drain at the notice: host 0 60 s, host 1 300 s, replacement 250 s.
  EXPECT_NEAR(extra["cost_usd"]["spot"].get<double>(), (60.0 + 300.0 + 250.0) / 3600.0, 1e-12);
}

/// No replacement before the revocation (provisioning 100 s): host 0 serves until the drain
/// lead before 60 s. Lead 5 s: drained at 55 s, last start 53.2 s (finishes 57.2 s), nothing
/// runs at the revocation. Lead 1 s: drained at 59 s, last start 57.2 s, finishing at 61.2 s,
/// after the revocation: one batch running at it.
TEST(SpotRevocation, DrainLeadBeforeTheRevocationWithoutReplacement) {
  auto five = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(5));
  EXPECT_EQ(last_start_on_device0(five), seconds(53.2));
  EXPECT_EQ(five.extra["spot"]["batches_running_at_revocation"], 0);
  auto one = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1));
  EXPECT_EQ(last_start_on_device0(one), seconds(57.2));
  EXPECT_EQ(one.extra["spot"]["batches_running_at_revocation"], 1);
  EXPECT_EQ(one.records.size(), 41u);
}

/// The batch running at the revocation (lead 1 s: the request of 55 s, started at 57.2 s on
/// host 0, due at 61.2 s) is cut at 60 s when the spot_revoked_batches setting says so. Drop:
/// its request is recorded dropped at 60 s, the other 40 served, none on host 0 after 60 s.
/// Requeue: it goes back through the gateway at 60 s and joins the queue's end like a new
/// arrival (keeping its arrival time), behind the request of 60 s, which arrived before the
/// revocation event of the same instant. So the request of 60 s starts where and when it does
/// when the batch is let finish (host 1, device 1), the cut one 4 s later on the same device,
/// and the request of 65 s 4 s later than when the batch is let finish.
TEST(SpotRevocation, BatchRunningAtTheRevocationIsCut) {
  const auto find = [](const Outcome& h, Time arrival) {
    const auto it = std::find_if(h.records.begin(), h.records.end(),
                                 [arrival](const auto& r) { return r.arrival == arrival; });
    EXPECT_NE(it, h.records.end());
    return *it;
  };
  const auto finish = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                     SpotRevokedBatches::kFinish);
  EXPECT_EQ(find(finish, seconds(55)).finish, seconds(61.2));  // ran past the revocation
  EXPECT_EQ(finish.extra["spot"]["requests_cut_at_revocation"], 0);

  const auto drop = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                   SpotRevokedBatches::kDrop);
  EXPECT_EQ(drop.records.size(), 41u);
  EXPECT_EQ(drop.in_system, 0u);
  const auto lost = find(drop, seconds(55));
  EXPECT_EQ(lost.outcome, metrics::Outcome::kDropped);
  EXPECT_EQ(lost.finish, seconds(60));
  int dropped = 0;
  for (const auto& r : drop.records) {
    if (r.outcome == metrics::Outcome::kDropped) ++dropped;
    if (r.outcome != metrics::Outcome::kDropped && r.device == 0) {
      EXPECT_LE(r.finish, seconds(60));
    }
  }
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(drop.extra["spot"]["batches_running_at_revocation"], 1);
  EXPECT_EQ(drop.extra["spot"]["requests_cut_at_revocation"], 1);

  const auto requeue = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                      SpotRevokedBatches::kRequeue);
  EXPECT_EQ(requeue.records.size(), 41u);
  EXPECT_EQ(requeue.in_system, 0u);
  const auto retried = find(requeue, seconds(55));
  const auto next = find(finish, seconds(60));
  EXPECT_NE(retried.outcome, metrics::Outcome::kDropped);
  EXPECT_EQ(next.device, 1);
  EXPECT_EQ(find(requeue, seconds(60)).start, next.start);
  EXPECT_EQ(retried.device, next.device);
  EXPECT_EQ(retried.start, next.start + seconds(4));
  EXPECT_EQ(find(requeue, seconds(65)).start, find(finish, seconds(65)).start + seconds(4));
  for (const auto& r : requeue.records)
    EXPECT_NE(r.outcome, metrics::Outcome::kDropped);
  EXPECT_EQ(requeue.extra["spot"]["requests_cut_at_revocation"], 1);
}

/// A cut batch ends at the revocation. The batch of the request of 55 s (host 0 from 57.2 s,
/// due at 61.2 s) is dropped at 60 s; every other batch runs as when it is let finish (the
/// dropped request is not retried, and host 0 takes nothing after its drain at 59 s). So
/// dropping gives 61.2 - 60 = 1.2 s less GPU busy time, and one batch fewer: 41 one-request
/// batches when it finishes, the 40 that ran when it is dropped.
TEST(SpotRevocation, CutBatchFreesItsGpuAtTheRevocation) {
  const auto finish = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                     SpotRevokedBatches::kFinish);
  const auto drop = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                   SpotRevokedBatches::kDrop);
  EXPECT_NEAR(
      finish.extra["gpu_busy_seconds"].get<double>() - drop.extra["gpu_busy_seconds"].get<double>(),
      1.2, 1e-9);
  EXPECT_EQ(finish.extra["batches"], 41);
  EXPECT_EQ(drop.extra["batches"], 40);
}

/// A requeued request is dequeued once. Each batch starts at its dispatch (one request, an
/// idle exclusive GPU), so the summed queue waits are those of the records, start - arrival:
/// exactly so when the batch is let finish. Requeued, the request of 55 s waited 57.2 - 55 s
/// before its cut dispatch and from 60 s (its requeue) to its record's start: its record's
/// wait less the 60 - 57.2 = 2.8 s it spent on host 0; 41 requests dequeued, not 42.
TEST(SpotRevocation, RequeuedRequestIsDequeuedOnce) {
  const auto waits = [](const Outcome& h) {
    double s = 0.0;
    for (const auto& r : h.records)
      s += (r.start - r.arrival).to_seconds();
    return s;
  };
  const auto finish = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                     SpotRevokedBatches::kFinish);
  EXPECT_EQ(finish.dequeued, 41u);
  EXPECT_NEAR(finish.dequeued_wait_s, waits(finish), 1e-9);
  const auto requeue = revoked_at_60s(SpotDrain::kAtReplacement, seconds(100), seconds(1),
                                      SpotRevokedBatches::kRequeue);
  EXPECT_EQ(requeue.dequeued, 41u);
  EXPECT_NEAR(requeue.dequeued_wait_s, waits(requeue) - 2.8, 1e-9);
}

/// `n` spot hosts without GPUs (and an owned host with one) and no work, the interval model with
/// P_rev `p` every 10 s and a fixed 30 s notice, no replacement; returns the notices counted at
/// `until`.
std::uint64_t notices(int n, double p, SpotPhase phase, Time until, std::uint64_t seed) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(0, "A100-40GB", n);
  t.spec.market = cluster::Market::kSpot;
  c.hosts.push_back(t);
  c.hosts.push_back(testing::host(1));  // an owned host with a GPU, for the function
  c.spot.revocation_interval = seconds(10);
  c.spot.revocation_probability = p;
  c.spot.phase = phase;
  c.spot.notice_min = c.spot.notice_max = seconds(30);
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  Harness h(std::move(c), testing::reference_policies(), seed);
  h.sim.run_until(until);
  return h.platform->summary_extra(h.sim.now())["spot"]["notices"].get<std::uint64_t>();
}

/// Aligned: draws at 10, 20, 30 s. A host is noticed by the k-th draw with probability
/// 1 - (1 - p)^k, so for 1000 hosts and p = 0.3 the count is Binomial(1000, 0.3) at 10.5 s
/// (mean 300, sd 14.5) and Binomial(1000, 0.657) at 30.5 s (mean 657, sd 15.0); within 4 sd.
/// Nothing before the first draw; every host at the first draw with p = 1; none with p = 0.
TEST(SpotRevocation, IntervalModelCountsAreBinomial) {
  EXPECT_EQ(notices(1000, 0.3, SpotPhase::kAligned, seconds(9.5), 3), 0u);
  const auto one = static_cast<double>(notices(1000, 0.3, SpotPhase::kAligned, seconds(10.5), 3));
  EXPECT_NEAR(one, 300.0, 4 * std::sqrt(1000 * 0.3 * 0.7));
  const double q3 = 1 - std::pow(0.7, 3);
  const auto three = static_cast<double>(notices(1000, 0.3, SpotPhase::kAligned, seconds(30.5), 3));
  EXPECT_NEAR(three, 1000 * q3, 4 * std::sqrt(1000 * q3 * (1 - q3)));
  EXPECT_EQ(notices(50, 1.0, SpotPhase::kAligned, seconds(10.5), 3), 50u);
  EXPECT_EQ(notices(50, 0.0, SpotPhase::kAligned, seconds(100), 3), 0u);
}

/// Uniform phase: each host's first draw is uniform in (0, 10 s], so by 5 s (whole seconds:
/// 1..5 of 1..10) half the hosts have drawn once: Binomial(1000, 0.5 x 0.3), mean 150, sd
/// 11.3; by 10.5 s all have: mean 300 as aligned.
TEST(SpotRevocation, UniformPhaseSpreadsTheFirstDraw) {
  const auto half = static_cast<double>(notices(1000, 0.3, SpotPhase::kUniform, seconds(5.5), 5));
  EXPECT_NEAR(half, 150.0, 4 * std::sqrt(1000 * 0.15 * 0.85));
  const auto all = static_cast<double>(notices(1000, 0.3, SpotPhase::kUniform, seconds(10.5), 5));
  EXPECT_NEAR(all, 300.0, 4 * std::sqrt(1000 * 0.3 * 0.7));
}

/// A revoked host is gone at notice + 30 s: with p = 1 every host is noticed at 10 s and
/// revoked at 40 s (aligned).
TEST(SpotRevocation, RevocationFollowsTheNotice) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(0, "A100-40GB", 4);
  t.spec.market = cluster::Market::kSpot;
  t.spec.price_per_hour = 3600.0;  // $1 per second
  c.hosts.push_back(t);
  c.hosts.push_back(testing::host(1));  // an owned host with a GPU, for the function
  c.spot.revocation_interval = seconds(10);
  c.spot.revocation_probability = 1.0;
  c.spot.phase = SpotPhase::kAligned;
  c.spot.notice_min = c.spot.notice_max = seconds(30);
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  Harness h(std::move(c), testing::reference_policies());
  h.sim.run_until(seconds(39.5));
  EXPECT_EQ(h.platform->summary_extra(h.sim.now())["spot"]["revocations"], 0);
  h.sim.run_until(seconds(100));
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["spot"]["revocations"], 4);
  EXPECT_NEAR(extra["cost_usd"]["spot"].get<double>(), 4 * 40.0, 1e-6);  // 160 s x $1/s
}

}  // namespace
}  // namespace sim::platform
