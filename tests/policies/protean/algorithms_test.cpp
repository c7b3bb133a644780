// Protean Algorithms 1 and 2 and eq. (2): expectations computed by hand from the paper.

#include <gtest/gtest.h>

#include "protean/cluster_places.hpp"
#include "protean/job_distribution.hpp"
#include "protean/reconfiguration_planner.hpp"

namespace sim::policy::protean {
namespace {

TEST(TagSlices, FillsSlicesInAscendingOrder) {
  // Algorithm 1 lines 2-8 on (1g.5gb, 2g.10gb, 4g.20gb) with BE_mem = 12 GB:
  // 1g: tag = min(1, 12/5) = 1, BE_mem = 12 - 5 = 7; 2g: tag = min(1, 7/10) = 0.7,
  // BE_mem = max(0, 7 - 10) = 0; 4g: loop breaks, tag stays 0.
  const std::vector<double> memory{5, 10, 20};
  const auto tags = tag_slices(memory, 12.0);
  ASSERT_EQ(tags.size(), 3U);
  EXPECT_DOUBLE_EQ(tags[0], 1.0);
  EXPECT_DOUBLE_EQ(tags[1], 0.7);
  EXPECT_DOUBLE_EQ(tags[2], 0.0);
  EXPECT_EQ(tag_slices(memory, 0.0), (std::vector<double>{0, 0, 0}));
  // More BE memory than the GPU: every slice fully tagged.
  EXPECT_EQ(tag_slices(memory, 50.0), (std::vector<double>{1, 1, 1}));
}

TEST(StrictEta, IsEquationTwo) {
  // ResNet 50 (FBR 0.48) on a 4g.20gb slice (RDF 1.4125) with a strict co-runner of FBR 0.26
  // and a BE co-runner of FBR 0.45: eta = 1.4125 x max{0.48 + 0.26 + 0.45, 1}
  // = 1.4125 x 1.19 = 1.680875.
  SliceLoad s;
  s.rdf = 1.4125;
  s.strict_fbr = 0.26;
  s.best_effort_fbr = 0.45;
  EXPECT_NEAR(strict_eta(s, 0.48), 1.680875, 1e-12);
  // A tag predicting more BE interference (0.5) than is running counts instead:
  // 1.4125 x (0.48 + 0.26 + 0.5) = 1.4125 x 1.24 = 1.7515.
  s.tagged_best_effort_fbr = 0.5;
  EXPECT_NEAR(strict_eta(s, 0.48), 1.7515, 1e-12);
  // Below the bandwidth limit the max{., 1} clamps: eta = RDF.
  SliceLoad alone;
  alone.rdf = 2.375;
  EXPECT_DOUBLE_EQ(strict_eta(alone, 0.48), 2.375);
}

TEST(ChooseStrictSlice, TradesResourceDeficiencyAgainstInterference) {
  // 2g.10gb (RDF 2.375, tagged BE FBR 0.3): eta = 2.375 x max{0.48 + 0.3, 1} = 2.375.
  // 4g.20gb (RDF 1.4125, strict FBR 0.9): eta = 1.4125 x 1.38 = 1.94925 -> 4g wins.
  SliceLoad two;
  two.rdf = 2.375;
  two.tag = 0.7;
  two.tagged_best_effort_fbr = 0.3;
  SliceLoad four;
  four.rdf = 1.4125;
  four.strict_fbr = 0.9;
  std::vector<SliceLoad> slices{two, four};
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 1U);
  // With strict FBR 1.3 on the 4g: 1.4125 x 1.78 = 2.51425 > 2.375 -> the 2g wins.
  slices[1].strict_fbr = 1.3;
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 0U);
}

