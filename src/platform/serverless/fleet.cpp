#include "fleet.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sim::platform::serverless {

using nlohmann::json;

Fleet::Fleet(const ServerlessConfig& config, const gpu::ModelCatalog& catalog, Simulation& sim,
             const net::Topology* topology, DecisionCounts& counts, FleetEvents& events)
    : config_(config),
      catalog_(catalog),
      sim_(sim),
      topology_(topology),
      counts_(counts),
      events_(events),
      spot_rng_(sim.rng("platform/serverless", "spot")) {}

void Fleet::build() {
  for (std::size_t t = 0; t < config_.hosts.size(); ++t) {
    for (int i = 0; i < config_.hosts[t].count; ++i)
      add_host(static_cast<int>(t), config_.hosts[t].spec.market, true);
  }
  for (const auto& s : config_.spot.scheduled) {
    if (s.host < 0 || static_cast<std::size_t>(s.host) >= hosts_.size()) {
      throw std::invalid_argument("serverless platform: scheduled revocation of host " +
                                  std::to_string(s.host) + ", but the cluster has " +
                                  std::to_string(hosts_.size()) + " hosts");
    }
    const Time notice = config_.spot.notice_min;
    const Time at_notice = std::max(s.at - notice, sim_.now());
    const int h = s.host;
    const Time at = s.at;
    sim_.schedule_at(at_notice, [this, h, at] { revocation_notice(h, std::max(at, sim_.now())); });
  }
}

void Fleet::add_host(int template_index, cluster::Market market, bool at_start) {
  auto h = std::make_unique<cluster::Host>();
  h->index = static_cast<int>(hosts_.size());
  h->name = "host" + std::to_string(h->index);
  h->template_index = template_index;
  h->spec = config_.hosts.at(static_cast<std::size_t>(template_index)).spec;
  h->spec.market = market;
  h->up_since = sim_.now();
  if (topology_ != nullptr) {
    const auto node = topology_->find(h->name);
    if (!node) {
      throw std::invalid_argument("serverless platform: the network has no node \"" + h->name +
                                  "\" for cluster host " + std::to_string(h->index) +
                                  " (add hosts to the topology)");
    }
    h->nic = *node;
  }
  std::vector<int> ids;
  for (std::size_t g = 0; g < h->spec.gpus.size(); ++g) {
    const auto& gs = h->spec.gpus[g];
    h->gpus.push_back(std::make_unique<cluster::GpuDevice>(
        sim_, h->name + "/gpu" + std::to_string(g), catalog_.gpu(gs.type), gs));
    ids.push_back(next_gpu_id_++);
  }
  gpu_ids_.push_back(std::move(ids));
  hosts_.push_back(std::move(h));
  schedule_spot(*hosts_.back(), at_start);
}

int Fleet::global_gpu(const policy::Location& loc) const {
  return gpu_ids_.at(static_cast<std::size_t>(loc.host)).at(static_cast<std::size_t>(loc.gpu));
}

void Fleet::schedule_spot(cluster::Host& host, bool at_start) {
  if (host.spec.market != cluster::Market::kSpot) return;
  const int h = host.index;
  const Time interval = config_.spot.revocation_interval;
  if (interval > Time::zero()) {
    // Protean §5: notifications "at each worker node at fixed time intervals based on
    // revocation probability (P_rev)". The paper gives neither the interval nor its phase.
    Time first = interval;
    if (at_start && config_.spot.phase == SpotPhase::kUniform) {
      first = ceil_seconds(spot_rng_.uniform(0.0, interval.to_seconds()));
      if (first <= Time::zero()) first = interval;
    }
    sim_.schedule_in(first, [this, h] { spot_draw(h); });
    return;
  }
  if (config_.spot.revocations_per_hour <= 0) return;
  const double after_s = spot_rng_.exponential(config_.spot.revocations_per_hour / 3600.0);
  const double notice_s =
      spot_rng_.uniform(config_.spot.notice_min.to_seconds(), config_.spot.notice_max.to_seconds());
  const Time at = sim_.now() + ceil_seconds(after_s);
  const Time notice_at = std::max(at - ceil_seconds(notice_s), sim_.now());
  sim_.schedule_at(notice_at, [this, h, at] { revocation_notice(h, at); });
}

void Fleet::spot_draw(int h) {
  const auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone || host.revocation_at) return;
  if (spot_rng_.uniform01() < config_.spot.revocation_probability) {
    // The notice is the interval's event; the revocation follows it by 30-120 s (§2.3).
    const double notice_s = spot_rng_.uniform(config_.spot.notice_min.to_seconds(),
                                              config_.spot.notice_max.to_seconds());
    revocation_notice(h, sim_.now() + ceil_seconds(notice_s));
    return;
  }
  sim_.schedule_in(config_.spot.revocation_interval, [this, h] { spot_draw(h); });
}

