// BatchSizeCounts (model.hpp): the idle set's instances counted by largest batch, and the
// largest of them, against hand-computed cases and a std::map doing the same.

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "model.hpp"
#include "sim/engine/random.hpp"

namespace sim::platform::serverless {
namespace {

TEST(BatchSizeCounts, LargestFollowsAddsAndRemoves) {
  BatchSizeCounts c;
  EXPECT_TRUE(c.empty());
  c.add(4);
  c.add(16);
  c.add(8);
  c.add(16);
  EXPECT_EQ(c.largest(), 16);
  c.remove(16);
  EXPECT_EQ(c.largest(), 16);  // one instance of 16 is left
  c.remove(16);
  EXPECT_EQ(c.largest(), 8);
  c.remove(8);
  c.remove(4);
  EXPECT_TRUE(c.empty());
  c.add(2);
  EXPECT_EQ(c.largest(), 2);
  c.clear();
  EXPECT_TRUE(c.empty());
}

TEST(BatchSizeCounts, MatchesAMapOfCounts) {
  RandomStream rng(7);
  BatchSizeCounts c;
  std::map<int, int> reference;
  std::vector<int> added;  // one entry per add not yet removed
  for (int step = 0; step < 20000; ++step) {
    if (added.empty() || rng.uniform_int(0, 2) != 0) {
      const int batch = static_cast<int>(rng.uniform_int(1, 12));
      c.add(batch);
      ++reference[batch];
      added.push_back(batch);
    } else {
      const auto k = static_cast<std::size_t>(rng.uniform_int(0, added.size() - 1));
      const int batch = added[k];
      added[k] = added.back();
      added.pop_back();
      c.remove(batch);
      if (--reference[batch] == 0) reference.erase(batch);
    }
    ASSERT_EQ(c.empty(), reference.empty()) << "step " << step;
    if (!reference.empty()) {
      ASSERT_EQ(c.largest(), reference.rbegin()->first) << "step " << step;
    }
    if (step % 5000 == 4999) {
      c.clear();
      reference.clear();
      added.clear();
    }
  }
}

}  // namespace
}  // namespace sim::platform::serverless
