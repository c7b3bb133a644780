// policy::memory_fits, the one statement of the platform's GPU-memory placement rule, and
// policy::container_fits, which applies it to a view's figures. Expectations by hand.

#include <gtest/gtest.h>

#include "sim/policy/memory_rule.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::policy {
namespace {

TEST(MemoryRule, ResidentMustFitTheFreeMemory) {
  // 7.9 GB free, the container holds 8 GB: no, whatever the activations.
  EXPECT_FALSE(memory_fits(7.9, 8.0, 8.0, 0.0, 40.0));
  EXPECT_FALSE(memory_fits(7.9, 8.0, 8.0, 1.0, 40.0));
  EXPECT_TRUE(memory_fits(8.0, 8.0, 8.0, 0.0, 40.0));
}

TEST(MemoryRule, WithoutActivationsOnlyTheFreeMemoryCounts) {
  // Batch-footprint: the place's resident sum (100 GB > 40) is not checked.
  EXPECT_TRUE(memory_fits(10.0, 8.0, 100.0, 0.0, 40.0));
}

TEST(MemoryRule, ResidentPlusLargestActivationMustFitThePlace) {
  // 30 GB resident with this container, 10 GB the largest batch: 40 <= 40.
  EXPECT_TRUE(memory_fits(10.0, 8.0, 30.0, 10.0, 40.0));
  // 10.5 GB: 40.5 > 40.
  EXPECT_FALSE(memory_fits(10.0, 8.0, 30.0, 10.5, 40.0));
  // Within the tolerance (5e-10 GB over): sums of GB fractions drift.
  EXPECT_TRUE(memory_fits(10.0, 8.0, 30.0, 10.0000000005, 40.0));
  EXPECT_FALSE(memory_fits(10.0, 8.0, 30.0, 10.000000002, 40.0));
}

TEST(MemoryRule, ContainerFitsAppliesItToTheView) {
  // f: 8 GB weights, 10 GB a batch's activations. The slice: 40 GB, 22 GB resident, room 5 GB
  // (its containers' largest activations): 22 + 8 + max(5, 10) = 40 <= 40.
  FunctionView f;
  f.device_memory_gb = 18.0;
  f.resident_gb = 8.0;
  f.activation_gb = 10.0;
  SliceView s;
  s.memory_gb = 40.0;
  s.memory_free_gb = 18.0;
  s.resident_gb = 22.0;
  s.activation_room_gb = 5.0;
  EXPECT_TRUE(container_fits(f, s));
  s.resident_gb = 22.5;  // 40.5 > 40
  EXPECT_FALSE(container_fits(f, s));
  s.resident_gb = 22.0;
  s.memory_free_gb = 7.5;  // less than the 8 GB it holds
  EXPECT_FALSE(container_fits(f, s));
  // A view built by hand without resident_gb or activation_gb: the footprint. On a place
  // without activations (batch-footprint) only free >= 18 counts.
  FunctionView plain;
  plain.device_memory_gb = 18.0;
  s.activation_room_gb = 0.0;
  s.memory_free_gb = 18.0;
  EXPECT_TRUE(container_fits(plain, s));
  s.memory_free_gb = 17.9;
  EXPECT_FALSE(container_fits(plain, s));
  // The same container where others keep 5 GB of activation room: 22 + 18 + 5 = 45 > 40.
  s.memory_free_gb = 18.0;
  s.activation_room_gb = 5.0;
  EXPECT_FALSE(container_fits(plain, s));
}

}  // namespace
}  // namespace sim::policy
