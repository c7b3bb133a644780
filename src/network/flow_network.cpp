// Max-min fair flow network with incremental recomputation.
//
// Max-min fairness (Bertsekas & Gallager, "Data Networks", §6.5.2) by progressive filling: raise
// every unfrozen flow's rate together; when a channel runs out of capacity, freeze the flows on
// it at the current level; a flow's own cap freezes it when reached. The result is the unique
// allocation in which every flow has a bottleneck: its cap, or a saturated channel on which no
// flow has a higher rate.
//
// Incremental recomputation (docs/network.md "Rate allocation" has the full argument).
//
// (1) A level cut. In progressive filling a flow's rate at level x is min(x, its final rate),
// so a channel's usage at level x is the sum of min(r_g, x) over its flows. When flow f starts,
// nothing differs from the old filling until the first level L at which one of f's channels
// saturates with f on it: L solves sum_g min(r_g, L) + m min(L, cap_f) = capacity (m: how often
// f crosses it), minimised over f's channels (arrival_level; +inf if f fits everywhere). When f
// leaves, nothing differs below the lowest level at which one of its channels had saturated (the
// highest rate on it; +inf if none was saturated: departure_level). Every flow with a lower rate
// keeps it.
//
// (2) Fixing outside flows is exact. If every flow outside a set S keeps its rate, the new
// allocation restricted to S is max-min fair on the capacity those flows leave, and by uniqueness
// it is what progressive filling over S alone gives. A part of S that shares no channel with the
// changed channels (through S flows) sees the same residual problem as before and is left out.
//
// (3) Pruning at unsaturated channels, verified. The search for S (flows with rate >= L, from
// the changed channels) does not expand through channels that were unsaturated: they are kept
// as boundary constraints with the load of the flows behind them held. Afterwards, if every
// boundary channel is still unsaturated and every channel that stopped flows stopped them no
// lower than the rates held on it, every flow has a bottleneck, so the result is the max-min
// allocation. Otherwise the failing boundary channels are expanded and S is solved again (about
// 0.1 extra passes per change near saturation on the 1600-GPU datacenter).
//
// A pass is one breadth-first search (which also sums, per channel, the load left outside),
// one progressive filling over S with a min-heap of channel fair shares (lazy keys) and a heap
// of caps built only once the level reaches the smallest cap, and a commit that gives a new
// finish time only to the flows whose rate changed (a CompletionHeap update, not an event). S is
// taken with a relative margin below L, which only adds flows and so stays exact.
#include "sim/network/flow_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace sim::net {

namespace {
// Rates that differ by less than this (relative) are treated as unchanged: no new event.
constexpr double kSameRate = 1e-12;
// Flows down to this factor below the cut level join the re-solved set, so that rounding in the
// level (or in rates that are equal in exact arithmetic) never leaves out a flow that changes.
constexpr double kCutMargin = 1.0 - 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// A channel's entry for a flow attached but not yet solved (a new flow): above every threshold,
// so the search always takes it in, and never counted in a held load.
constexpr double kUnsolved = kInf;

void check_bytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0.0) {
    throw std::invalid_argument(
        fmt::format("flow: expected a finite number of bytes >= 0, found {}", bytes));
  }
}
}  // namespace

FlowNetwork::FlowNetwork(Simulation& sim, const Topology& topology)
    : sim_(sim),
      topology_(topology),
      routes_(topology),
      completions_(sim, [this](std::uint32_t slot) { complete(slot); }) {
  // hot_[slot].channels points into flows_[slot].route.channels: growing flows_ must move (not
  // copy) the flows so that those buffers stay where they are.
  static_assert(std::is_nothrow_move_constructible_v<Flow>);
  channels_.resize(topology.channel_count());
  for (ChannelId c = 0; c < channels_.size(); ++c) {
    channels_[c].capacity = topology.channel_capacity_bps(c);
  }
}

FlowNetwork::~FlowNetwork() {
  // Pending events capture `this`: cancel them so that a Simulation outliving us never calls in
  // (completions_ cancels its own).
  for (auto& f : flows_) {
    for (auto& d : f.deliveries)
      d.cancel();
  }
}

