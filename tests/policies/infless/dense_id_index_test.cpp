// DenseIdIndex (the idle sets' shared id -> entry index): set, find and clear by hand, and
// the id bound.

#include <gtest/gtest.h>

#include "infless/dense_id_index.hpp"

namespace sim::policy::infless {
namespace {

TEST(DenseIdIndex, SetFindClear) {
  DenseIdIndex m;
  EXPECT_EQ(m.find(0), DenseIdIndex::kNone);
  EXPECT_EQ(m.find(7), DenseIdIndex::kNone);
  m.clear(7);  // never set: nothing happens
  m.set(7, 70);
  EXPECT_EQ(m.find(7), 70u);
  EXPECT_EQ(m.find(6), DenseIdIndex::kNone);  // the slots below, grown with it, are empty
  EXPECT_EQ(m.find(8), DenseIdIndex::kNone);
  m.set(3, 30);
  m.set(7, 71);  // replaced
  EXPECT_EQ(m.find(3), 30u);
  EXPECT_EQ(m.find(7), 71u);
  m.set(1000, 0);  // a larger id grows the array; the others stay
  EXPECT_EQ(m.find(1000), 0u);
  EXPECT_EQ(m.find(3), 30u);
  EXPECT_EQ(m.find(7), 71u);
  m.clear(7);
  EXPECT_EQ(m.find(7), DenseIdIndex::kNone);
  EXPECT_EQ(m.find(3), 30u);
}

TEST(DenseIdIndex, RejectsIdsBeyondTheBound) {
  DenseIdIndex m;
  EXPECT_THROW(m.set(DenseIdIndex::kMaxId, 1), std::invalid_argument);
  EXPECT_EQ(m.find(DenseIdIndex::kMaxId), DenseIdIndex::kNone);
}

}  // namespace
}  // namespace sim::policy::infless