TEST(ChooseStrictSlice, EqualEtaGoesToTheLessLoadedSlice) {
  // Two 4g.20gb slices (RDF 1.4125), the first with one strict ResNet 50 (FBR 0.48), the
  // second empty. Another ResNet 50: eta = 1.4125 x max{0.48 + 0.48, 1} = 1.4125 on the first,
  // 1.4125 x max{0.48, 1} = 1.4125 on the second: a tie, which goes to the second (co-runner
  // FBR 0 < 0.48), not to the lower index.
  SliceLoad busy;
  busy.rdf = 1.4125;
  busy.strict_fbr = 0.48;
  SliceLoad empty;
  empty.rdf = 1.4125;
  std::vector<SliceLoad> slices{busy, empty};
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 1U);
  // A tagged BE occupancy counts as co-runner FBR too: 0.3 tagged on the second against 0.48
  // strict on the first -> still the second; 0.6 tagged (eta 1.4125 x 1.08 = 1.5255 > 1.4125)
  // -> the first, on eta alone.
  slices[1].tagged_best_effort_fbr = 0.3;
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 1U);
  slices[1].tagged_best_effort_fbr = 0.6;
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 0U);
  // Equal eta and equal co-runner FBR: the lower index.
  slices[1].tagged_best_effort_fbr = 0.0;
  slices[1].best_effort_fbr = 0.48;
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 0U);
}

TEST(ChooseStrictSlice, SkipsFullyTaggedSlicesUnlessAllAre) {
  // The 1g (RDF 1 here, to make it the least eta) is fully tagged for BE: excluded.
  SliceLoad tagged;
  tagged.rdf = 1.0;
  tagged.tag = 1.0;
  SliceLoad big;
  big.rdf = 1.4125;
  std::vector<SliceLoad> slices{tagged, big};
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 1U);
  slices[1].tag = 1.0;  // every slice fully tagged: least eta over all
  EXPECT_EQ(choose_strict_slice(slices, 0.48), 0U);
  EXPECT_FALSE(choose_strict_slice({}, 0.48).has_value());
}

TEST(ChooseBestEffortSlice, FirstFitInAscendingOrder) {
  // Free memory (3, 8, 20) GB; a 6.5 GB batch fits first in the second slice.
  std::vector<SliceLoad> slices(3);
  slices[0].memory_free_gb = 3;
  slices[1].memory_free_gb = 8;
  slices[2].memory_free_gb = 20;
  EXPECT_EQ(choose_best_effort_slice(slices, 6.5), 1U);
  EXPECT_EQ(choose_best_effort_slice(slices, 2.0), 0U);
  // 25 GB fits nowhere: the slice with the most free memory.
  EXPECT_EQ(choose_best_effort_slice(slices, 25.0), 2U);
}

TEST(ChooseGeometry, PicksTheSmallestSliceSetWithinThresholds) {
  const ReconfigurationConfig c;  // T_low 0.1, T_high 0.9, sets [1g, 2g] (15 GB), [3g] (20 GB)
  const std::vector<std::string> with_small{"1g.5gb", "2g.10gb", "4g.20gb"};
  const std::vector<std::string> fallback{"3g.20gb", "4g.20gb"};
  // One ResNet 50 batch (6.5 GB): [1g, 2g] holds it, occupancy 6.5 / 15 = 0.433 -> (4g, 2g, 1g).
  EXPECT_EQ(choose_geometry(c, 6.5), with_small);
  // One DPN 92 batch (14 GB): [1g, 2g] is the first set that holds it, occupancy 14 / 15 =
  // 0.933 > T_high -> (4g, 3g) (line 19), the Fig. 7 change.
  EXPECT_EQ(choose_geometry(c, 14.0), fallback);
  // 17 GB: [1g, 2g] too small, [3g] holds it at 0.85 -> (4g, 3g).
  EXPECT_EQ(choose_geometry(c, 17.0), fallback);
  // No BE requests: occupancy 0 < T_low -> (4g, 3g); 25 GB: no set holds it -> (4g, 3g).
  EXPECT_EQ(choose_geometry(c, 0.0), fallback);
  EXPECT_EQ(choose_geometry(c, 25.0), fallback);
  // 1 GB: 1 / 15 = 0.067 < T_low -> (4g, 3g).
  EXPECT_EQ(choose_geometry(c, 1.0), fallback);
}