FlowHandle FlowNetwork::start(NodeId src, NodeId dst, double bytes, std::function<void()> on_done,
                              const FlowOptions& options) {
  check_bytes(bytes);
  if (src >= topology_.node_count() || dst >= topology_.node_count()) {
    throw std::invalid_argument(fmt::format("flow: node id {} or {} does not exist", src, dst));
  }
  Route route = routes_.route(src, dst, options.route_key.value_or(next_serial_), options.via);
  double cap = options.rate_cap_bps.value_or(kInf);
  if (!(cap > 0.0)) throw std::invalid_argument("flow: the rate cap must be > 0");
  for (const NodeId n : {src, dst}) {
    if (const auto& c = topology_.node(n).flow_cap_bps) cap = std::min(cap, *c);
  }
  std::vector<Time> latency{route.latency};
  std::function<void(std::size_t)> cb;
  if (on_done) cb = [done = std::move(on_done)](std::size_t) { done(); };
  return launch(std::move(route), std::move(latency), bytes, cap, std::move(cb));
}

FlowHandle FlowNetwork::start_chain(NodeId src, const std::vector<NodeId>& receivers, double bytes,
                                    std::function<void(std::size_t)> on_delivered,
                                    const FlowOptions& options) {
  check_bytes(bytes);
  if (receivers.empty()) throw std::invalid_argument("chain: expected at least one receiver");
  if (src >= topology_.node_count()) throw std::invalid_argument("chain: source does not exist");
  const std::uint64_t key = options.route_key.value_or(next_serial_);
  double cap = options.rate_cap_bps.value_or(kInf);
  if (!(cap > 0.0)) throw std::invalid_argument("chain: the rate cap must be > 0");
  if (const auto& c = topology_.node(src).flow_cap_bps) cap = std::min(cap, *c);
  Route route;
  route.nodes.push_back(src);
  std::vector<Time> latency;
  NodeId prev = src;
  for (const NodeId r : receivers) {
    if (r >= topology_.node_count()) throw std::invalid_argument("chain: receiver does not exist");
    if (const auto& c = topology_.node(r).flow_cap_bps) cap = std::min(cap, *c);
    Route hop = routes_.route(prev, r, key);
    route.channels.insert(route.channels.end(), hop.channels.begin(), hop.channels.end());
    route.nodes.insert(route.nodes.end(), hop.nodes.begin() + 1, hop.nodes.end());
    route.latency += hop.latency;
    latency.push_back(route.latency);
    prev = r;
  }
  return launch(std::move(route), std::move(latency), bytes, cap, std::move(on_delivered));
}

FlowHandle FlowNetwork::launch(Route route, std::vector<Time> delivery_latency, double bytes,
                               double cap, std::function<void(std::size_t)> on_delivered) {
  if (batch_depth_ > 0) check_batch_time();
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    hot_.emplace_back();
  }
  Flow& f = flows_[slot];
  f.serial = next_serial_++;
  f.state = State::kActive;
  f.route = std::move(route);
  f.delivery_latency = std::move(delivery_latency);
  f.remaining = bytes;
  f.last_update = sim_.now();
  f.on_delivered = std::move(on_delivered);
  f.deliveries.clear();
  f.pending_deliveries = 0;
  FlowHot& h = hot_[slot];
  h = FlowHot{};
  h.cap = cap;
  h.channels = f.route.channels.data();
  h.channel_count = static_cast<std::uint32_t>(f.route.channels.size());
  ++stats_.flows_started;
  ++active_count_;
  const FlowHandle handle{slot, f.serial};
  if (h.channel_count == 0) {
    // No link to share: limited by its own cap only (instantaneous when uncapped).
    h.rate = cap;
    schedule_completion(slot);
    completions_.arm();
    return handle;
  }
  attach(slot);
  if (batch_depth_ > 0) {
    mark_dirty(slot);
    batch_added_.push_back(slot);
    return handle;
  }
  const double level = arrival_level(h.channels, h.channel_count);
  resolve(h.channels, h.channel_count, level * kCutMargin, &slot, 1, true);
  return handle;
}

const FlowNetwork::Flow* FlowNetwork::lookup(FlowHandle h) const {
  if (!h.valid() || h.slot >= flows_.size()) return nullptr;
  const Flow& f = flows_[h.slot];
  if (f.serial != h.serial || f.state == State::kFree) return nullptr;
  return &f;
}

bool FlowNetwork::active(FlowHandle h) const {
  const Flow* f = lookup(h);
  return f != nullptr && f->state == State::kActive;
}

double FlowNetwork::rate_bps(FlowHandle h) const {
  const Flow* f = lookup(h);
  return (f != nullptr && f->state == State::kActive) ? hot_[h.slot].rate : 0.0;
}

