// Uniform channels: a saturated channel whose flows all cross no other channel that is not idle
// and share one rate keeps their rate, progress and finish times once (docs/network.md "Uniform
// channels"), with the same numbers, bit for bit, as re-rating them one by one.
//
// On the cloud mix every flow crosses the store's egress and every other channel it crosses is
// idle (flow_slack.cpp), so each start or finish re-solved that one channel and re-rated its ~22
// flows: per flow a scan entry, a freeze, its progress, its rate written twice and a finish time
// (a division and a completion heap entry). Here that is done on the channel's record:
//
// - The rate. The per-flow solve of such a change is fill_single's: every flow on the channel is
//   a member (the channel is saturated and its flows all have its highest rate, so the local
//   level takes them all; a start's level cut is below it), the held load is +0.0, and the share
//   is capacity / weight. try_uniform_start and try_uniform_depart check, with the solver's own
//   expressions, every condition that path needs (saturation, the level cut, the caps, a rate
//   that changes by more than kSameRate) and otherwise leave the change to the solver.
// - Progress. Every member was last advanced at the channel's last commit (`since`) at its rate,
//   so a commit advances all of them by one decrement rate * seconds / 8, computed as
//   FlowNetwork::advance computes it, applied as max(0, remaining - d) in a tight loop over the
//   record's array rather than over the flows' own records.
// - Finish times. All members have one rate and one commit time, so finish times are monotone in
//   the bytes left: the earliest is that of the member with the least. A commit takes the block
//   of sequence numbers the per-flow commits would have taken (EventQueue::take_sequences; member
//   k took sequence + (k + rotation) % m, new flows first), and only the earliest member's entry
//   (its time, and among members finishing in the same nanosecond the lowest number) is in the
//   completion heap. The heap's earliest entry, hence every event, is the same as with an entry
//   per member; the others are written (exit_uniform) when the channel leaves the mode.
//
// A channel enters the mode (flow_uniform_entry.cpp) after a per-flow commit that re-rated all
// of its flows, and only they, to one rate (try_enter_uniform), or when a burst of new flows is
// alone on it (try_uniform_fresh). It leaves it (exit_uniform: rates, progress, rates[],
// load and completion entries written back as the per-flow commits would have left them) before
// anything reads them: a change on it the record cannot take, a solve that may reach it, a wake
// of an idle channel one of its members crosses. The observations read the record (rate_bps,
// remaining_bytes, channel_load_bps, channel_bytes, flows); cancel writes the member back first.
#include <algorithm>
#include <bit>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flow_constants.hpp"
#include "flow_uniform_rules.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kInf;
using flow::kNone;
using flow::kSameRate;
using flow::one_bit;
using flow::share_applies;

namespace {
// r = max(0, r - d) for every r in [r, r + n), returning the least result (kInf if n is 0): the
// per-flow advance's max(0.0, remaining - d), two at a time. MAXPD(x, 0) is x > 0 ? x : 0, as
// std::max(0.0, x) is, NaN and -0.0 included, so every result is the same; the results are never
// NaN nor -0.0, so their least does not depend on the order it is taken in.
double advance_all(double* r, std::size_t n, double d) {
  double least = kInf;
  std::size_t k = 0;
#if defined(__SSE2__)
  const __m128d dv = _mm_set1_pd(d);
  const __m128d zero = _mm_setzero_pd();
  __m128d lo_a = _mm_set1_pd(kInf);
  __m128d lo_b = lo_a;
  for (; k + 4 <= n; k += 4) {
    const __m128d a = _mm_max_pd(_mm_sub_pd(_mm_loadu_pd(r + k), dv), zero);
    const __m128d b = _mm_max_pd(_mm_sub_pd(_mm_loadu_pd(r + k + 2), dv), zero);
    _mm_storeu_pd(r + k, a);
    _mm_storeu_pd(r + k + 2, b);
    lo_a = _mm_min_pd(a, lo_a);
    lo_b = _mm_min_pd(b, lo_b);
  }
  const __m128d lo = _mm_min_pd(lo_a, lo_b);
  least = std::min(_mm_cvtsd_f64(lo), _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo)));
#endif
  for (; k < n; ++k) {
    r[k] = std::max(0.0, r[k] - d);
    least = std::min(least, r[k]);
  }
  return least;
}

