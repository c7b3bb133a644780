// FlowNetwork's per-flow bookkeeping: joining and leaving the channels' flow lists, progress
// (bytes still to send), finish times in the CompletionHeap, completion and the deliveries
// that follow it, and freeing a flow's slot. The rates themselves come from flow_solver.cpp.
#include <algorithm>
#include <cmath>

#include "flow_constants.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kUnsolved;

void FlowNetwork::attach(std::uint32_t slot) {
  // One pass over the flow's channels joins their flow lists, adds its rate bound to their
  // potentials, inside a batch marks them dirty, wakes those that may bind again (flow_slack.cpp,
  // "Flips") and sets the flow's live bits. Waking channel k before the later channels are
  // joined, rather than after all of them, leaves the same state: a wake changes only its own
  // channel's mark, rates[] and load, the live bits of that channel's crossings (which this pass
  // sets too), and, through exit_uniform, the rates[] entries and load of uniform channels'
  // members, which a join neither reads nor moves (it appends); a channel crossed twice that the
  // first crossing's bound alone does not wake is woken at the second, its rates[] rebuilt from
  // its flow list either way.
  Flow& f = flows_[slot];
  FlowHot& h = hot_[slot];
  std::uint64_t units = 0;
  const bool bounded = rate_bound(h, units);
  f.bound_units = bounded ? units : kNoBound;  // for detach
  if (h.channel_count > kInlineChannels) f.pos.resize(h.channel_count);
  std::uint32_t* const pos = pos_of(slot);
  const bool batch = batch_depth_ > 0;
  h.pending = true;
  h.live = 0;
  for (std::uint32_t i = 0; i < h.channel_count; ++i) {
    const ChannelId c = h.channels[i];
    Channel& ch = channels_[c];
    ChannelMark& cm = channel_marks_[c];
    pos[i] = static_cast<std::uint32_t>(ch.flows.size());
    ch.flows.push_back(slot);
    // An idle channel keeps no rates[] (wake rebuilds them): cloud, 4 of a flow's 5 channels.
    if (!cm.idle) ch.rates.push_back(kUnsolved);
    ch.sent += f.remaining;  // all of it, less what is left when it leaves (channel_bytes)
    if (bounded) {
      ch.potential += units;
    } else {
      ++ch.unbounded;
    }
    cm.drift = flow::kExactSum;  // re-sum the held load
    if (batch && !ch.dirty) {
      ch.dirty = true;
      dirty_.push_back(c);
    }
    if (cm.idle && !never_binds(ch)) wake(c);
    if (i < kLiveBits && !cm.idle) h.live |= static_cast<std::uint8_t>(1U << i);
  }
}

void FlowNetwork::detach(std::uint32_t slot) {
  // Loads are not touched here: the recomputation that follows sets them. One pass over the
  // flow's channels leaves their flow lists, takes its rate bound back from their potentials and,
  // inside a batch, marks them dirty.
  Flow& f = flows_[slot];
  const FlowHot& h = hot_[slot];
  const std::uint64_t units = f.bound_units;  // attach's rate_bound
  const bool bounded = units != kNoBound;
  const std::uint32_t* const pos = pos_of(slot);
  const bool batch = batch_depth_ > 0;
  for (std::uint32_t i = 0; i < h.channel_count; ++i) {
    const ChannelId c = h.channels[i];
    Channel& ch = channels_[c];
    ChannelMark& cm = channel_marks_[c];
    const bool keeps_rates = !cm.idle;  // an idle channel keeps no rates[] (attach)
    const auto last_index = static_cast<std::uint32_t>(ch.flows.size() - 1);
    const std::uint32_t p = pos[i];
    if (p != last_index) {
      const std::uint32_t moved = ch.flows[last_index];
      ch.flows[p] = moved;
      if (keeps_rates) ch.rates[p] = ch.rates[last_index];
      // The moved flow's channels from its FlowHot line (inline for short routes) rather than
      // from its route's own buffer.
      const FlowHot& mh = hot_[moved];
      std::uint32_t* const mpos = pos_of(moved);
      for (std::uint32_t j = 0; j < mh.channel_count; ++j) {
        if (mh.channels[j] == c && mpos[j] == last_index) {
          mpos[j] = p;
          break;
        }
      }
    }
    ch.flows.pop_back();
    if (keeps_rates) ch.rates.pop_back();
    ch.sent -= f.remaining;  // as of now: complete() set it to 0, cancel() advanced it
    if (bounded) {
      ch.potential -= units;
    } else {
      --ch.unbounded;
    }
    cm.drift = flow::kExactSum;  // re-sum the held load
    if (batch && !ch.dirty) {
      ch.dirty = true;
      dirty_.push_back(c);
    }
    // May turn idle once re-solved (a channel crossed twice is pushed at its last crossing, once
    // its potential is final; settle_idle takes each channel once either way).
    if (leave_out_idle_ && !cm.idle && never_binds(ch)) settling_.push_back(c);
  }
}

void FlowNetwork::depart(std::uint32_t slot) {
  FlowHot& h = hot_[slot];
  if (uniform_count_ > 0) {  // (tested here: most changes on most mixes have none)
    if (try_uniform_depart(slot)) return;
    exit_uniform_on(h.channels, h.channel_count, slot);
  }
  const double level = batch_depth_ > 0 ? 0.0 : departure_level(slot);
  detach(slot);
  h.rate = 0.0;
  if (batch_depth_ > 0) {  // detach marked its channels dirty
    ++batch_departures_;
    return;
  }
  resolve(h.channels, h.channel_count, level * kCutMargin, nullptr, 0, true);
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
  // Kept in completions_ (queued once it is the earliest).
  Time t;
  if (!finish_time(flows_[slot].remaining, hot_[slot].rate, sim_.now(), t)) {
    completions_.erase(slot);
    return;
  }
  completions_.set(slot, t);
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
  std::function<void()> done;  // a unicast flow's (one receiver: its only delivery)
  if (--f.pending_deliveries == 0) {
    cb = std::move(f.on_delivered);
    done = std::move(f.on_done);
    release(slot);
  } else {
    cb = f.on_delivered;  // a copy: the callback may start flows and reallocate flows_
  }
  if (cb) cb(receiver);
  if (done) done();
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
  f.on_done = nullptr;
  f.deliveries.clear();
  f.pending_deliveries = 0;
  hot_[slot] = FlowHot{};
  free_slots_.push_back(slot);
}

}  // namespace sim::net
