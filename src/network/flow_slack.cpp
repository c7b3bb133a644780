// Channels that can never saturate are left out of the max-min solve (docs/network.md "Rate
// allocation", "Channels that cannot bind").
//
// A flow's rate is at most its bound b_f = min(cap_f, the capacity of every channel it
// crosses): progressive filling freezes it at its cap or at a level no higher than the fair share
// left on each of its channels, which is at most that channel's capacity (up to rounding, n 2^-53
// relative). A channel's potential P_c is the sum of b_f over its crossings (a chain crossing it
// twice counts twice), each rounded up to a whole bit/s and summed in integers, so that it is
// exact under any order of joins and leaves and never below the real sum. While
// P_c <= capacity * kCutMargin * (1 - kFitSlack) (and the capacity is positive) the channel is
// idle, and then, with a slack far above any rounding:
//
// (a) It stops no flow in any progressive filling that has it as a Local: were it to saturate at
//     level x, each of its unfrozen flows g has x <= cap_g and x <= the share of each of g's
//     channels <= their capacities, so x <= b_g; its frozen and held flows have rates <= b; so
//     its load would be at most P_c, below its capacity.
// (b) Its load (summed or updated, stale after a departure until re-solved) stays below
//     capacity * kCutMargin: a pruned search defers it as a boundary, boundary_holds never fails
//     on it (so it is never forced, and a pruned pass never expands it), departure_level skips
//     it.
// (c) arrival_level finds no level on it, or one above that of a channel that is not idle: if
//     its water-filling level x were at most every new flow's bound, every entry would count at
//     most b, and the sum would stay at most P_c < capacity; so x > b_g for a new flow g whose cap
//     exceeds b_g, i.e. b_g is the capacity of g's narrowest channel d. That channel is not idle
//     (g alone puts b_g = capacity(d) into P_d), is among the changed channels (a start's route,
//     or dirty_ in a batch), and gives a level of at most capacity(d) * kCutMargin < x.
//
// So an idle channel never sets a rate, and it is simply left out: no Local, no rates[] entry
// kept up to date, no load. Rates come only from the levels of channels that freeze flows, whose
// arithmetic depends on their own members and held loads (visit / rebuild_local, summed in
// ch.flows order) and on the order of their freezes. A pruned pass never expands an idle channel
// (b), so the set S and its order (hence the commit order and the CompletionHeap's tie order)
// are unchanged; an unpruned pass expands every channel it reaches, and visit_idle takes an idle
// channel's flows into S just as visit would, in the same order. The fill picks channels by
// (share, local index): leaving out Locals that never stop a flow keeps the others' relative
// order and the sequence of freezes, so every other Local's arithmetic is the same, bit for bit.
//
// Flips. A join raises the potential: a channel that may now bind is woken first (wake): its
// rates[] are rebuilt from the flows' committed rates (kUnsolved for flows not yet solved), in
// ch.flows order, which is kept up to date while idle for that reason, and its load is their sum.
// That load differs from the one the channel would have kept only by rounding and by flows that
// left (both far below capacity * kCutMargin), and until the recomputation that follows the join
// it is only tested against capacity * kCutMargin (visit): the same answer. attach sets drift to
// kExactSum, so the next boundary visit sums the held load flow by flow from rates[], and the
// channel is one of that recomputation's seeds, whose commit rebuilds its load as before. A
// leave lowers the potential, but the departed flow's rate stays in the load until the
// recomputation that follows re-solves the channel (a seed): only then is it put to sleep
// (settle_idle), so that visit never sees a load the solver would not have had.
#include <algorithm>
#include <cmath>

#include "flow_constants.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kExactSum;
using flow::kFitSlack;
using flow::kNone;
using flow::kUnsolved;

namespace {
// Bounds above 2^40 bit/s (1.1 Tbit/s) count as unbounded (and so do infinite ones): with fewer
// than 2^24 crossings of one channel the potential stays below 2^64.
constexpr double kMaxBound = 1099511627776.0;

// Sets `units` to the flow's rate bound in whole bit/s, rounded up; false when it has none below
// kMaxBound (or it is NaN). The bound takes every channel of the flow, the one it is counted on
// included: that matters only where that channel's capacity is below the flow's other limits,
// and then the flow alone brings the channel's potential to its capacity, so the channel does
// not qualify either way. (A template only so as to take FlowNetwork's private types.)
template <class Hot, class Channels>
bool rate_bound_of(const Hot& h, const Channels& channels, std::uint64_t& units) {
  double bound = h.cap;
  for (std::uint32_t k = 0; k < h.channel_count; ++k)
    bound = std::min(bound, channels[h.channels[k]].capacity);
  if (!(bound <= kMaxBound)) return false;  // also NaN
  // std::ceil of x in [0, 2^40] (without SSE4.1 a fix-up sequence in doubles, then the unsigned
  // conversion's test for 2^63) in integers: the truncation, exact, plus one if it fell short.
  const double x = std::max(0.0, bound);
  const auto whole = static_cast<std::int64_t>(x);
  units = static_cast<std::uint64_t>(whole) + (static_cast<double>(whole) < x ? 1 : 0);
  return true;
}
}  // namespace