double FlowNetwork::remaining_bytes(FlowHandle h) const {
  const Flow* f = lookup(h);
  if (f == nullptr || f->state != State::kActive) return 0.0;
  const double rate = hot_[h.slot].rate;
  if (std::isinf(rate)) return 0.0;
  const double moved = rate * (sim_.now() - f->last_update).to_seconds() / 8.0;
  return std::max(0.0, f->remaining - moved);
}

const Route& FlowNetwork::route(FlowHandle h) const {
  const Flow* f = lookup(h);
  if (f == nullptr) throw std::invalid_argument("flow: stale or invalid handle");
  return f->route;
}

double FlowNetwork::channel_bytes(ChannelId c) const {
  const Channel& ch = channels_.at(c);
  return ch.bytes + ch.load * (sim_.now() - ch.last_change).to_seconds() / 8.0;
}

std::vector<FlowNetwork::FlowView> FlowNetwork::flows() const {
  std::vector<FlowView> out;
  for (std::uint32_t s = 0; s < flows_.size(); ++s) {
    const Flow& f = flows_[s];
    if (f.state != State::kActive || f.route.channels.empty()) continue;
    out.push_back(FlowView{FlowHandle{s, f.serial}, &f.route.channels, hot_[s].rate, hot_[s].cap});
  }
  return out;
}

bool FlowNetwork::cancel(FlowHandle h) {
  if (lookup(h) == nullptr) return false;
  Flow& f = flows_[h.slot];
  if (f.state == State::kActive) {
    if (batch_depth_ > 0) check_batch_time();
    ++stats_.flows_cancelled;
    advance(h.slot);
    completions_.erase(h.slot);
    --active_count_;
    if (!f.route.channels.empty()) depart(h.slot);
  } else {
    for (auto& d : f.deliveries)
      d.cancel();
  }
  release(h.slot);
  completions_.arm();
  return true;
}

void FlowNetwork::begin_batch() {
  if (batch_depth_++ == 0) batch_time_ = sim_.now();
}

void FlowNetwork::end_batch() {
  if (batch_depth_ == 0) throw std::logic_error("FlowNetwork::end_batch: no batch is open");
  if (--batch_depth_ > 0) return;
  if (!dirty_.empty()) {
    if (batch_departures_ == 0) {
      // Only starts (e.g. a burst of cold-start downloads): the level cut holds for all of them
      // together (arrival_level), and the pruned, verified solve applies as for one start.
      const double level = arrival_level(dirty_.data(), dirty_.size());
      resolve(dirty_.data(), dirty_.size(), level * kCutMargin, batch_added_.data(),
              batch_added_.size(), true);
    } else {
      // With departures every flow of the changed components is re-solved (threshold -inf).
      resolve(dirty_.data(), dirty_.size(), -kInf, nullptr, 0, false);
    }
    for (const ChannelId c : dirty_)
      channels_[c].dirty = false;
  }
  dirty_.clear();
  batch_added_.clear();
  batch_departures_ = 0;
}

void FlowNetwork::check_batch_time() const {
  if (sim_.now() != batch_time_) {
    throw std::logic_error(
        fmt::format("FlowNetwork: a BatchUpdate opened at {} is still open at {}; close it before "
                    "simulated time moves on",
                    to_string(batch_time_), to_string(sim_.now())));
  }
}

void FlowNetwork::mark_dirty(std::uint32_t slot) {
  const FlowHot& h = hot_[slot];
  for (std::uint32_t i = 0; i < h.channel_count; ++i) {
    Channel& ch = channels_[h.channels[i]];
    if (!ch.dirty) {
      ch.dirty = true;
      dirty_.push_back(h.channels[i]);
    }
  }
}

void FlowNetwork::attach(std::uint32_t slot) {
  Flow& f = flows_[slot];
  f.pos.resize(f.route.channels.size());
  for (std::size_t i = 0; i < f.route.channels.size(); ++i) {
    Channel& ch = channels_[f.route.channels[i]];
    f.pos[i] = static_cast<std::uint32_t>(ch.flows.size());
    ch.flows.push_back(slot);
    ch.rates.push_back(kUnsolved);
  }
}

