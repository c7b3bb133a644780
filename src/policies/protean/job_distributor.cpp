#include "job_distributor.hpp"

#include <map>
#include <tuple>

#include "cluster_places.hpp"

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
  auto places = cluster_places(*view.platform, LoadScope::kBusy);
  tag_places(places, *view.platform);
  std::map<std::tuple<int, int, int>, std::size_t> at;
  for (std::size_t p = 0; p < places.size(); ++p) {
    const Location& l = places[p].location;
    at[{l.host, l.gpu, l.slice}] = p;
  }
  const bool strict = batch_is_strict(view);
  // Candidates: the idle containers' slices, ascending by memory for first-fit packing.
  std::vector<const InstanceView*> cand;
  std::vector<std::size_t> cand_place;
  for (const std::size_t p : ascending_order(places)) {
    for (const auto& i : view.idle) {
      const Location& l = i.location;
      const auto it = at.find({l.host, l.gpu, l.slice});
      if (it == at.end() || it->second != p) continue;
      cand.push_back(&i);
      cand_place.push_back(p);
    }
  }
  if (cand.empty()) return view.idle.front().id;
  std::vector<SliceLoad> loads;
  for (std::size_t k = 0; k < cand.size(); ++k) {
    SliceLoad l = places[cand_place[k]].load;
    l.rdf = rdf_on(*f, places[cand_place[k]].profile);
    loads.push_back(l);
  }
  const auto pick = strict ? choose_strict_slice(loads, f->fbr)
                           : choose_best_effort_slice(loads, f->device_memory_gb);
  return cand[pick.value_or(0)]->id;
}

}  // namespace sim::policy::protean