bool FlowNetwork::never_binds(double capacity, std::uint64_t potential, std::uint32_t unbounded) {
  return unbounded == 0 && capacity > 0.0 &&
         static_cast<double>(potential) <= capacity * kCutMargin * (1.0 - kFitSlack);
}

void FlowNetwork::set_idle_limit(Channel& ch) {
  // never_binds compares the potential, converted to double, with the limit L below. Below 2^53
  // the conversion is exact, so for a potential p < 2^53: p <= L iff p <= floor(L); and one of
  // 2^53 or more converts to at least 2^53 > L. So with L < 2^53 the test is p < floor(L) + 1.
  const double limit = ch.capacity * kCutMargin * (1.0 - kFitSlack);
  ch.idle_below = 0;
  ch.idle_in_doubles = false;
  if (!(ch.capacity > 0.0)) return;  // never idle
  if (limit < 9007199254740992.0) {
    ch.idle_below = static_cast<std::uint64_t>(std::floor(limit)) + 1;
  } else {
    ch.idle_in_doubles = true;
  }
}

bool FlowNetwork::rate_bound(const FlowHot& h, std::uint64_t& units) const {
  return rate_bound_of(h, channels_, units);
}

void FlowNetwork::wake(ChannelId c) {
  ChannelMark& cm = channel_marks_[c];
  Channel& ch = channels_[c];
  // A member of a uniform channel that crosses c will cross two channels in the solve: the
  // uniform one leaves the mode first (flow_uniform.cpp), so that the rates read below are kept.
  if (uniform_count_ > 0) {
    for (const std::uint32_t g : ch.flows) {
      std::uint32_t k = 0;
      if (const std::uint32_t u = uniform_member(g, k); u != kNone) exit_uniform(u, kNone);
    }
  }
  ++stats_.channels_woken;
  cm.idle = false;
  set_live(c, true);
  cm.drift = kExactSum;
  cm.dense = false;
  ch.rates.resize(ch.flows.size());  // not kept while idle (attach, detach)
  double load = 0.0;
  for (std::size_t k = 0; k < ch.flows.size(); ++k) {
    const FlowHot& g = hot_[ch.flows[k]];
    ch.rates[k] = g.pending ? kUnsolved : g.rate;
    if (!g.pending) load += g.rate;
  }
  ch.load = load;
}

void FlowNetwork::settle_idle() {
  for (const ChannelId c : settling_) {
    if (!channel_marks_[c].idle && never_binds(channels_[c])) {
      channel_marks_[c].idle = true;
      set_live(c, false);
    }
  }
  settling_.clear();
}

void FlowNetwork::set_live(ChannelId c, bool live) {
  // Every crossing of c (a chain's two included; a flow joining now is set again by attach).
  for (const std::uint32_t g : channels_[c].flows) {
    FlowHot& h = hot_[g];
    if (h.channel_count > kLiveBits) continue;  // read from the marks (for_each_live)
    for (std::uint32_t k = 0; k < h.channel_count; ++k) {
      if (h.channels[k] != c) continue;
      const auto bit = static_cast<std::uint8_t>(1U << k);
      h.live = live ? h.live | bit : h.live & ~bit;
    }
  }
}

void FlowNetwork::keep_all_channels() {
  leave_out_idle_ = false;
  for (ChannelId c = 0; c < channels_.size(); ++c) {
    if (channel_marks_[c].idle) wake(c);
  }
  stats_.channels_woken = 0;
}

void FlowNetwork::visit_idle(ChannelId c, double threshold, bool prune) {
  // Marked visited so that the search passes over it; never stale (it has no Local). A pruned
  // pass would have deferred it as a boundary (not expanded); an unpruned one takes its flows at
  // or above the threshold as visit does (no local level without pruning), in the same order.
  ChannelMark& cm = channel_marks_[c];
  cm.mark = epoch_;
  cm.scan_start = kNone;
  if (prune) return;
  for (const std::uint32_t g : channels_[c].flows) {
    FlowHot& h = hot_[g];
    const double r = h.pending ? kUnsolved : h.rate;
    if (r >= threshold && h.mark != epoch_) {
      h.mark = epoch_;
      set_.push_back(g);
    }
  }
}

}  // namespace sim::net