void FlowNetwork::detach(std::uint32_t slot) {
  // Loads are not touched here: the recomputation that follows sets them.
  Flow& f = flows_[slot];
  for (std::size_t i = 0; i < f.route.channels.size(); ++i) {
    const ChannelId c = f.route.channels[i];
    Channel& ch = channels_[c];
    const auto last_index = static_cast<std::uint32_t>(ch.flows.size() - 1);
    const std::uint32_t p = f.pos[i];
    if (p != last_index) {
      const std::uint32_t moved = ch.flows[last_index];
      ch.flows[p] = moved;
      ch.rates[p] = ch.rates[last_index];
      Flow& m = flows_[moved];
      for (std::size_t j = 0; j < m.route.channels.size(); ++j) {
        if (m.route.channels[j] == c && m.pos[j] == last_index) {
          m.pos[j] = p;
          break;
        }
      }
    }
    ch.flows.pop_back();
    ch.rates.pop_back();
  }
}

void FlowNetwork::depart(std::uint32_t slot) {
  FlowHot& h = hot_[slot];
  const double level = batch_depth_ > 0 ? 0.0 : departure_level(slot);
  detach(slot);
  h.rate = 0.0;
  if (batch_depth_ > 0) {
    mark_dirty(slot);
    ++batch_departures_;
    return;
  }
  resolve(h.channels, h.channel_count, level * kCutMargin, nullptr, 0, true);
}

void FlowNetwork::set_load(std::uint32_t channel, double load) {
  Channel& ch = channels_[channel];
  const Time now = sim_.now();
  if (now != ch.last_change) {
    ch.bytes += ch.load * (now - ch.last_change).to_seconds() / 8.0;
    ch.last_change = now;
  }
  ch.load = load;
}

void FlowNetwork::advance(std::uint32_t slot) {
  Flow& f = flows_[slot];
  const Time now = sim_.now();
  if (now == f.last_update) return;
  const double rate = hot_[slot].rate;
  if (std::isinf(rate)) {
    f.remaining = 0.0;
  } else {
    f.remaining = std::max(0.0, f.remaining - rate * (now - f.last_update).to_seconds() / 8.0);
  }
  f.last_update = now;
}

void FlowNetwork::schedule_completion(std::uint32_t slot) {
  const Flow& f = flows_[slot];
  const double rate = hot_[slot].rate;
  // Kept in completions_ (queued once it is the earliest); the arithmetic is that of the event
  // per flow this replaced, so the finish time is the same to the nanosecond.
  if (!(rate > 0.0)) {  // stalled: cannot happen with positive capacities
    completions_.erase(slot);
    return;
  }
  const double secs = (f.remaining <= 0.0 || std::isinf(rate)) ? 0.0 : f.remaining * 8.0 / rate;
  if (secs > 9.0e9) {  // beyond ~285 years of simulated time: never finishes
    completions_.erase(slot);
    return;
  }
  completions_.set(slot, sim_.now() + ceil_seconds(secs));
}

void FlowNetwork::complete(std::uint32_t slot) {
  {
    Flow& f = flows_[slot];
    if (f.state != State::kActive) return;
    if (batch_depth_ > 0) check_batch_time();
    f.remaining = 0.0;
    f.last_update = sim_.now();
    ++stats_.flows_finished;
    --active_count_;
    f.state = State::kDelivering;
    if (!f.route.channels.empty()) depart(slot);
  }
  // Deliveries are events of their own (even with zero latency) so that callbacks never run
  // inside the network's bookkeeping and always in receiver order.
  Flow& f = flows_[slot];
  const std::uint64_t serial = f.serial;
  f.pending_deliveries = f.delivery_latency.size();
  f.deliveries.clear();
  for (std::size_t i = 0; i < f.delivery_latency.size(); ++i) {
    f.deliveries.push_back(sim_.schedule_in(f.delivery_latency[i], [this, slot, serial, i] {
      if (slot < flows_.size() && flows_[slot].serial == serial) deliver(slot, i);
    }));
  }
}

void FlowNetwork::deliver(std::uint32_t slot, std::size_t receiver) {
  Flow& f = flows_[slot];
  if (f.state != State::kDelivering) return;
  std::function<void(std::size_t)> cb;
  if (--f.pending_deliveries == 0) {
    cb = std::move(f.on_delivered);
    release(slot);
  } else {
    cb = f.on_delivered;  // a copy: the callback may start flows and reallocate flows_
  }
  if (cb) cb(receiver);
}

