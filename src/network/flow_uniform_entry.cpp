// Ways into the uniform mode (docs/network.md "Uniform channels"; the record and what it does
// once open are in flow_uniform.cpp): a burst of new flows alone on a channel that is not idle
// taken as one record without the per-flow solve (try_uniform_fresh), and a per-flow commit that
// re-rated all of a channel's flows, and only them, to one rate kept as one (try_enter_uniform),
// both opening a free record (open_uniform). Kept apart from flow_uniform.cpp so that each file
// holds one concept: how a channel gets into the mode here, what the mode does there.
#include <algorithm>
#include <bit>
#include <cmath>

#include "flow_constants.hpp"
#include "flow_uniform_rules.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kInf;
using flow::kNone;
using flow::one_bit;
using flow::share_applies;

std::uint32_t FlowNetwork::open_uniform(ChannelId c, double rate, const CapRange& range) {
  std::uint32_t index = 0;
  while (index < uniform_.size() && uniform_[index].active)
    ++index;
  if (index == uniform_.size()) uniform_.emplace_back();
  Uniform& u = uniform_[index];
  u.channel = c;
  u.active = true;
  u.rate = rate;
  u.since = sim_.now();
  u.remaining.clear();
  u.caps.clear();
  u.range = range;
  return index;
}

bool FlowNetwork::try_uniform_fresh(const std::uint32_t* added, std::size_t count) {
  // Every new flow: pending, with one channel that is not idle, the same for all and crossed
  // once, which no other flow crosses (the new flows in ch.flows are in `added`'s order).
  if (!uniform_enabled_ || !leave_out_idle_ || count == 0) return false;
  ChannelId c = kNone;
  for (std::size_t j = 0; j < count; ++j) {
    const FlowHot& h = hot_[added[j]];
    if (!h.pending || h.channel_count > kLiveBits || !one_bit(h.live)) return false;
    const auto i = static_cast<std::uint32_t>(std::countr_zero(h.live));
    if (c != kNone && h.channels[i] != c) return false;
    c = h.channels[i];
    if (pos_of(added[j])[i] != j) return false;
  }
  const Channel& ch = channels_[c];
  const ChannelMark& cm = channel_marks_[c];
  if (ch.flows.size() != count || cm.idle || cm.uniform != kNone ||
      !(ch.load < ch.capacity * kCutMargin) || !sim_.queue().sequences_left(count)) {
    return false;
  }
  // The per-flow solve (resolve, pruned): the first pass defers the channel (unsaturated: its
  // load counts no new flow), takes it as a boundary Local of all the new flows (scanned: attach
  // set its drift; every flow a member, so dense), fills it to the share capacity / count when
  // the conditions below hold (fill_single's, as for try_uniform_start, with nothing held), which
  // saturates it: the boundary fails (an extra round) and the channel is forced. The second pass
  // expands it: one Local, every flow a member at its highest rate (none held), the same share;
  // the level holds. Each pass solves the `count` flows and one channel. The commit re-rates
  // every flow (their old rate is 0), takes `count` numbers in `added`'s order, which is
  // ch.flows order (rotation 0), and try_enter_uniform then keeps them as one.
  CapRange range;
  for (std::size_t j = 0; j < count; ++j)
    range.add(hot_[added[j]].cap);
  const auto sum_caps = [&] {
    double sum = 0.0;
    for (std::size_t j = 0; j < count; ++j)
      sum += hot_[added[j]].cap;
    return sum;
  };
  // (Below a million flows the share times count sums to the capacity within far less than
  // kCutMargin's 1e-9: the boundary fails.)
  double share = 0.0;
  if (count >= 1000000 ||
      !share_applies(ch.capacity, count, range.min_cap, range.max_cap, sum_caps, 0.0, share) ||
      !(share > 0.0)) {
    return false;
  }
  // try_enter_uniform wants a number taken by every flow: each must get a finish time (finish
  // times are monotone in the bytes left, so the most bytes decide).
  double most = 0.0;
  for (std::size_t j = 0; j < count; ++j)
    most = std::max(most, flows_[added[j]].remaining);
  if (Time t; !finish_time(most, share, sim_.now(), t)) return false;
  ++stats_.recomputations;
  ++resolve_id_;
  ++epoch_;
  ++stats_.extra_rounds;
  stats_.flows_solved += 2 * count;
  stats_.channels_solved += 2;
  stats_.rate_changes += count;
  channel_marks_[c].dense = true;
  const std::uint32_t index = open_uniform(c, share, range);
  Uniform& u = uniform_[index];
  double least = kInf;
  for (std::size_t j = 0; j < count; ++j) {
    FlowHot& h = hot_[added[j]];
    h.pending = false;
    h.rate = share;
    const double r = flows_[added[j]].remaining;
    u.remaining.push_back(r);
    u.caps.push_back(h.cap);
    least = std::min(least, r);
  }
  u.sequence = sim_.queue().take_sequences(count);
  u.block = count;
  u.rotation = 0;
  u.winner = kNone;
  channel_marks_[c].uniform = index;
  ++uniform_count_;
  crown_uniform(u, least);
  settle_idle();
  completions_.arm();
  return true;
}

void FlowNetwork::try_enter_uniform() {
  // After a per-flow commit: the solve had one Local, saturated, whose members were exactly the
  // flows on it and the whole set, each crossing it once and no other channel that is not idle,
  // all re-rated to one finite rate, each given a finish time (m numbers taken: one each, with
  // no renumbering) in ch.flows order rotated (new flows first).
  if (!uniform_enabled_ || !leave_out_idle_ || locals_.size() != 1) return;
  const Local& l = locals_[0];
  const ChannelId c = l.channel;
  const Channel& ch = channels_[c];
  const std::size_t m = ch.flows.size();
  if (l.boundary || l.level < 0.0 || channel_marks_[c].idle || channel_marks_[c].uniform != kNone ||
      m == 0 || set_.size() != m || l.members_end - l.members_begin != m || renumbered_ ||
      sim_.queue().next_sequence() - commit_first_sequence_ != m) {
    return;
  }
  const double rate = hot_[set_[0]].rate;
  if (!(rate > 0.0) || std::isinf(rate)) return;
  std::uint32_t p0 = kNone;
  for (const std::uint32_t g : set_) {
    const FlowHot& h = hot_[g];
    if (h.rate != rate || !h.changed || h.channel_count > kLiveBits || !one_bit(h.live) ||
        h.channels[std::countr_zero(h.live)] != c) {
      return;
    }
    if (p0 == kNone) p0 = pos_of(g)[std::countr_zero(h.live)];
  }
  const std::size_t rotation = (m - p0) % m;
  for (std::size_t k = 0; k < m; ++k) {
    if (set_[(k + rotation) % m] != ch.flows[k]) return;
  }
  const std::uint32_t index = open_uniform(c, rate, CapRange{});
  Uniform& u = uniform_[index];
  for (const std::uint32_t g : ch.flows) {
    u.remaining.push_back(flows_[g].remaining);
    u.caps.push_back(hot_[g].cap);
    u.range.add(hot_[g].cap);
  }
  u.sequence = commit_first_sequence_;
  u.block = m;
  u.rotation = static_cast<std::uint32_t>(rotation);
  u.winner = kNone;
  channel_marks_[c].uniform = index;
  ++uniform_count_;
  crown_uniform(u, least_remaining(u));
  for (const std::uint32_t g : ch.flows) {  // only the earliest member keeps its entry
    if (g != u.winner) completions_.erase(g);
  }
}

}  // namespace sim::net