TEST(MismatchCounter, ReconfiguresAfterWaitLimitMismatches) {
  // Algorithm 2 lines 24-30 with wait_limit = 3: the first three mismatches only count
  // (wait_ctr 1, 2, 3); the fourth finds wait_ctr >= 3 and reconfigures.
  MismatchCounter m;
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_EQ(m.count(), 3);
  EXPECT_TRUE(m.should_reconfigure(true, 3));
  // A match resets the counter.
  EXPECT_FALSE(m.should_reconfigure(false, 3));
  EXPECT_EQ(m.count(), 0);
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_EQ(m.count(), 1);
  // Reconfiguring resets it (lines 26, 29-30): the next mismatch counts 1 again.
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_TRUE(m.should_reconfigure(true, 3));
  m.reconfigured();
  EXPECT_EQ(m.count(), 0);
  EXPECT_FALSE(m.should_reconfigure(true, 3));
  EXPECT_EQ(m.count(), 1);
}

TEST(Reconfiguration, AtMostThirtyPercentOfGpus) {
  // floor(0.3 x 8) = 2 (the "2 GPUs" of Fig. 7); floor(0.3 x 2) = 0 -> at least 1.
  EXPECT_EQ(max_simultaneous_reconfigurations(8, 0.3), 2);
  EXPECT_EQ(max_simultaneous_reconfigurations(2, 0.3), 1);
  EXPECT_EQ(max_simultaneous_reconfigurations(10, 0.3), 3);
}

TEST(EwmaPredictor, WeighsTheNewestObservation) {
  // alpha 0.5: 100 -> 100; 200 -> 0.5 x 200 + 0.5 x 100 = 150; 0 -> 75.
  EwmaPredictor p(0.5);
  EXPECT_DOUBLE_EQ(p.observe(100), 100);
  EXPECT_DOUBLE_EQ(p.observe(200), 150);
  EXPECT_DOUBLE_EQ(p.observe(0), 75);
}

TEST(ProfileMemory, ReadsTheName) {
  EXPECT_DOUBLE_EQ(profile_memory_gb("3g.20gb"), 20);
  EXPECT_DOUBLE_EQ(profile_memory_gb("1g.5gb"), 5);
  EXPECT_THROW((void)profile_memory_gb("7g"), std::invalid_argument);
}

TEST(ContainersNeeded, OneContainerPerBatch) {
  // §4.2: n_c = ceil(n_r / batch). 2500 strict rps x 0.11 s (ResNet 50 on 7g) = 275 requests
  // during one batch, plus 10 queued = 285; ceil(285 / 128) = ceil(2.23) = 3.
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.arrival_rate = {2500.0, 2000.0};
  f.queue_length = 10;
  EXPECT_EQ(containers_needed(f), 3);
  f.arrival_rate = {0.0};
  f.queue_length = 0;
  EXPECT_EQ(containers_needed(f), 0);
}

TEST(ContainersNeeded, OneContainerPerBatchOfAMonitorInterval) {
  // The other reading of n_r: 2500 rps x 1 s + 10 queued = 2510; ceil(2510 / 128) = 20.
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.arrival_rate = {2500.0};
  f.queue_length = 10;
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalBatches, 1.0), 20);
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalBatches, 0.5), 10);  // 1260 / 128
}

TEST(ContainersNeeded, OneContainerPerBatchFormedAtEachNode) {
  // Node scope (§4: requests load-balanced over the nodes, then batched there): n_r shared
  // evenly among the nodes, ceil(n_r,node / batch) per node.
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.arrival_rate = {2500.0};
  f.queue_length = 10;
  // 285 requests over 8 nodes: 35.6 each -> ceil(35.6 / 128) = 1 per node -> 8 (cluster: 3).
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 8), 8);
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 1), 3);
  // 20000 rps x 0.11 s = 2200: 275 per node -> ceil(2.15) = 3 per node -> 24 (cluster:
  // ceil(17.19) = 18).
  f.arrival_rate = {20000.0};
  f.queue_length = 0;
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 8), 24);
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 1), 18);
  // 30 rps x 0.1 s = 3 requests: only 3 nodes can form a batch -> 3 containers, not 8.
  f.batch_latency_s = 0.1;
  f.arrival_rate = {30.0};
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 8), 3);
  // Interval reading per node: 2500 x 1 s + 10 = 2510 over 8 = 313.75 -> 3 each -> 24.
  f.arrival_rate = {2500.0};
  f.queue_length = 10;
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalBatches, 1.0, 8), 24);
  // No demand: none, whatever the nodes.
  f.arrival_rate = {0.0};
  f.queue_length = 0;
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 8), 0);
}