void FlowNetwork::release(std::uint32_t slot) {
  Flow& f = flows_[slot];
  completions_.erase(slot);
  f.state = State::kFree;
  f.serial = 0;
  f.route.channels.clear();
  f.route.nodes.clear();
  f.pos.clear();
  f.delivery_latency.clear();
  f.on_delivered = nullptr;
  f.deliveries.clear();
  f.pending_deliveries = 0;
  hot_[slot] = FlowHot{};
  free_slots_.push_back(slot);
}

double FlowNetwork::arrival_level(const ChannelId* channels, std::size_t count) {
  double level = kInf;
  for (std::size_t i = 0; i < count; ++i) {
    const ChannelId c = channels[i];
    if (std::find(channels, channels + i, c) != channels + i) continue;  // seen (chains)
    // Water-filling on one channel with every flow at its final rate: the others at their
    // rates, each new flow (marked kUnsolved, one entry per crossing) at its cap. The channel
    // saturates at the level x that solves sum_g min(r_g, x) + sum_new min(x, cap) = capacity,
    // or never if everything fits. With several new flows (a batch of starts) the first level
    // at which the new filling differs from the old is still the lowest such x over the
    // changed channels: below it every channel's usage is what it was. The capacity is taken a
    // little low so that rounding can only make the level lower (safe).
    const Channel& ch = channels_[c];
    level_scratch_.clear();
    double rising = 0.0;  // crossings that never stop rising here (uncapped new flows)
    for (std::size_t k = 0; k < ch.flows.size(); ++k) {
      const double r = ch.rates[k];
      if (r != kUnsolved) {
        level_scratch_.push_back(r);
      } else if (const double cap = hot_[ch.flows[k]].cap; std::isfinite(cap)) {
        level_scratch_.push_back(cap);
      } else {
        rising += 1.0;
      }
    }
    std::sort(level_scratch_.begin(), level_scratch_.end());
    double weight = rising + static_cast<double>(level_scratch_.size());
    double remaining = ch.capacity * kCutMargin;
    for (const double r : level_scratch_) {
      if (r * weight > remaining) break;  // r is above the level: still rising there
      remaining -= r;
      weight -= 1.0;
    }
    if (weight > 0.0) level = std::min(level, std::max(0.0, remaining / weight));
  }
  return level;
}

double FlowNetwork::departure_level(std::uint32_t slot) const {
  const FlowHot& f = hot_[slot];
  double level = kInf;
  for (std::uint32_t i = 0; i < f.channel_count; ++i) {
    const ChannelId c = f.channels[i];
    if (std::find(f.channels, f.channels + i, c) != f.channels + i) continue;  // seen (chains)
    const Channel& ch = channels_[c];
    // A channel counts as saturated a little early (safe: only lowers the level). It saturated
    // at the highest rate on it: the rate of the flows it froze.
    if (ch.load < ch.capacity * kCutMargin) continue;
    double highest = 0.0;
    for (const double r : ch.rates) {
      if (r != kUnsolved) highest = std::max(highest, r);
    }
    level = std::min(level, highest);
  }
  return level;
}

void FlowNetwork::resolve(const ChannelId* seeds, std::size_t seed_count, double threshold,
                          const std::uint32_t* added, std::size_t added_count, bool prune) {
  ++stats_.recomputations;
  ++resolve_id_;
  for (;;) {
    ++epoch_;
    set_.clear();
    expanded_ = 0;
    locals_.clear();
    members_.clear();
    boundary_.clear();
    // New flows join whatever their channels' state (their kUnsolved entries are above any
    // threshold, so the search also takes them in from every channel it visits).
    for (std::size_t i = 0; i < added_count; ++i) {
      if (hot_[added[i]].mark == epoch_) continue;
      hot_[added[i]].mark = epoch_;
      set_.push_back(added[i]);
    }
    for (std::size_t i = 0; i < seed_count; ++i)
      visit(seeds[i], threshold, prune);
    // Breadth-first over flows <-> channels: every channel a re-solved flow crosses is visited;
    // unsaturated ones only as a boundary (not expanded), after the set is complete.
    while (expanded_ < set_.size()) {
      const FlowHot& g = hot_[set_[expanded_++]];
      for (std::uint32_t k = 0; k < g.channel_count; ++k)
        visit(g.channels[k], threshold, prune);
    }
    for (const ChannelId c : boundary_)
      visit_boundary(c, threshold);
    stats_.flows_solved += set_.size();
    stats_.channels_solved += locals_.size();
    fill();
    if (!prune || boundary_holds(prune)) break;
    ++stats_.extra_rounds;
  }
  commit();
  completions_.arm();
}

