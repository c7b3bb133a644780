#include "protean_autoscaler.hpp"

#include <algorithm>
#include <cmath>

namespace sim::policy::protean {

namespace {

// Whether a container of `f` fits `p` once containers holding `freed` GB of footprints (of
// which `freed_resident` resident) have left it, `left` containers remaining. Every scheme
// needs the platform's rule (policy::container_fits: what it enforces; the baselines place on
// it alone). Protean's placement also needs its estimate of the memory left for batches to hold
// the container's footprint: the container is started for a batch ("one container spawned for
// each batch of requests received", §4.2), so its weights and that batch's activations must
// fit beside what the place holds (AdmissionMemory: under kPlatform the weights of the live
// containers and the activations of the batches running now, as the platform holds them, BE
// memory being what BE *requests* occupy, §4.3; under kBatchFootprint every live container at
// its footprint). Under either it is at least as strict as the platform's rule under
// weights-resident, and equal to it under batch-footprint. The activation room is kept as it
// is (it can only shrink when containers leave): conservative.
bool fits_after(const FunctionView& f, const Place& p, double freed, double freed_resident,
                int left, ContainerPlacement mode) {
  if (p.exclusive && left > 0) return false;
  if (!container_fits(f, p.load.memory_gb, p.platform_free_gb + freed_resident + 1e-9,
                      p.resident_gb - freed_resident, p.activation_room_gb)) {
    return false;
  }
  return mode != ContainerPlacement::kJobDistribution ||
         p.load.memory_free_gb + freed + 1e-9 >= f.device_memory_gb;
}

bool fits(const FunctionView& f, const Place& p, ContainerPlacement mode) {
  return fits_after(f, p, 0.0, 0.0, p.instances, mode);
}

bool counts_as_live(const InstanceView& i) {
  return i.state == InstanceState::kColdStarting || i.state == InstanceState::kIdle ||
         i.state == InstanceState::kBusy;
}

const GpuView* gpu_of(const PlatformView& view, int host, int gpu) {
  if (host < 0 || static_cast<std::size_t>(host) >= view.hosts.size()) return nullptr;
  const auto& h = view.hosts[static_cast<std::size_t>(host)];
  if (!h.available || gpu < 0 || static_cast<std::size_t>(gpu) >= h.gpus.size()) return nullptr;
  return &h.gpus[static_cast<std::size_t>(gpu)];
}

// n_r of §4.2 for one function: the requests arriving during one batch (latest rate x batch
// time) plus those already queued.
double requests_in_flight(const FunctionView& f) {
  const double rate = f.arrival_rate.empty() ? 0.0 : f.arrival_rate.front();
  return rate * f.batch_latency_s + static_cast<double>(f.queue_length);
}

}  // namespace

std::optional<std::size_t> ProteanAutoscaler::place_container(const FunctionView& f,
                                                              const std::vector<Place>& places,
                                                              ContainerPlacement mode,
                                                              SliceOrder by) {
  if (mode == ContainerPlacement::kSpread || mode == ContainerPlacement::kConsolidate) {
    const bool spread = mode == ContainerPlacement::kSpread;
    std::optional<std::size_t> best;
    for (std::size_t p = 0; p < places.size(); ++p) {
      if (!fits(f, places[p], mode)) continue;
      // Balanced or consolidated by the free memory the platform reports.
      const double free = places[p].platform_free_gb;
      const double best_free = best ? places[*best].platform_free_gb : 0.0;
      if (!best || (spread ? free > best_free : free < best_free)) best = p;
    }
    return best;
  }
  // Algorithm 1 over the places with room, in ascending order of resources.
  std::vector<std::size_t> cand;
  std::vector<SliceLoad> loads;
  for (const std::size_t p : ascending_order(places, by)) {
    if (!fits(f, places[p], mode)) continue;
    cand.push_back(p);
    SliceLoad l = places[p].load;
    l.rdf = rdf_on(f, places[p].profile);
    loads.push_back(l);
  }
  if (cand.empty()) return std::nullopt;
  const auto k = is_strict(f) ? choose_strict_slice(loads, f.fbr)
                              : choose_best_effort_slice(loads, f.device_memory_gb);
  return cand[k.value_or(0)];
}

void ProteanAutoscaler::reconfigurator(const PlatformView& view, Decisions& d) {
  (void)d;
  // Algorithm 2 line 8: the number of best-effort requests per MIG GPU fed to the EWMA, either
  // those in flight (n_r of §4.2: queued + arriving during one batch, the demand Algorithm 1
  // tags for) or those that arrived in the monitor interval (one control tick). The BE model
  // is the best-effort function with the most of them.
  double be_new = 0.0;
  const FunctionView* be_model = nullptr;
  double be_model_new = 0.0;
  // The strict model whose profile the profiled thresholds use: the strict function with the
  // most requests in flight (n_r of §4.2), as the BE model is the BE one with the most. Only
  // a function that has had strict requests: one without arrivals counts as strict for
  // placement (is_strict), but its profile says nothing about strict requests; with none, the
  // fixed t_low, t_high apply (a best-effort-only mix has no strict slowdown to compare).
  const FunctionView* strict_model = nullptr;
  double strict_model_in_flight = -1.0;
  for (const auto& f : view.functions) {
    if (f.gpu && f.strict_arrivals > 0 && is_strict(f)) {
      const double in_flight = requests_in_flight(f);
      if (in_flight > strict_model_in_flight) {
        strict_model = &f;
        strict_model_in_flight = in_flight;
      }
    }
    const std::uint64_t be = f.arrivals - f.strict_arrivals;
    auto& last = last_best_effort_arrivals_[f.id];
    double count = static_cast<double>(be - std::min(be, last));
    last = be;
    if (config_.best_effort_count == BestEffortCount::kInFlight) {
      if (is_strict(f)) continue;
      count = requests_in_flight(f);
    }
    be_new += count;
    if (f.gpu && count > be_model_new) {
      be_model = &f;
      be_model_new = count;
    }
  }
  std::vector<std::pair<int, int>> gpus;
  int in_progress = static_cast<int>(draining_.size());
  for (const auto& h : view.hosts) {
    if (!h.available) continue;
    for (std::size_t g = 0; g < h.gpus.size(); ++g) {
      if (!h.gpus[g].mig) continue;
      gpus.emplace_back(h.index, static_cast<int>(g));
      if (h.gpus[g].reconfiguring) ++in_progress;
    }
  }
  // A GPU past its downtime still counts until it serves again (ReconfiguringUntil::kServing).
  for (auto it = recovering_.begin(); it != recovering_.end();) {
    const auto [host, gpu] = it->first;
    const GpuView* gv = gpu_of(view, host, gpu);
    if (gv == nullptr) {
      it = recovering_.erase(it);
      continue;
    }
    if (gv->reconfiguring) {  // counted above
      ++it;
      continue;
    }
    bool ready = false;
    bool starting = false;
    for (const auto& i : view.instances) {
      if (i.location.host != host || i.location.gpu != gpu) continue;
      ready = ready || i.state == InstanceState::kIdle || i.state == InstanceState::kBusy;
      starting = starting || i.state == InstanceState::kColdStarting;
    }
    if (ready || (!starting && it->second)) {
      it = recovering_.erase(it);
      continue;
    }
    if (!starting) it->second = true;  // none placed yet: the next decision may place some
    ++in_progress;
    ++it;
  }
  if (gpus.empty()) return;
  const double predicted = predictor_.observe(be_new / static_cast<double>(gpus.size()));
  double memory = 0.0;  // line 9: mem(BE_model, pred_BE_num)
  if (be_model != nullptr) {
    memory = best_effort_memory_gb(predicted, be_model->config.max_batch,
                                   be_model->device_memory_gb, config_.best_effort_memory);
  }
  // Lines 14-15 under ThresholdMode::kProfiled: the strict and BE models' profiles.
  std::optional<ThresholdProfile> profile;
  if (be_model != nullptr && strict_model != nullptr) {
    profile = ThresholdProfile{
        strict_model->fbr,          strict_model->rdf,          be_model->fbr,
        be_model->device_memory_gb, be_model->config.max_batch, config_.slice_order};
  }
  const auto target =
      choose_geometry(config_.reconfiguration, memory, profile ? &*profile : nullptr);
  const int cap = max_simultaneous_reconfigurations(static_cast<int>(gpus.size()),
                                                    config_.max_reconfiguring_fraction);
  for (const auto& g : gpus) {
    if (draining_.count(g) > 0) continue;
    const GpuView* gv = gpu_of(view, g.first, g.second);
    std::vector<std::string> current;
    for (const auto& s : gv->slices)
      current.push_back(s.profile);
    const bool mismatch = sorted_geometry(current) != target;
    if (counters_[g].should_reconfigure(mismatch, config_.reconfiguration.wait_limit) &&
        !gv->reconfiguring && in_progress < cap) {
      draining_[g] = target;
      counters_[g].reconfigured();  // lines 26, 29-30
      if (config_.after_reconfiguration == AfterReconfiguration::kRestore) {
        // The containers to start again once it serves (added to any not yet restored).
        Held& held = held_[g];
        held.reconfigured = false;
        for (const auto& i : view.instances) {
          if (i.location.host == g.first && i.location.gpu == g.second && counts_as_live(i) &&
              stopping_.count(i.id) == 0) {
            held.functions.push_back(i.function);
          }
        }
      }
      ++in_progress;
    }
  }
}

void ProteanAutoscaler::drain(const PlatformView& view, Decisions& d) {
  for (auto it = draining_.begin(); it != draining_.end();) {
    const auto [host, gpu] = it->first;
    const GpuView* gv = gpu_of(view, host, gpu);
    if (gv == nullptr) {
      held_.erase(it->first);
      it = draining_.erase(it);
      continue;
    }
    bool empty = true;
    for (const auto& i : view.instances) {
      if (i.location.host != host || i.location.gpu != gpu) continue;
      if (i.state == InstanceState::kTerminated) continue;
      empty = false;
      if (i.state != InstanceState::kDraining && stopping_.insert(i.id).second) {
        d.stop.push_back({i.id});
      }
    }
    if (empty && !gv->reconfiguring) {
      d.reconfigure.push_back({host, gpu, it->second});
      reconfigured_now_.insert(it->first);
      if (const auto h = held_.find(it->first); h != held_.end()) h->second.reconfigured = true;
      if (config_.reconfiguring_until == ReconfiguringUntil::kServing) {
        recovering_[it->first] = false;
      }
      it = draining_.erase(it);
    } else {
      ++it;
    }
  }
}

Decisions ProteanAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  {
    std::set<InstanceId> live_ids;
    for (const auto& i : view.instances)
      live_ids.insert(i.id);
    std::erase_if(stopping_, [&](InstanceId id) { return live_ids.count(id) == 0; });
  }
  reconfigured_now_.clear();
  // Algorithm 2 line 1: the reconfigurator runs "for every Monitor_Interval = W" (W is not
  // published; the default is the control tick, so it runs at every decision).
  if (config_.reconfigure &&
      (!last_monitor_ || view.now - *last_monitor_ >= seconds(config_.monitor_interval_s))) {
    last_monitor_ = view.now;
    reconfigurator(view, d);
  }
  drain(view, d);