TEST(ContainerNeed, ANodesOwnBacklogIsCountedAtThatNode) {
  // 8 worker nodes (hosts 0-7), ResNet 50's batch of 128, 0.11 s on 7g.
  const std::vector<int> workers = {0, 1, 2, 3, 4, 5, 6, 7};
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  // 2500 rps: 275 to come; queued 30 at host 0, 200 at host 3 and 10 in the cluster queue
  // (queue_length 240). Pool = 275 + 10 = 285 over 8 nodes: s = 35.625, ceil(s / 128) = 1 per
  // node -> anywhere 8. Host 0: ceil(65.6 / 128) - 1 = 0. Host 3: ceil(235.6 / 128) - 1 = 1.
  f.arrival_rate = {2500.0};
  f.queue_length = 240;
  f.node_queues = {{0, 30}, {3, 200}};
  auto n = container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kNode, workers);
  EXPECT_EQ(n.anywhere, 8);
  ASSERT_EQ(n.at_node.size(), 1u);
  EXPECT_EQ(n.at_node.at(3), 1);
  EXPECT_EQ(n.total(), 9);
  // node-even: all 515 requests over 8 nodes, 64.4 each -> 1 per node -> 8, placed anywhere.
  n = container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kNodeEven, workers);
  EXPECT_EQ(n.anywhere, 8);
  EXPECT_TRUE(n.at_node.empty());
  // cluster: ceil(515 / 128) = 5.
  EXPECT_EQ(
      container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster, workers).anywhere,
      5);
  // wiki-vgg-19 at 255 s (GoogLeNet): no arrivals, 38,781 requests queued at host 1. Node:
  // pool 0 -> anywhere 0; host 1: ceil(38781 / 128) = 303 there. node-even spreads the
  // backlog over 8 nodes: 4847.6 each -> 38 per node -> 304, anywhere.
  f.arrival_rate = {0.0};
  f.queue_length = 38781;
  f.node_queues = {{1, 38781}};
  n = container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kNode, workers);
  EXPECT_EQ(n.anywhere, 0);
  ASSERT_EQ(n.at_node.size(), 1u);
  EXPECT_EQ(n.at_node.at(1), 303);
  n = container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kNodeEven, workers);
  EXPECT_EQ(n.anywhere, 304);
  EXPECT_TRUE(n.at_node.empty());
  // A queue at a host that is no longer a worker node (revoked) joins the pool: 38,781 over
  // the 7 others, 5540.1 each -> 44 per node -> 308 anywhere.
  const std::vector<int> seven = {0, 2, 3, 4, 5, 6, 7};
  n = container_need(f, ContainerCount::kInFlight, 1.0, ContainerScope::kNode, seven);
  EXPECT_EQ(n.anywhere, 308);
  EXPECT_TRUE(n.at_node.empty());
}

TEST(ContainersNeeded, OneContainerPerBatchOfTheArrivalsOnly) {
  // §4.2 with n_r the requests received in one monitor interval, the queue not counted.
  // be100-hi at 61 s (Protean, seed 7): ResNet 50 (batch 128) just switched in, 5,080 queued.
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.arrival_rate = {5000.0};
  f.queue_length = 5080;
  // Cluster: 5000 x 1 s = 5000; ceil(5000 / 128) = ceil(39.06) = 40 (the queue adds nothing;
  // interval-batches counts 10,080: ceil(78.75) = 79).
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalArrivals, 1.0, 1), 40);
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalBatches, 1.0, 1), 79);
  // 8 nodes: 625 each, ceil(4.88) = 5 per node -> 40. W = 0.5 s: 312.5 each -> 3 -> 24.
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalArrivals, 1.0, 8), 40);
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalArrivals, 0.5, 8), 24);
  // A backlog without arrivals needs no containers under this reading (in-flight: 40).
  f.arrival_rate = {0.0};
  EXPECT_EQ(containers_needed(f, ContainerCount::kIntervalArrivals, 1.0, 8), 0);
  EXPECT_EQ(containers_needed(f, ContainerCount::kInFlight, 1.0, 1), 40);  // ceil(5080 / 128)
}