// Bit i set when r[i] <= near, for i < n <= 64: four at a time (the compares' sign bits, the
// high halves of the four lanes, gathered by one shuffle into one movemask).
std::uint64_t at_most_one_block(const double* r, std::size_t n, double near) {
  std::uint64_t mask = 0;
  std::size_t k = 0;
#if defined(__SSE2__)
  const __m128d nv = _mm_set1_pd(near);
  for (; k + 4 <= n; k += 4) {
    const __m128 a = _mm_castpd_ps(_mm_cmple_pd(_mm_loadu_pd(r + k), nv));
    const __m128 b = _mm_castpd_ps(_mm_cmple_pd(_mm_loadu_pd(r + k + 2), nv));
    const auto bits =
        static_cast<std::uint64_t>(_mm_movemask_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))));
    mask |= bits << k;
  }
#endif
  for (; k < n; ++k) {
    if (r[k] <= near) mask |= std::uint64_t{1} << k;
  }
  return mask;
}

// Bit i set when r[base + i] <= near, for i < min(64, n - base).
std::uint64_t at_most(const double* r, std::size_t base, std::size_t n, double near) {
  const std::size_t end = std::min(n, base + 64);
  std::uint64_t mask = 0;
  std::size_t k = base;
#if defined(__SSE2__)
  const __m128d nv = _mm_set1_pd(near);
  for (; k + 2 <= end; k += 2) {
    const auto bits =
        static_cast<std::uint64_t>(_mm_movemask_pd(_mm_cmple_pd(_mm_loadu_pd(r + k), nv)));
    mask |= bits << (k - base);
  }
#endif
  for (; k < end; ++k) {
    if (r[k] <= near) mask |= std::uint64_t{1} << (k - base);
  }
  return mask;
}
}  // namespace

std::uint32_t FlowNetwork::uniform_member(std::uint32_t slot, std::uint32_t& index) const {
  if (uniform_count_ == 0) return kNone;
  const FlowHot& h = hot_[slot];
  std::uint32_t found = kNone;
  for_each_live(h, [&](std::uint32_t i) {
    const std::uint32_t u = channel_marks_[h.channels[i]].uniform;
    if (u == kNone) return;
    const std::uint32_t p = pos_of(slot)[i];
    if (p < uniform_[u].remaining.size()) {
      found = u;
      index = p;
    }
  });
  return found;
}

double FlowNetwork::committed_rate(std::uint32_t slot) const {
  std::uint32_t k = 0;
  const std::uint32_t u = uniform_member(slot, k);
  return u == kNone ? hot_[slot].rate : uniform_[u].rate;
}

void FlowNetwork::materialize_member(std::uint32_t slot) {
  std::uint32_t k = 0;
  const std::uint32_t u = uniform_member(slot, k);
  if (u == kNone) return;
  Flow& f = flows_[slot];
  f.remaining = uniform_[u].remaining[k];
  f.last_update = uniform_[u].since;
  hot_[slot].rate = uniform_[u].rate;
}

void FlowNetwork::exit_uniform(std::uint32_t index, std::uint32_t skip) {
  Uniform& u = uniform_[index];
  Channel& ch = channels_[u.channel];
  const auto m = static_cast<std::uint32_t>(u.remaining.size());
  // The commit summed the load from its held load (+0.0) in ch.flows order.
  double load = 0.0;
  for (std::uint32_t k = 0; k < m; ++k) {
    const std::uint32_t g = ch.flows[k];
    hot_[g].rate = u.rate;
    ch.rates[k] = u.rate;
    load += u.rate;
    if (g == skip) continue;  // departing: its progress is already written
    Flow& f = flows_[g];
    f.remaining = u.remaining[k];
    f.last_update = u.since;
    Time t;
    if (g != u.winner && finish_time(f.remaining, u.rate, u.since, t))
      completions_.set_reserved(g, t, u.sequence + (k + u.rotation) % m);
  }
  ch.load = load;
  channel_marks_[u.channel].uniform = kNone;
  u.active = false;
  u.remaining.clear();
  u.caps.clear();
  u.range = CapRange{};
  --uniform_count_;
}

void FlowNetwork::exit_uniform_on(const ChannelId* channels, std::size_t count,
                                  std::uint32_t skip) {
  if (uniform_count_ == 0) return;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t u = channel_marks_[channels[i]].uniform;
    if (u != kNone) exit_uniform(u, skip);
  }
}

void FlowNetwork::exit_all_uniform() {
  for (std::uint32_t u = 0; uniform_count_ > 0 && u < uniform_.size(); ++u) {
    if (uniform_[u].active) exit_uniform(u, kNone);
  }
}

