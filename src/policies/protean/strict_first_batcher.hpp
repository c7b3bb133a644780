#pragma once
/// Protean §4.1: requests reordered so that strict ones go first (stable within a class), then
/// served in batches of the model's batch size (128 vision, 4 language; the function's
/// max_batch). A full batch leaves at once; a partial one once the oldest request's batching
/// timeout has passed.

#include "sim/policy/batcher.hpp"

namespace sim::policy::protean {

class StrictFirstBatcher final : public Batcher {
 public:
  BatchDecision select(const BatchQueueView& view) override;
};

}  // namespace sim::policy::protean