TEST(ContainerNeed, TheArrivalsOnlyReadingIgnoresEveryQueue) {
  const std::vector<int> workers = {0, 1, 2, 3, 4, 5, 6, 7};
  FunctionView f;
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  // As ANodesOwnBacklogIsCountedAtThatNode: 2500 rps, 30 queued at host 0, 200 at host 3, 10
  // in the cluster queue. Arrivals in W = 1 s: 2500 over 8 nodes, 312.5 each -> ceil(2.44) = 3
  // per node -> anywhere 24; no node's backlog counted (in-flight gave host 3 one more).
  f.arrival_rate = {2500.0};
  f.queue_length = 240;
  f.node_queues = {{0, 30}, {3, 200}};
  auto n =
      container_need(f, ContainerCount::kIntervalArrivals, 1.0, ContainerScope::kNode, workers);
  EXPECT_EQ(n.anywhere, 24);
  EXPECT_TRUE(n.at_node.empty());
  EXPECT_EQ(n.total(), 24);
  // interval-batches counts the 10 unrouted ones in the pool: 2510 / 8 = 313.75 -> 3 per node
  // (24) and host 3's backlog: ceil((313.75 + 200) / 128) - 3 = 5 - 3 = 2.
  n = container_need(f, ContainerCount::kIntervalBatches, 1.0, ContainerScope::kNode, workers);
  EXPECT_EQ(n.anywhere, 24);
  ASSERT_EQ(n.at_node.size(), 1u);
  EXPECT_EQ(n.at_node.at(3), 2);
  // node-even and cluster: 2500 only. Cluster: ceil(19.53) = 20.
  EXPECT_EQ(
      container_need(f, ContainerCount::kIntervalArrivals, 1.0, ContainerScope::kNodeEven, workers)
          .anywhere,
      24);
  EXPECT_EQ(
      container_need(f, ContainerCount::kIntervalArrivals, 1.0, ContainerScope::kCluster, workers)
          .anywhere,
      20);
  // Only a backlog (wiki-vgg-19 at 255 s): nothing under this reading.
  f.arrival_rate = {0.0};
  f.queue_length = 38781;
  f.node_queues = {{1, 38781}};
  n = container_need(f, ContainerCount::kIntervalArrivals, 1.0, ContainerScope::kNode, workers);
  EXPECT_EQ(n.total(), 0);
}

TEST(ContainersNeeded, WorkerNodesAreTheAvailableGpuHosts) {
  PlatformView v;
  EXPECT_EQ(worker_nodes(v), 1);  // none: counted as one (the cluster reading)
  HostView gpu_host;
  gpu_host.gpus.emplace_back();
  HostView cpu_host;
  HostView revoked = gpu_host;
  revoked.available = false;
  v.hosts = {gpu_host, cpu_host, revoked, gpu_host};
  for (int h = 0; h < 4; ++h)
    v.hosts[static_cast<std::size_t>(h)].index = h;
  EXPECT_EQ(worker_nodes(v), 2);
  EXPECT_EQ(worker_hosts(v), (std::vector<int>{0, 3}));
}

TEST(BestEffortMemory, RequestsCanFallBelowOneBatch) {
  // 12 predicted BE requests of a 128-batch of 5 GB: 12 / 128 x 5 = 0.469 GB, occupancy of
  // the (1g, 2g) set (15 GB) 0.031 < T_low 0.1 -> the (4g, 3g) fallback. Rounded up to a
  // whole batch: 5 GB, occupancy 0.33 -> (1g, 2g) + 4g.
  EXPECT_NEAR(best_effort_memory_gb(12, 128, 5.0, BestEffortMemory::kRequests), 0.46875, 1e-12);
  EXPECT_DOUBLE_EQ(best_effort_memory_gb(12, 128, 5.0, BestEffortMemory::kWholeBatches), 5.0);
  EXPECT_DOUBLE_EQ(best_effort_memory_gb(0, 128, 5.0, BestEffortMemory::kWholeBatches), 0.0);
  const ReconfigurationConfig config;
  EXPECT_EQ(choose_geometry(config, 0.46875), sorted_geometry({"4g.20gb", "3g.20gb"}));
  EXPECT_EQ(choose_geometry(config, 5.0), sorted_geometry({"1g.5gb", "2g.10gb", "4g.20gb"}));
}

}  // namespace
}  // namespace sim::policy::protean