  GpuSet excluded = reconfigured_now_;
  for (const auto& [g, target] : draining_)
    excluded.insert(g);
  auto places = cluster_places(view, LoadScope::kLive, excluded, config_.admission_memory);
  if (config_.placement == ContainerPlacement::kJobDistribution) {
    tag_places(places, view, config_.container_count, config_.monitor_interval_s,
               config_.container_scope, config_.slice_order);
  }

  // n_c per function (§4.2), split into the containers a node's own backlog needs on that node
  // and those that may run anywhere (ContainerNeed). A function's live containers on a node
  // serve that node's backlog first; the rest ("floating") serve the pool anywhere, and those
  // beyond its `anywhere` count are surplus.
  const auto workers = worker_hosts(view);
  std::map<std::uint32_t, ContainerNeed> need;
  std::map<std::uint32_t, std::map<int, int>> live;  // function -> host -> live containers
  for (const auto& f : view.functions) {
    if (f.gpu) {
      need[f.id] = container_need(f, config_.container_count, config_.monitor_interval_s,
                                  config_.container_scope, workers);
    }
  }
  for (const auto& i : view.instances)
    if (counts_as_live(i) && stopping_.count(i.id) == 0) ++live[i.function][i.location.host];
  auto bound = [&](std::uint32_t fid, int host) {
    const auto& at = need[fid].at_node;
    const auto it = at.find(host);
    return it == at.end() ? 0 : it->second;
  };
  auto floating = [&](std::uint32_t fid) {
    int n = 0;
    for (const auto& [host, k] : live[fid])
      n += std::max(0, k - bound(fid, host));
    return n;
  };
  // A container of `fid` on `host` is surplus when its node has more than its backlog needs
  // and the function more floating containers than its pool needs.
  auto surplus_at = [&](std::uint32_t fid, int host) {
    return live[fid][host] > bound(fid, host) && floating(fid) > need[fid].anywhere;
  };