bool FlowNetwork::uniform_saturated(const Uniform& u) const {
  // visit's and departure_level's test, on the load the last commit summed: m times the rate,
  // from +0.0, in order. That sum is at least m * rate * (1 - (m - 1) 2^-53), so the product
  // with a margin of 1e-12 decides for m < 1000; otherwise (or near the edge) it is summed.
  const double bar = channels_[u.channel].capacity * kCutMargin;
  const std::size_t m = u.remaining.size();
  if (m < 1000 && static_cast<double>(m) * u.rate * (1.0 - 1e-12) >= bar) return true;
  double load = 0.0;
  for (std::size_t k = 0; k < m; ++k)
    load += u.rate;
  return load >= bar;
}

bool FlowNetwork::try_uniform_start(const std::uint32_t* added, std::size_t count) {
  if (uniform_count_ == 0 || count == 0) return false;
  // Every new flow: pending, with one channel that is not idle, the same uniform channel for all,
  // crossed once, appended after the members in order (attach's order).
  std::uint32_t index = kNone;
  double new_min_cap = kInf;
  double new_max_cap = 0.0;
  double first_finite = kInf;  // the smallest finite cap among the new flows
  for (std::size_t j = 0; j < count; ++j) {
    const FlowHot& h = hot_[added[j]];
    if (!h.pending || h.channel_count > kLiveBits || !one_bit(h.live)) return false;
    const auto i = static_cast<std::uint32_t>(std::countr_zero(h.live));
    const std::uint32_t u = channel_marks_[h.channels[i]].uniform;
    if (u == kNone || (index != kNone && u != index)) return false;
    index = u;
    if (pos_of(added[j])[i] != uniform_[u].remaining.size() + j) return false;
    new_min_cap = std::min(new_min_cap, h.cap);
    new_max_cap = std::max(new_max_cap, h.cap);
    if (std::isfinite(h.cap)) first_finite = std::min(first_finite, h.cap);
  }
  Uniform& u = uniform_[index];
  const Channel& ch = channels_[u.channel];
  const std::size_t m = u.remaining.size();
  if (m == 0 || ch.flows.size() != m + count || !uniform_saturated(u)) return false;
  // arrival_level on the channel (the new flows' other channels are idle: no level). Sorted, its
  // entries start with min(rate, the smallest finite new cap); the channel stops rising at the
  // first when first * weight > capacity * kCutMargin (the fast path's total exceeds the load,
  // which is saturated). The level cut must keep every member (visit's local level is the
  // rate * kCutMargin, which the members meet).
  const double weight = static_cast<double>(m + count);
  const double first = std::min(u.rate, first_finite);
  const double room = ch.capacity * kCutMargin;
  if (!(first * weight > room)) return false;
  const double cut = std::max(0.0, room / weight) * kCutMargin;
  if (!(cut <= u.rate)) return false;
  // The extremes over the members and the new flows (m > 0): with every member's cap +inf, the
  // new flows' smallest cap and +inf.
  const double min_cap = std::min(new_min_cap, u.range.min_cap);
  const double max_cap = std::max(new_max_cap, u.range.max_cap);
  const auto sum_caps = [&] {
    double sum = 0.0;
    for (const double c : u.caps)
      sum += c;
    for (std::size_t j = 0; j < count; ++j)
      sum += hot_[added[j]].cap;
    return sum;
  };
  double share = 0.0;
  if (!share_applies(ch.capacity, m + count, min_cap, max_cap, sum_caps, u.rate, share))
    return false;
  for (std::size_t j = 0; j < count; ++j) {
    hot_[added[j]].pending = false;
    u.caps.push_back(hot_[added[j]].cap);
    u.range.add(u.caps.back());
  }
  recommit_uniform(u, share, added, count);
  return true;
}