bool FlowNetwork::boundary_holds(bool& prune) {
  // The pruned solve is the max-min allocation if (i) every boundary channel is still
  // unsaturated (nobody is stopped there, so the flows behind it need no change), and (ii) every
  // channel that stopped flows stopped them no lower than the rates held outside on it.
  // docs/network.md "Rate allocation" gives the argument. A boundary channel failing (i) is
  // expanded next time; a failure of (ii) turns pruning off (the unpruned solve is exact on its
  // own).
  bool holds = true;
  for (const Local& l : locals_) {
    if (l.boundary) {
      double load = l.outside;
      for (std::uint32_t i = l.members_begin; i < l.members_end; ++i)
        load += hot_[members_[i]].new_rate;
      if (load >= channels_[l.channel].capacity * kCutMargin) {
        channels_[l.channel].forced = resolve_id_;
        holds = false;
      }
    } else if (l.level >= 0.0 && l.level < l.outside_max * kCutMargin) {
      prune = false;
      holds = false;
    }
  }
  return holds;
}

void FlowNetwork::visit(ChannelId c, double threshold, bool prune) {
  Channel& ch = channels_[c];
  if (ch.mark == epoch_) return;
  if (prune && ch.forced != resolve_id_ && ch.load < ch.capacity * kCutMargin) {
    // Unsaturated: defer; it joins as a boundary once the set is complete.
    if (ch.deferred != epoch_) {
      ch.deferred = epoch_;
      boundary_.push_back(c);
    }
    return;
  }
  ch.mark = epoch_;
  ch.local = static_cast<std::uint32_t>(locals_.size());
  const auto begin = static_cast<std::uint32_t>(members_.size());
  // Flows below the threshold are held at their rates (their sum is the load left outside);
  // the others join the set, so a channel's members are exactly its re-solved crossings.
  // Rates are read from the channel's own array, so flows left out cost no access to hot_.
  double outside = 0.0;
  double outside_max = 0.0;
  double caps = 0.0;
  for (std::size_t k = 0; k < ch.flows.size(); ++k) {
    const double r = ch.rates[k];
    const std::uint32_t g = ch.flows[k];
    if (!(r >= threshold)) {
      outside += r;
      outside_max = std::max(outside_max, r);
      continue;
    }
    FlowHot& h = hot_[g];
    if (h.mark != epoch_) {
      h.mark = epoch_;
      set_.push_back(g);
    }
    members_.push_back(g);
    caps += h.cap;
  }
  const auto end = static_cast<std::uint32_t>(members_.size());
  locals_.push_back(Local{c, outside, outside_max, std::max(0.0, ch.capacity - outside), caps, -1.0,
                          end - begin, begin, end, false});
}

void FlowNetwork::visit_boundary(ChannelId c, double threshold) {
  Channel& ch = channels_[c];
  if (ch.mark == epoch_) return;  // expanded after all
  ch.mark = epoch_;
  ch.local = static_cast<std::uint32_t>(locals_.size());
  const auto begin = static_cast<std::uint32_t>(members_.size());
  double outside = 0.0;
  double caps = 0.0;
  for (std::size_t k = 0; k < ch.flows.size(); ++k) {
    const std::uint32_t g = ch.flows[k];
    const double r = ch.rates[k];
    // Only new flows (kUnsolved) and flows at or above the threshold can be in the set.
    if (!(r >= threshold) || hot_[g].mark != epoch_) {
      outside += r;
      continue;
    }
    members_.push_back(g);
    caps += hot_[g].cap;
  }
  const auto end = static_cast<std::uint32_t>(members_.size());
  locals_.push_back(Local{c, outside, 0.0, std::max(0.0, ch.capacity - outside), caps, -1.0,
                          end - begin, begin, end, true});
}