  // Delayed termination (§4.2): stop surplus idle containers, newest first, once the model
  // has had a surplus for the whole surplus period.
  for (const auto& f : view.functions) {
    if (floating(f.id) <= need[f.id].anywhere) {
      surplus_since_.erase(f.id);
      continue;
    }
    const auto [since, fresh] = surplus_since_.try_emplace(f.id, view.now);
    if (fresh || view.now - since->second < config_.surplus_period) continue;
    for (auto it = view.instances.rbegin(); it != view.instances.rend(); ++it) {
      if (it->function != f.id || it->state != InstanceState::kIdle) continue;
      if (stopping_.count(it->id) > 0 || !surplus_at(f.id, it->location.host)) continue;
      stopping_.insert(it->id);
      d.stop.push_back({it->id});
      --live[f.id][it->location.host];
    }
  }

  // What Protean's estimate charges an idle container (AdmissionMemory): its weights as the
  // platform holds them, or its footprint. A container started now is charged its footprint
  // under both: it is started for a batch (§4.2).
  auto idle_charge = [&](const FunctionView& f) {
    return config_.admission_memory == AdmissionMemory::kPlatform ? resident_charge_gb(f)
                                                                  : f.device_memory_gb;
  };
  auto add_load = [&](Place& p, const FunctionView& f, double sign) {
    p.load.memory_free_gb -= sign * (sign > 0 ? f.device_memory_gb : idle_charge(f));
    const double resident = resident_charge_gb(f);
    p.platform_free_gb -= sign * resident;
    p.resident_gb += sign * resident;
    // Kept when a container leaves (the room may shrink, never grow): conservative.
    if (sign > 0) p.activation_room_gb = std::max(p.activation_room_gb, f.activation_gb);
    p.instances += sign > 0 ? 1 : -1;
    (is_strict(f) ? p.load.strict_fbr : p.load.best_effort_fbr) += sign * f.fbr;
  };
  // Idle containers of models with a surplus give way to a needed one (see header): on the
  // first place (on `host`, or anywhere when it is -1) where stopping some of them (oldest
  // first) makes room.
  auto evict_for = [&](const FunctionView& f, int host) -> std::optional<std::size_t> {
    for (std::size_t p = 0; p < places.size(); ++p) {
      Place& place = places[p];
      if (host >= 0 && place.location.host != host) continue;
      std::vector<const InstanceView*> victims;
      double freed = 0.0;
      double freed_resident = 0.0;
      int left = place.instances;
      for (const auto& i : view.instances) {
        if (fits_after(f, place, freed, freed_resident, left, config_.placement)) break;
        if (i.state != InstanceState::kIdle || i.function == f.id) continue;
        if (i.location != place.location || stopping_.count(i.id) > 0) continue;
        if (!surplus_at(i.function, i.location.host)) continue;
        const FunctionView* g = view.function(i.function);
        if (g == nullptr) continue;
        victims.push_back(&i);
        freed += idle_charge(*g);
        freed_resident += resident_charge_gb(*g);
        --left;
        --live[i.function][i.location.host];  // taken: no longer counted as surplus
      }
      if (!fits_after(f, place, freed, freed_resident, left, config_.placement)) {
        for (const InstanceView* i : victims)
          ++live[i->function][i->location.host];  // not taken after all
        continue;
      }
      for (const InstanceView* i : victims) {
        stopping_.insert(i->id);
        d.stop.push_back({i->id});
        add_load(place, *view.function(i->function), -1.0);
      }
      return p;
    }
    return std::nullopt;
  };
  // Algorithm 1 (or the scheme's placement) over the places of `host` only, or of every host.
  auto place_on = [&](const FunctionView& f, int host) -> std::optional<std::size_t> {
    if (host < 0) return place_container(f, places, config_.placement, config_.slice_order);
    std::vector<Place> own;
    std::vector<std::size_t> index;
    for (std::size_t p = 0; p < places.size(); ++p) {
      if (places[p].location.host != host) continue;
      own.push_back(places[p]);
      index.push_back(p);
    }
    const auto k = place_container(f, own, config_.placement, config_.slice_order);
    return k ? std::optional<std::size_t>(index[*k]) : std::nullopt;
  };
  auto start_at = [&](const FunctionView& f, std::size_t p) {
    InstanceConfig config = f.config;
    if (is_strict(f) && config_.strict_sm_cap < 1.0) config.gpu_share = config_.strict_sm_cap;
    d.start.push_back({f.id, 1, config, places[p].location});
    add_load(places[p], f, 1.0);
    ++live[f.id][places[p].location.host];
  };
  auto start = [&](const FunctionView& f, int host) {
    auto p = place_on(f, host);
    if (!p && evict_for(f, host)) p = place_on(f, host);
    if (!p) return false;
    start_at(f, *p);
    return true;
  };