bool FlowNetwork::try_uniform_depart(std::uint32_t slot) {
  if (uniform_count_ == 0 || batch_depth_ > 0) return false;
  std::uint32_t p = 0;
  const std::uint32_t index = uniform_member(slot, p);
  if (index == kNone) return false;
  Uniform& u = uniform_[index];
  Channel& ch = channels_[u.channel];
  const std::size_t m = u.remaining.size();
  if (m == 0 || ch.flows.size() != m || !uniform_saturated(u)) return false;
  if (m == 1) {
    depart_last_member(index, slot);
    return true;
  }
  // departure_level is the rate (saturated, every rate equal); the cut rate * kCutMargin and
  // visit's local level keep every member. After the leave the channel must still bind (else the
  // solver would put it to sleep).
  const std::uint64_t units = flows_[slot].bound_units;  // what detach takes back
  std::uint64_t potential = ch.potential;
  std::uint32_t unbounded = ch.unbounded;
  if (units != kNoBound) {
    potential -= units;
  } else {
    --unbounded;
  }
  if (never_binds(ch, potential, unbounded)) return false;
  // The members after detach's swap: the last takes the leaver's place.
  // The other members' extremes (m - 1 > 0 of them): those of all members unless the leaver was
  // the only one at an extreme, then taken again.
  const double leaving = u.caps[p];
  CapRange range = u.range;
  bool rescan = false;
  if (leaving == range.min_cap && --range.at_min == 0) rescan = true;
  if (leaving == range.max_cap && --range.at_max == 0) rescan = true;
  if (rescan) {
    range = CapRange{};
    for (std::size_t k = 0; k < m; ++k) {
      if (k != p) range.add(u.caps[k]);
    }
  }
  const double min_cap = range.min_cap;
  const double max_cap = range.max_cap;
  const auto sum_caps = [&] {
    double sum = 0.0;
    for (std::size_t k = 0; k + 1 < m; ++k)
      sum += k == p ? u.caps[m - 1] : u.caps[k];
    return sum;
  };
  double share = 0.0;
  if (!share_applies(ch.capacity, m - 1, min_cap, max_cap, sum_caps, u.rate, share)) return false;
  if (u.winner == slot) u.winner = kNone;  // its entry is gone (fired, or erased by cancel)
  // The count of members at the least holds while nothing advances (recommit_uniform).
  if (sim_.now() != u.since) {
    u.at_least = 0;
  } else if (u.at_least > 0 && u.remaining[p] == u.least) {
    --u.at_least;
  }
  u.range = range;
  u.caps[p] = u.caps.back();
  u.caps.pop_back();
  u.remaining[p] = u.remaining.back();
  u.remaining.pop_back();
  detach(slot);
  hot_[slot].rate = 0.0;
  recommit_uniform(u, share, nullptr, 0);
  return true;
}

void FlowNetwork::depart_last_member(std::uint32_t index, std::uint32_t slot) {
  // The per-flow path: exit_uniform (skipping the leaver's progress), detach, and a pruned
  // resolve seeded with the flow's channels. That solve visits the channel (saturated: the
  // load exit_uniform summed is the rate, which uniform_saturated tested as visit does) as a
  // Local with no members, and the others (idle) only as visited; it solves no flow, changes no
  // rate, sets the empty channel's load to 0 and leaves its drift as detach set it; settle_idle
  // then puts it to sleep (it has no potential left).
  const ChannelId c = uniform_[index].channel;
  exit_uniform(index, slot);
  detach(slot);
  hot_[slot].rate = 0.0;
  ++stats_.recomputations;
  ++resolve_id_;
  ++epoch_;
  stats_.channels_solved += 1;
  channels_[c].load = 0.0;
  settle_idle();
  completions_.arm();
}

void FlowNetwork::recommit_uniform(Uniform& u, double rate, const std::uint32_t* added,
                                   std::size_t count) {
  // What resolve and commit count and do, on the record: the members' progress (the new flows
  // start now), the new rate, the block of sequence numbers in the commit's order (new flows
  // first), and the earliest member's completion entry.
  ++stats_.recomputations;
  ++resolve_id_;
  ++epoch_;
  const Time now = sim_.now();
  double least = kInf;  // the least bytes left, found on the way (crown_uniform)
  if (now != u.since) {
    const double d = u.rate * (now - u.since).to_seconds() / 8.0;
    least = advance_all(u.remaining.data(), u.remaining.size(), d);
  } else if (u.at_least > 0) {
    // Nothing advanced since crown_uniform counted the least, and a member still has it
    // (try_uniform_depart took a leaver at the least off the count). No member is below it, so
    // it is the least (the same value; were it a zero of the other sign, crown_uniform's results
    // are the same either way).
    least = u.least;
  } else {
    least = least_remaining(u);
  }
  for (std::size_t j = 0; j < count; ++j) {
    const double r = flows_[added[j]].remaining;
    u.remaining.push_back(r);
    least = std::min(least, r);
  }
  const std::size_t m = u.remaining.size();
  stats_.flows_solved += m;
  stats_.channels_solved += 1;
  stats_.rate_changes += m;
  u.rate = rate;
  u.since = now;
  u.sequence = sim_.queue().take_sequences(m);
  u.block = m;
  u.rotation = static_cast<std::uint32_t>(count);
  crown_uniform(u, least);
  settle_idle();
  completions_.arm();
}

