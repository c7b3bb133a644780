// FlowNetwork's public façade: starting flows (unicast and chains), cancelling them, batches
// of simultaneous changes, and the read-only observations. The max-min solver is in
// flow_solver.cpp (its header comment gives the algorithm), the per-flow bookkeeping (links
// joined and left, progress, finish times, deliveries) in flow_lifecycle.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "flow_constants.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kInf;
using flow::kNone;

namespace {
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
  channel_marks_.resize(topology.channel_count());
  for (ChannelId c = 0; c < channels_.size(); ++c) {
    channels_[c].capacity = topology.channel_capacity_bps(c);
    set_idle_limit(channels_[c]);
    channel_marks_[c].idle = never_binds(channels_[c]);
  }
  uniform_blocks_.net = this;
  sim_.queue().add_holder(&uniform_blocks_);
}

FlowNetwork::~FlowNetwork() {
  sim_.queue().remove_holder(&uniform_blocks_);
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
  // Routed into a buffer kept across flows, whose storage launch() swaps with the slot's own
  // (reused) buffers: no copy, and no allocation per flow once the slots exist.
  Route& route = route_scratch_;
  routes_.route_into(route, src, dst, options.route_key.value_or(next_serial_), options.via);
  double cap = options.rate_cap_bps.value_or(kInf);
  if (!(cap > 0.0)) throw std::invalid_argument("flow: the rate cap must be > 0");
  for (const NodeId n : {src, dst}) {
    if (const auto& c = topology_.node(n).flow_cap_bps) cap = std::min(cap, *c);
  }
  const Time latency = route.latency;
  return launch(route, &latency, 1, bytes, cap, nullptr, std::move(on_done));
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
  return launch(route, latency.data(), latency.size(), bytes, cap, std::move(on_delivered));
}

FlowHandle FlowNetwork::launch(Route& route, const Time* delivery_latency, std::size_t receivers,
                               double bytes, double cap,
                               std::function<void(std::size_t)> on_delivered,
                               std::function<void()> on_done) {
  if (batch_depth_ > 0) check_batch_time();
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    const FlowHot* const old_hot = hot_.data();
    hot_.emplace_back();
    pos_.emplace_back();
    if (hot_.data() != old_hot) {
      // Moved: inline routes must point into their new place.
      for (FlowHot& other : hot_) {
        if (other.channels != nullptr && other.channel_count <= kInlineChannels)
          other.channels = other.inline_channels.data();
      }
    }
  }
  Flow& f = flows_[slot];
  f.serial = next_serial_++;
  f.state = State::kActive;
  // Swapped with the slot's buffers, which release() cleared but kept: the caller's route gets
  // them back (start()'s scratch is cleared and refilled by the next flow), so nothing is copied
  // and, once the slots exist, nothing allocated.
  f.route.channels.swap(route.channels);
  f.route.nodes.swap(route.nodes);
  f.route.latency = route.latency;
  f.delivery_latency.assign(delivery_latency, delivery_latency + receivers);
  f.remaining = bytes;
  f.last_update = sim_.now();
  f.on_delivered = std::move(on_delivered);
  f.on_done = std::move(on_done);
  f.deliveries.clear();
  f.pending_deliveries = 0;
  FlowHot& h = hot_[slot];
  h = FlowHot{};
  h.cap = cap;
  h.channel_count = static_cast<std::uint32_t>(f.route.channels.size());
  if (h.channel_count <= kInlineChannels) {
    std::copy(f.route.channels.begin(), f.route.channels.end(), h.inline_channels.begin());
    h.channels = h.inline_channels.data();
  } else {
    h.channels = f.route.channels.data();
  }
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
  if (batch_depth_ > 0) {  // attach marked its channels dirty
    batch_added_.push_back(slot);
    return handle;
  }
  if (uniform_count_ > 0) {
    if (try_uniform_start(&slot, 1)) return handle;
    exit_uniform_on(h.channels, h.channel_count, kNone);
  }
  if (try_uniform_fresh(&slot, 1)) return handle;
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
  return (f != nullptr && f->state == State::kActive) ? committed_rate(h.slot) : 0.0;
}

double FlowNetwork::remaining_bytes(FlowHandle h) const {
  const Flow* f = lookup(h);
  if (f == nullptr || f->state != State::kActive) return 0.0;
  return remaining_now(h.slot);
}

double FlowNetwork::remaining_now(std::uint32_t slot) const {
  const Flow& f = flows_[slot];
  double rate = hot_[slot].rate;
  double remaining = f.remaining;
  Time since = f.last_update;
  std::uint32_t k = 0;
  if (const std::uint32_t u = uniform_member(slot, k); u != kNone) {  // kept on its channel
    rate = uniform_[u].rate;
    remaining = uniform_[u].remaining[k];
    since = uniform_[u].since;
  }
  if (std::isinf(rate)) return 0.0;
  const double moved = rate * (sim_.now() - since).to_seconds() / 8.0;
  return std::max(0.0, remaining - moved);
}

const Route& FlowNetwork::route(FlowHandle h) const {
  const Flow* f = lookup(h);
  if (f == nullptr) throw std::invalid_argument("flow: stale or invalid handle");
  return f->route;
}

double FlowNetwork::channel_load_bps(ChannelId c) const {
  // Summed from the flows: the solver keeps no load for a channel that cannot saturate
  // (flow_slack.cpp). A flow not yet solved (open batch) has rate 0.
  double load = 0.0;
  for (const std::uint32_t g : channels_.at(c).flows)
    load += committed_rate(g);
  return load;
}

double FlowNetwork::channel_bytes(ChannelId c) const {
  // The bytes the flows that crossed it have sent: every crossing's bytes at start (Channel::
  // sent, less what was left of the flows that left) less what its flows still have to send.
  const Channel& ch = channels_.at(c);
  double left = 0.0;
  for (const std::uint32_t g : ch.flows)
    left += remaining_now(g);
  return ch.sent - left;
}

std::vector<FlowNetwork::FlowView> FlowNetwork::flows() const {
  std::vector<FlowView> out;
  for (std::uint32_t s = 0; s < flows_.size(); ++s) {
    const Flow& f = flows_[s];
    if (f.state != State::kActive || f.route.channels.empty()) continue;
    out.push_back(
        FlowView{FlowHandle{s, f.serial}, &f.route.channels, committed_rate(s), hot_[s].cap});
  }
  return out;
}

bool FlowNetwork::cancel(FlowHandle h) {
  if (lookup(h) == nullptr) return false;
  Flow& f = flows_[h.slot];
  if (f.state == State::kActive) {
    if (batch_depth_ > 0) check_batch_time();
    ++stats_.flows_cancelled;
    materialize_member(h.slot);
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
      if (uniform_count_ == 0 || !try_uniform_start(batch_added_.data(), batch_added_.size())) {
        if (uniform_count_ > 0) exit_uniform_on(dirty_.data(), dirty_.size(), kNone);
        if (!try_uniform_fresh(batch_added_.data(), batch_added_.size())) {
          const double level = arrival_level(dirty_.data(), dirty_.size());
          resolve(dirty_.data(), dirty_.size(), level * kCutMargin, batch_added_.data(),
                  batch_added_.size(), true);
        }
      }
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

}  // namespace sim::net