void FlowNetwork::fill() {
  double min_cap = kInf;
  for (const std::uint32_t g : set_) {
    FlowHot& h = hot_[g];
    h.frozen = false;
    h.new_rate = 0.0;
    min_cap = std::min(min_cap, h.cap);
  }
  // Channel fair shares only grow as flows freeze (a flow freezes at the current level, which is
  // at most every share), so a heap key is a lower bound of its channel's share: on reaching the
  // top it is checked and, if stale, pushed again with the current share. A channel whose
  // members' caps all fit in its capacity can never be what stops a flow, so it stays out.
  auto later = [](const HeapEntry& a, const HeapEntry& b) {
    return a.share > b.share || (a.share == b.share && a.local > b.local);
  };
  share_heap_.clear();
  for (std::uint32_t i = 0; i < locals_.size(); ++i) {
    const Local& l = locals_[i];
    if (l.weight == 0 || l.caps <= l.remaining) continue;
    share_heap_.push_back(HeapEntry{l.remaining / l.weight, i});
  }
  std::make_heap(share_heap_.begin(), share_heap_.end(), later);
  // Caps matter only once the level reaches the smallest cap in the set; the cap heap (cap,
  // slot) is built then, from the flows still unfrozen (often few by that time).
  cap_heap_.clear();
  bool caps_built = false;

  std::size_t unfrozen = set_.size();
  auto freeze = [&](std::uint32_t g, double rate) {
    FlowHot& h = hot_[g];
    h.frozen = true;
    h.new_rate = rate;
    --unfrozen;
    for (std::uint32_t k = 0; k < h.channel_count; ++k) {
      Local& l = locals_[channels_[h.channels[k]].local];
      l.remaining -= rate;
      --l.weight;
    }
  };

  while (unfrozen > 0) {
    double link_share = kInf;
    std::uint32_t li = kNone;
    while (!share_heap_.empty()) {
      const HeapEntry top = share_heap_.front();
      const Local& l = locals_[top.local];
      std::pop_heap(share_heap_.begin(), share_heap_.end(), later);
      share_heap_.pop_back();
      if (l.weight == 0) continue;
      const double share = l.remaining / l.weight;
      if (share > top.share) {  // stale key: requeue with the current share
        share_heap_.push_back(HeapEntry{share, top.local});
        std::push_heap(share_heap_.begin(), share_heap_.end(), later);
        continue;
      }
      link_share = share;
      li = top.local;
      break;
    }
    if (!caps_built && min_cap <= link_share) {
      caps_built = true;
      for (const std::uint32_t g : set_) {
        if (!hot_[g].frozen && std::isfinite(hot_[g].cap))
          cap_heap_.push_back(HeapEntry{hot_[g].cap, g});
      }
      std::make_heap(cap_heap_.begin(), cap_heap_.end(), later);
    }
    while (!cap_heap_.empty() && hot_[cap_heap_.front().local].frozen) {
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
    }
    const double cap = cap_heap_.empty() ? kInf : cap_heap_.front().share;
    if (li == kNone && std::isinf(cap)) break;  // cannot happen: unfrozen flows cross channels
    if (cap <= link_share) {
      if (li != kNone) {  // not saturated yet: back into the heap
        share_heap_.push_back(HeapEntry{link_share, li});
        std::push_heap(share_heap_.begin(), share_heap_.end(), later);
      }
      const std::uint32_t g = cap_heap_.front().local;
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
      freeze(g, cap);
      continue;
    }
    const double level = std::max(0.0, link_share);
    Local& l = locals_[li];
    l.level = level;
    for (std::uint32_t i = l.members_begin; i < l.members_end; ++i) {
      const std::uint32_t g = members_[i];
      if (!hot_[g].frozen) freeze(g, level);
    }
  }
}

void FlowNetwork::commit() {
  // Only flows whose rate changed get new progress and a new finish time.
  for (const std::uint32_t g : set_) {
    FlowHot& h = hot_[g];
    const double old_rate = h.rate;
    const double new_rate = h.new_rate;
    if (old_rate > 0.0 &&
        std::fabs(new_rate - old_rate) <= kSameRate * std::max(new_rate, old_rate)) {
      continue;
    }
    advance(g);
    h.rate = new_rate;
    const Flow& f = flows_[g];
    for (std::uint32_t k = 0; k < h.channel_count; ++k)
      channels_[h.channels[k]].rates[f.pos[k]] = new_rate;
    ++stats_.rate_changes;
    schedule_completion(g);
  }
  // Loads are rebuilt from the held load plus the committed rates, so rounding never
  // accumulates over a long run, and an empty channel carries exactly nothing.
  for (const Local& l : locals_) {
    double load = l.outside;
    for (std::uint32_t i = l.members_begin; i < l.members_end; ++i)
      load += hot_[members_[i]].rate;
    if (channels_[l.channel].flows.empty()) load = 0.0;
    if (load != channels_[l.channel].load) set_load(l.channel, load);
  }
}

}  // namespace sim::net
