// FlatIdMap (the idle sets' id -> entry table) against std::unordered_map over random
// sequences, and its probing by hand.

#include <gtest/gtest.h>

#include <unordered_map>

#include "infless/flat_id_map.hpp"
#include "sim/engine/random.hpp"

namespace sim::policy::infless {
namespace {

TEST(FlatIdMap, InsertFindErase) {
  FlatIdMap m;
  EXPECT_EQ(m.find(7), nullptr);
  EXPECT_FALSE(m.erase(7));
  const auto [v, inserted] = m.try_emplace(7, 70);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(*v, 70u);
  const auto again = m.try_emplace(7, 71);  // present: the value stays
  EXPECT_FALSE(again.second);
  EXPECT_EQ(*again.first, 70u);
  *m.find(7) = 72;
  EXPECT_EQ(*m.find(7), 72u);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.capacity(), 16u);  // the first table: 16 slots, at most 8 used
  EXPECT_TRUE(m.erase(7));
  EXPECT_EQ(m.find(7), nullptr);
  EXPECT_EQ(m.size(), 0u);
}

// Nine keys do not fit half of 16 slots: the table doubles and keeps them all.
TEST(FlatIdMap, GrowsAtHalfFull) {
  FlatIdMap m;
  for (std::uint64_t k = 0; k < 8; ++k)
    m.try_emplace(k, static_cast<std::uint32_t>(k));
  EXPECT_EQ(m.capacity(), 16u);
  m.try_emplace(8, 8);
  EXPECT_EQ(m.capacity(), 32u);
  for (std::uint64_t k = 0; k <= 8; ++k)
    EXPECT_EQ(*m.find(k), k);
}

// Random inserts, erases and lookups over a few key ranges (small ids, as instance ids are,
// and spread ones), with erasures that leave long probe runs behind: every answer equals the
// std::unordered_map's.
TEST(FlatIdMap, MatchesUnorderedMapOnRandomSequences) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomStream rng(seed);
    FlatIdMap fast;
    std::unordered_map<std::uint64_t, std::uint32_t> ref;
    const std::uint64_t span = seed % 3 == 0 ? 40 : (seed % 3 == 1 ? 2000 : ~std::uint64_t{0});
    for (int op = 0; op < 20000; ++op) {
      const std::uint64_t key = rng.uniform_int(0, span);
      const double u = rng.uniform01();
      if (u < 0.45) {
        const auto value = static_cast<std::uint32_t>(rng.uniform_int(0, 1u << 30));
        const auto got = fast.try_emplace(key, value);
        const auto want = ref.try_emplace(key, value);
        ASSERT_EQ(got.second, want.second);
        ASSERT_EQ(*got.first, want.first->second);
      } else if (u < 0.8) {
        ASSERT_EQ(fast.erase(key), ref.erase(key) == 1) << "seed " << seed << " op " << op;
      } else {
        const std::uint32_t* got = fast.find(key);
        const auto want = ref.find(key);
        ASSERT_EQ(got != nullptr, want != ref.end()) << "seed " << seed << " op " << op;
        if (got != nullptr) {
          ASSERT_EQ(*got, want->second);
        }
      }
      ASSERT_EQ(fast.size(), ref.size());
    }
    for (const auto& [k, v] : ref)
      ASSERT_EQ(*fast.find(k), v);
  }
}

}  // namespace
}  // namespace sim::policy::infless
