#include "best_server.hpp"

#include <algorithm>
#include <cmath>

#include "resource_efficiency.hpp"

namespace sim::policy::infless {

namespace {

struct Found {
  double e = 0.0;
  std::size_t j = 0;
  int gpu = -1;
};

// Whether server j beats what was found: strictly larger e, or equal e at a lower index (the
// direct scan visits servers by ascending index and keeps the first of equals).
bool beats(const std::optional<Found>& f, double e, std::size_t j) {
  return !f || e > f->e || (e == f->e && j < f->j);
}

std::optional<Found> best_direct_one(const Configuration& c,
                                     const std::vector<ServerState>& servers,
                                     std::span<const double> available, const ScheduleOptions& o,
                                     double numerator, double demand) {
  std::optional<Found> f;
  for (std::size_t j = 0; j < servers.size(); ++j) {
    const int g = gpu_for(servers[j], c, o);
    if (g < 0) continue;
    const double e = efficiency_on(numerator, demand, available[j]);
    if (!f || e > f->e) f = Found{e, j, g};
  }
  return f;
}

// Across configurations: the first of equals, as the direct scan's strict comparison keeps.
void keep(std::optional<BestServer>& best, const std::optional<Found>& f, std::size_t k) {
  if (f && (!best || f->e > best->efficiency)) best = BestServer{k, f->j, f->gpu, f->e};
}

}  // namespace

std::optional<BestServer> best_server_direct(std::span<const Configuration> candidates,
                                             const std::vector<ServerState>& servers,
                                             std::span<const double> available,
                                             const ScheduleOptions& o, double e_max) {
  std::optional<BestServer> best;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Configuration& c = candidates[k];
    const double demand = unified_resource(c.threads, c.gpu_percent, o.beta);
    const double numerator = efficiency_numerator(c.bounds.r_up, demand, e_max);
    keep(best, best_direct_one(c, servers, available, o, numerator, demand), k);
  }
  return best;
}

bool ServersByAvailable::orderable(const ServerState& s, double a) {
  // The bound "fits => A_j >= demand - margin" needs every term of A_j non-negative.
  if (!(s.cores_free >= 0.0) || !std::isfinite(a)) return false;
  return std::all_of(s.gpus.begin(), s.gpus.end(),
                     [](const GpuSlot& g) { return !g.usable || g.share_free >= 0.0; });
}

ServersByAvailable::ServersByAvailable(const std::vector<ServerState>& servers, double beta)
    : beta_(beta) {
  available_.reserve(servers.size());
  order_.reserve(servers.size());
  for (std::size_t j = 0; j < servers.size(); ++j) {
    available_.push_back(servers[j].available(beta));
    order_.emplace_back(available_.back(), j);
    ordered_.push_back(orderable(servers[j], available_.back()) ? 1 : 0);
    if (ordered_.back() == 0) ++unordered_;
  }
  std::sort(order_.begin(), order_.end());
}

void ServersByAvailable::changed(std::size_t j, const ServerState& s) {
  const std::pair<double, std::size_t> old{available_[j], j};
  const auto at = std::lower_bound(order_.begin(), order_.end(), old);
  const double a = s.available(beta_);
  available_[j] = a;
  unordered_ -= ordered_[j] == 0 ? 1 : 0;
  ordered_[j] = orderable(s, a) ? 1 : 0;
  unordered_ += ordered_[j] == 0 ? 1 : 0;
  // Move the entry to its new place (a booking lowers A_j: usually towards the front).
  const std::pair<double, std::size_t> now{a, j};
  const auto to = std::lower_bound(order_.begin(), order_.end(), now);
  if (to <= at) {
    std::move_backward(to, at, at + 1);
    *to = now;
  } else {
    std::move(at + 1, to, at);
    *(to - 1) = now;
  }
}

std::optional<BestServer> ServersByAvailable::best(std::span<const Configuration> candidates,
                                                   const std::vector<ServerState>& servers,
                                                   const ScheduleOptions& o, double e_max) const {
  const bool ordered = unordered_ == 0 && beta_ >= 0.0 && std::isfinite(beta_) && o.beta == beta_;
  std::optional<BestServer> best;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Configuration& c = candidates[k];
    const double demand = unified_resource(c.threads, c.gpu_percent, o.beta);
    const double numerator = efficiency_numerator(c.bounds.r_up, demand, e_max);
    // The fit test tolerates 1e-9 of SM share (gpu_for), 1e-7 in GPU percent; the rest of
    // the margin covers the rounding of the sums.
    const double from = demand - (1e-6 + 1e-9 * std::abs(demand));
    if (!ordered || !(numerator >= 0.0) || !(from > 0.0)) {
      keep(best, best_direct_one(c, servers, available_, o, numerator, demand), k);
      continue;
    }
    std::optional<Found> f;
    for (auto it =
             std::lower_bound(order_.begin(), order_.end(), std::make_pair(from, std::size_t{0}));
         it != order_.end(); ++it) {
      const auto [a, j] = *it;
      const double e = efficiency_on(numerator, demand, a);
      if (f && e < f->e) break;  // e never grows with A_j: no later server beats f
      if (!beats(f, e, j)) continue;
      const int g = gpu_for(servers[j], c, o);
      if (g >= 0) f = Found{e, j, g};
    }
    keep(best, f, k);
  }
  return best;
}

}  // namespace sim::policy::infless