void Fleet::revocation_notice(int h, Time at) {
  auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone || !host.available || host.revocation_at) return;
  ++spot_notices_;
  host.revocation_at = at;
  if (config_.spot.drain == SpotDrain::kAtNotice) {
    drain(h);  // idle and cold-starting instances stop now, busy ones after their batch
  } else {
    // The host serves until its replacement comes up (apply) or until shortly before the
    // revocation, so that its last batches finish on it (§4.5).
    const Time lead_at = std::max(at - config_.spot.drain_lead, sim_.now());
    sim_.schedule_at(lead_at, [this, h] { drain(h); });
  }
  sim_.schedule_at(at, [this, h] { revoke(h); });
}

void Fleet::drain(int h) {
  auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone || !host.available) return;
  host.available = false;
  events_.revocation_notice(h);
}

void Fleet::revoke(int h) {
  auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone) return;
  drain(h);  // no-op unless a zero drain lead put the drain after this event
  host.gone = true;
  host.down_at = sim_.now();
  ++spot_revocations_;
  const auto work = events_.revoked(h);
  revocation_overruns_ += work.batches;
  revocation_cut_requests_ += work.requests;
  host.cache.clear();
}

void Fleet::apply(const policy::Decisions& d) {
  for (const auto& r : d.request_vms) {
    if (r.host_template < 0 || static_cast<std::size_t>(r.host_template) >= config_.hosts.size()) {
      ++counts_.rejected["request_vm"];
      continue;
    }
    cluster::Market market = config_.hosts[static_cast<std::size_t>(r.host_template)].spec.market;
    if (r.market) market = *r.market;
    const std::string name = "host" + std::to_string(hosts_.size() + pending_vms_);
    if (topology_ != nullptr && !topology_->find(name)) {
      ++counts_.rejected["request_vm"];
      continue;
    }
    ++counts_.applied["request_vm"];
    ++pending_vms_;
    const int t = r.host_template;
    const std::optional<int> replaces = r.replaces;
    events_.vm_requested(t, replaces ? *replaces : -1);
    sim_.schedule_in(config_.provisioning_delay, [this, t, market, replaces] {
      --pending_vms_;
      ++vms_provisioned_;
      add_host(t, market, false);
      events_.host_added(hosts_.back()->index);
      // §4.5: "Once the new VM (spot/on-demand) is acquired, we redirect the incoming
      // traffic to it" (with spot_drain "notice" the replaced host is drained already).
      if (replaces && *replaces >= 0 && static_cast<std::size_t>(*replaces) < hosts_.size() &&
          hosts_[static_cast<std::size_t>(*replaces)]->revocation_at) {
        drain(*replaces);
      }
    });
  }
  for (const auto& r : d.release_vms) {
    if (r.host < 0 || static_cast<std::size_t>(r.host) >= hosts_.size() ||
        hosts_[static_cast<std::size_t>(r.host)]->gone) {
      ++counts_.rejected["release_vm"];
      continue;
    }
    ++counts_.applied["release_vm"];
    auto& h = *hosts_[static_cast<std::size_t>(r.host)];
    h.available = false;
    events_.releasing(r.host);
    h.gone = true;
    h.down_at = sim_.now();
    h.cache.clear();
  }
}

void Fleet::write_summary(json& out, Time end) const {
  Time busy;
  std::size_t gpus = 0;
  double gpu_capacity_s = 0.0;
  double on_demand = 0, spot = 0, owned = 0;
  for (const auto& h : hosts_) {
    const Time until = h->down_at ? *h->down_at : end;
    const double life_s = until > h->up_since ? (until - h->up_since).to_seconds() : 0.0;
    for (const auto& g : h->gpus) {
      busy += g->busy_time(end);
      ++gpus;
      gpu_capacity_s += life_s;
    }
    const double c = h->cost_usd(end);
    switch (h->spec.market) {
      case cluster::Market::kOnDemand:
        on_demand += c;
        break;
      case cluster::Market::kSpot:
        spot += c;
        break;
      case cluster::Market::kOwned:
        owned += c;
        break;
    }
  }
  out["gpu_utilisation"] = gpu_capacity_s > 0 ? busy.to_seconds() / gpu_capacity_s : 0.0;
  out["gpu_busy_seconds"] = busy.to_seconds();
  out["gpus"] = gpus;
  out["hosts"] = hosts_.size();
  out["cost_usd"] = {{"on_demand", on_demand},
                     {"spot", spot},
                     {"owned", owned},
                     {"total", on_demand + spot + owned}};
  out["spot"] = {{"notices", spot_notices_},
                 {"revocations", spot_revocations_},
                 {"batches_running_at_revocation", revocation_overruns_},
                 {"requests_cut_at_revocation", revocation_cut_requests_},
                 {"vms_provisioned", vms_provisioned_}};
}

}  // namespace sim::platform::serverless
