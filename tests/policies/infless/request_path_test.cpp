// INFless built-in batching on the shared queue: the SLO-budget batcher and the r_up split.

#include <gtest/gtest.h>

#include <map>

#include "infless/request_path.hpp"

namespace sim::policy::infless {
namespace {

std::vector<QueuedRequest> queue(std::initializer_list<int> arrivals_ms) {
  std::vector<QueuedRequest> q;
  std::uint64_t id = 0;
  for (int a : arrivals_ms) {
    QueuedRequest r;
    r.id = id++;
    r.arrival = ms(a);
    r.slo = ms(200);
    q.push_back(r);
  }
  return q;
}

// Three requests (0, 10, 20 ms), max batch 4, SLO 200 ms: the oldest may wait 100 ms.
TEST(SloBudgetBatcher, WaitsHalfTheSloForAFullBatch) {
  SloBudgetBatcher b(0.5);
  const auto q = queue({0, 10, 20});
  BatchQueueView v{ms(50), 0, 4, q};
  auto d = b.select(v);
  EXPECT_TRUE(d.take.empty());
  EXPECT_EQ(d.retry_at, ms(100));
  v.now = ms(100);
  d = b.select(v);
  EXPECT_EQ(d.take, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(SloBudgetBatcher, FullBatchAtOnce) {
  SloBudgetBatcher b(0.5);
  const auto q = queue({0, 1, 2, 3, 4});
  const auto d = b.select(BatchQueueView{ms(5), 0, 4, q});
  EXPECT_EQ(d.take, (std::vector<std::size_t>{0, 1, 2, 3}));
}

// Two idle instances: A (b 4, 50 ms) r_up = 20 * 4 = 80, B (b 1, 50 ms) r_up = 20. Smooth
// weighted round robin: of every 5 batches A takes 4 and B 1.
TEST(RateSplitDispatcher, SplitsByUpperBound) {
  RateSplitDispatcher d(1.0);
  InstanceView a;
  a.id = 1;
  a.config.max_batch = 4;
  a.batch_latency_s = 0.05;
  InstanceView b = a;
  b.id = 2;
  b.config.max_batch = 1;
  const std::vector<InstanceView> idle = {a, b};
  std::map<InstanceId, int> n;
  for (int k = 0; k < 5; ++k)
    ++n[*d.choose(DispatchView{ms(k), 0, idle})];
  EXPECT_EQ(n[1], 4);
  EXPECT_EQ(n[2], 1);
}

}  // namespace
}  // namespace sim::policy::infless
