#include "job_distributor.hpp"

#include <algorithm>
#include <numeric>

namespace sim::policy::protean {

namespace {

bool batch_is_strict(const DispatchView& view) {
  for (const auto k : view.take) {
    if (k < view.queue.size() && view.queue[k].cls == RequestClass::kStrict) return true;
  }
  return view.take.empty();
}

}  // namespace

std::optional<InstanceId> JobDistributor::choose(const DispatchView& view) {
  if (view.idle.empty()) return std::nullopt;
  const FunctionView* f = view.platform ? view.platform->function(view.function) : nullptr;
  if (f == nullptr) {
    // Without the platform: the least resource-deficient container (lowest solo latency).
    const InstanceView* best = &view.idle.front();
    for (const auto& i : view.idle)
      if (i.batch_latency_s < best->batch_latency_s) best = &i;
    return best->id;
  }
  auto& places = places_;
  cluster_places(*view.platform, LoadScope::kBusy, {}, places, scratch_);
  tag_places(places, *view.platform, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster,
             scratch_, by_);
  const bool strict = batch_is_strict(view);
  // Candidates: the idle containers' slices, in ascending order of resources (by_) for
  // first-fit packing (ties in the order of view.idle).
  cand_.clear();
  cand_place_.clear();
  for (std::size_t k = 0; k < view.idle.size(); ++k) {
    const std::size_t p = place_at(scratch_, view.idle[k].location);
    if (p == PlaceScratch::kNone) continue;
    cand_.push_back(k);
    cand_place_.push_back(p);
  }
  if (cand_.empty()) return view.idle.front().id;
  const auto& rank = scratch_.rank;
  cand_order_.resize(cand_.size());
  std::iota(cand_order_.begin(), cand_order_.end(), std::size_t{0});
  std::sort(cand_order_.begin(), cand_order_.end(), [&](std::size_t a, std::size_t b) {
    const std::size_t ra = rank[cand_place_[a]];
    const std::size_t rb = rank[cand_place_[b]];
    return ra < rb || (ra == rb && a < b);
  });
  loads_.clear();
  for (const std::size_t c : cand_order_) {
    const Place& p = places[cand_place_[c]];
    SliceLoad l = p.load;
    l.rdf = rdf_on(*f, p.profile);
    loads_.push_back(l);
  }
  // A best-effort batch needs, on its idle container's slice, the activations it adds to that
  // container's resident memory (0 under batch-footprint, where the container holds its whole
  // footprint): the slices' free memory is the platform's, which already holds the weights.
  const auto pick = strict ? choose_strict_slice(loads_, f->fbr)
                           : choose_best_effort_slice(loads_, f->activation_gb);
  return view.idle[cand_[cand_order_[pick.value_or(0)]]].id;
}

}  // namespace sim::policy::protean