double FlowNetwork::least_remaining(const Uniform& u) {
  double least = kInf;
  for (const double r : u.remaining)
    least = std::min(least, r);
  return least;
}

void FlowNetwork::crown_uniform(Uniform& u, double least) {
  // The earliest member: the least bytes left (`least`; finish times are monotone in them), and
  // among members finishing in the same nanosecond the lowest sequence number. A member more than
  // 1e-9 (relative) plus 80 ns of transfer above the least finishes later for sure (far above the
  // rounding of the division and of the conversion to nanoseconds). Members are visited in
  // sequence order (offset o is member (o + m - rotation) % m), so the first that finishes at the
  // earliest time is the one; the least itself does, so the scan always ends on one.
  const std::size_t m = u.remaining.size();
  const std::uint32_t previous = u.winner;
  u.winner = kNone;
  u.least = least;
  u.at_least = 0;
  Time first;
  if (finish_time(least, u.rate, u.since, first)) {
    const double near = least * (1.0 + 1e-9) + u.rate * 1e-8;
    const double* remaining = u.remaining.data();
    const auto finishes_first = [&](std::size_t k) {
      const double r = remaining[k];
      if (!(r <= near)) return false;
      if (r == least) return true;  // the same bytes left: the same time (members of one burst)
      Time t;
      return finish_time(r, u.rate, u.since, t) && t == first;
    };
    const std::size_t start = u.rotation == 0 ? 0 : m - u.rotation;  // offset 0
    // The members at most `near` (few) found 64 at a time, then tried in order: the first that
    // finishes first in [from, to), or m.
    const auto first_in = [&](std::size_t from, std::size_t to) {
      for (std::size_t base = from; base < to; base += 64) {
        std::uint64_t mask = at_most(remaining, base, to, near);
        while (mask != 0) {
          const std::size_t k = base + static_cast<std::size_t>(std::countr_zero(mask));
          if (finishes_first(k)) return k;
          mask &= mask - 1;
        }
      }
      return m;
    };
    std::size_t best = m;
    if (m <= 64) {
      // One block, one pass over the candidates in position order: the members at the least
      // counted, the first from offset 0 on (positions from `start`) that finishes first, and
      // the first before it, taken if there is none from offset 0 on.
      const std::uint64_t mask = at_most_one_block(remaining, m, near);
      std::uint32_t at_least = 0;  // every member at the least is a candidate (least <= near)
      std::size_t wrapped = m;
      for (std::uint64_t part = mask; part != 0; part &= part - 1) {
        const auto k = static_cast<std::size_t>(std::countr_zero(part));
        const bool at = remaining[k] == least;
        at_least += at ? 1 : 0;
        if (k >= start) {
          if (best == m && (at || finishes_first(k))) best = k;
        } else if (wrapped == m && (at || finishes_first(k))) {
          wrapped = k;
        }
      }
      u.at_least = at_least;
      if (best == m) best = wrapped;
    } else {
      best = first_in(start, m);
      if (best == m) best = first_in(0, start);
    }
    const std::size_t best_offset = best >= start ? best - start : best + u.rotation;
    u.winner = channels_[u.channel].flows[best];
    if (previous != kNone && previous != u.winner) completions_.erase(previous);
    completions_.set_reserved(u.winner, first, u.sequence + best_offset);
  } else if (previous != kNone) {
    completions_.erase(previous);
  }
}

void FlowNetwork::UniformBlocks::held_sequences(std::vector<std::uint64_t>& out) const {
  for (const Uniform& u : net->uniform_) {
    if (!u.active) continue;
    for (std::uint64_t i = 0; i < u.block; ++i)
      out.push_back(u.sequence + i);
  }
}

void FlowNetwork::UniformBlocks::renumber_sequences(const std::vector<std::uint64_t>& sorted) {
  // Every number of a block was reported: the block maps to consecutive numbers.
  for (Uniform& u : net->uniform_) {
    if (u.active) u.sequence = EventQueue::renumbered_sequence(sorted, u.sequence);
  }
  net->renumbered_ = true;
}

}  // namespace sim::net
