#pragma once
/// Protean Algorithm 1 at dispatch: which idle container (and so which slice) runs a batch.
/// A strict batch goes to the slice with the least eq. (2) slowdown among slices not fully
/// tagged for best-effort memory; a best-effort batch is packed first-fit onto the smallest
/// slices. Needs the platform view (co-runners of every slice).
///
/// Memory: a slice's free memory is the platform's (cluster_places, LoadScope::kBusy), and a
/// best-effort batch fits a slice when its activations (FunctionView::activation_gb) do, its
/// container's weights being held already. The serverless platform offers the dispatcher only
/// idle containers whose activations fit (docs/policy-authors.md "Container memory"), so there
/// the first fit always takes the first candidate in ascending order of resources; the check
/// decides only on a view whose idle containers were not filtered (a hand-built one).

#include <vector>

#include "cluster_places.hpp"
#include "sim/policy/dispatcher.hpp"

namespace sim::policy::protean {

class JobDistributor final : public Dispatcher {
 public:
  /// `by`: Algorithm 1's ascending order of resources (the tags and first-fit's order).
  explicit JobDistributor(SliceOrder by = SliceOrder::kMemoryThenCompute) : by_(by) {}
  std::optional<InstanceId> choose(const DispatchView& view) override;
  [[nodiscard]] bool wants_platform_view() const override { return true; }

 private:
  SliceOrder by_;
  // Storage reused from batch to batch (choose runs for every batch); nothing in it outlives
  // a call's meaning.
  std::vector<Place> places_;
  PlaceScratch scratch_;
  std::vector<std::size_t> cand_;        ///< candidate k: index into view.idle
  std::vector<std::size_t> cand_place_;  ///< candidate -> its place
  std::vector<std::size_t> cand_order_;  ///< candidates by (place's rank, k)
  std::vector<SliceLoad> loads_;
};

}  // namespace sim::policy::protean
