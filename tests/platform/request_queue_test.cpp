// RequestQueue: arrival order, the batcher's window, and removal of any positions.

#include "sim/platform/request_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sim::platform {
namespace {

policy::QueuedRequest view(std::uint64_t id) {
  policy::QueuedRequest v;
  v.id = id;
  v.arrival = ms(static_cast<std::int64_t>(id));
  return v;
}

RequestQueue<std::string> queue_of(int n) {
  RequestQueue<std::string> q;
  for (int i = 0; i < n; ++i)
    q.push_back("r" + std::to_string(i), view(static_cast<std::uint64_t>(i)));
  return q;
}

std::vector<std::string> contents(const RequestQueue<std::string>& q) {
  return {q.begin(), q.end()};
}

std::vector<std::uint64_t> window_ids(const RequestQueue<std::string>& q, std::size_t n) {
  std::vector<std::uint64_t> ids;
  for (const auto& v : q.window(n))
    ids.push_back(v.id);
  return ids;
}

TEST(RequestQueue, TakingTheOldestKeepsTheRestInOrder) {
  auto q = queue_of(5);
  EXPECT_EQ(q.take({1, 0}), (std::vector<std::string>{"r1", "r0"}));  // in the given order
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(contents(q), (std::vector<std::string>{"r2", "r3", "r4"}));
  EXPECT_EQ(window_ids(q, 2), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(q[0], "r2");
}

TEST(RequestQueue, TakingFromTheMiddleShiftsOnlyTheOlderSurvivors) {
  auto q = queue_of(6);
  EXPECT_EQ(q.take({3, 1}), (std::vector<std::string>{"r3", "r1"}));
  EXPECT_EQ(contents(q), (std::vector<std::string>{"r0", "r2", "r4", "r5"}));
  EXPECT_EQ(window_ids(q, 4), (std::vector<std::uint64_t>{0, 2, 4, 5}));
  q.push_back("r6", view(6));
  EXPECT_EQ(q.take({0, 3}), (std::vector<std::string>{"r0", "r5"}));
  EXPECT_EQ(contents(q), (std::vector<std::string>{"r2", "r4", "r6"}));
  EXPECT_EQ(window_ids(q, 3), (std::vector<std::uint64_t>{2, 4, 6}));
}

TEST(RequestQueue, EmptiesAndRefillsAndRejectsPositionsOutOfRange) {
  auto q = queue_of(2);
  EXPECT_THROW(q.take({2}), std::out_of_range);
  EXPECT_EQ(q.take({0, 1}).size(), 2U);
  EXPECT_TRUE(q.empty());
  q.push_back("x", view(9));
  EXPECT_EQ(contents(q), (std::vector<std::string>{"x"}));
  EXPECT_EQ(window_ids(q, 1), (std::vector<std::uint64_t>{9}));
}

TEST(RequestQueue, ALongBacklogDrainedFromTheFrontStaysInOrderAcrossCompactions) {
  // 5,000 requests taken three at a time (oldest two, then one from further back) while new
  // ones arrive: the queue must equal a plain model of it throughout.
  RequestQueue<std::string> q;
  std::vector<std::string> model;
  std::uint64_t next = 0;
  const auto arrive = [&] {
    q.push_back("r" + std::to_string(next), view(next));
    model.push_back("r" + std::to_string(next));
    ++next;
  };
  for (int i = 0; i < 5000; ++i)
    arrive();
  while (q.size() >= 5) {
    const auto got = q.take({0, 1, 4});
    ASSERT_EQ(got, (std::vector<std::string>{model[0], model[1], model[4]}));
    model.erase(model.begin() + 4);
    model.erase(model.begin(), model.begin() + 2);
    if (next % 2 == 0) arrive();
    ++next;
    ASSERT_EQ(q.size(), model.size());
    ASSERT_EQ(q[0], model[0]);
    ASSERT_EQ(q.window(1)[0].id, std::stoull(model[0].substr(1)));
  }
  EXPECT_EQ(contents(q), model);
}

TEST(RequestQueue, GivesBackTheStorageOfABacklogOnceItHasGone) {
  // 10,000 pushes grow the storage to 16,384 entries (doubling from one). Draining 9,000 from
  // the front, 100 at a time, compacts at 5,000 taken (5,000 left: 16,384 <= 4 x 5,000 kept)
  // and at 7,500 (2,500 left: shrunk to 2,500); at 9,000 taken the storage holds 2,500 for
  // 1,000 requests. A queue that kept its largest storage would still hold 16,384.
  RequestQueue<std::string> q = queue_of(10000);
  ASSERT_EQ(q.capacity(), 16384U);
  std::vector<std::size_t> hundred(100);
  for (std::size_t i = 0; i < hundred.size(); ++i)
    hundred[i] = i;
  for (int i = 0; i < 90; ++i)
    q.take(hundred);
  EXPECT_EQ(q.size(), 1000U);
  EXPECT_EQ(q[0], "r9000");
  EXPECT_EQ(q.capacity(), 2500U);
  // Drained: at most 1,024 entries' room stays.
  for (int i = 0; i < 10; ++i)
    q.take(hundred);
  EXPECT_TRUE(q.empty());
  EXPECT_LE(q.capacity(), 1024U);
  q.push_back("x", view(1));
  EXPECT_EQ(contents(q), (std::vector<std::string>{"x"}));
}

}  // namespace
}  // namespace sim::platform