  // AfterReconfiguration::kRestore: a GPU serving again after its reconfiguration gets back
  // the containers it held, largest footprint first, each best fit on its new slices. They are
  // the warm (idle) containers it held, not containers started for a batch, so they are
  // admitted by the platform's memory rule (resident memory, plus room for one batch of the
  // largest activations; under batch-footprint memory, their footprints) and Protean's
  // estimate charges them as it charges an idle container (idle_charge).
  auto restore_at = [&](const FunctionView& f, std::size_t p) {
    start_at(f, p);
    places[p].load.memory_free_gb += f.device_memory_gb - idle_charge(f);
  };
  for (auto it = held_.begin(); it != held_.end();) {
    const auto [host, gpu] = it->first;
    const GpuView* gv = gpu_of(view, host, gpu);
    if (gv == nullptr) {
      it = held_.erase(it);
      continue;
    }
    if (!it->second.reconfigured || gv->reconfiguring || excluded.count(it->first) > 0) {
      ++it;
      continue;
    }
    std::vector<const FunctionView*> restore;
    for (const std::uint32_t fid : it->second.functions)
      if (const FunctionView* f = view.function(fid); f != nullptr && f->gpu) restore.push_back(f);
    std::stable_sort(restore.begin(), restore.end(),
                     [](const FunctionView* a, const FunctionView* b) {
                       if (a->device_memory_gb != b->device_memory_gb)
                         return a->device_memory_gb > b->device_memory_gb;
                       return a->id < b->id;
                     });
    for (const FunctionView* f : restore) {
      std::optional<std::size_t> best;
      for (std::size_t p = 0; p < places.size(); ++p) {
        const Location& l = places[p].location;
        if (l.host != host || l.gpu != gpu || !fits(*f, places[p], ContainerPlacement::kSpread))
          continue;
        if (!best || places[p].platform_free_gb < places[*best].platform_free_gb) best = p;
      }
      if (best) restore_at(*f, *best);
    }
    it = held_.erase(it);
  }

  // Strict models first, so that they get the best slices. A node's backlog gets its
  // containers on that node (only they can take its requests), then the pool's anywhere.
  std::vector<const FunctionView*> order;
  for (const auto& f : view.functions)
    if (f.gpu && is_strict(f)) order.push_back(&f);
  for (const auto& f : view.functions)
    if (f.gpu && !is_strict(f)) order.push_back(&f);
  for (const FunctionView* f : order) {
    for (const auto& [host, k] : need[f->id].at_node)
      for (int n = live[f->id][host]; n < k; ++n)
        if (!start(*f, host)) break;
    for (int n = floating(f->id); n < need[f->id].anywhere; ++n)
      if (!start(*f, -1)) break;
  }
  return d;
}

}  // namespace sim::policy::protean
