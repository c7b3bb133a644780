// The max-min solver of FlowNetwork, with incremental recomputation.
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
// (3) Pruning, verified. The search for S (from the changed channels) does not expand through
// channels that were unsaturated: they are kept as boundary constraints with the load of the
// flows behind them held. From a saturated channel it takes only the flows at its highest rate
// (to a relative margin), and not below L: its local level. A flow held there is then not
// bottlenecked there, and a held flow's bottleneck is never a channel of the solve (a boundary
// channel was unsaturated; a saturated one would have taken it), so it is unchanged. Afterwards,
// if every boundary channel is still unsaturated and every channel that stopped flows stopped
// them no lower than the rates held on it, every flow has a bottleneck, so the result is the
// max-min allocation. Otherwise the failing boundary channels are expanded, the failing
// saturated channels take every flow above L, and S is solved again; a channel that fails with
// every flow above L turns pruning off (exact by (1) and (2) alone). On the storm mix of
// bench_flow_mixes local levels take S from 72 to 34 flows per change, about 0.2 extra passes.
//
// (4) Channels that can never saturate (the sum of their flows' rate bounds fits) are left out
// entirely, with the same rates bit for bit: flow_slack.cpp (ChannelMark::idle; visit_idle).
//
// (5) A saturated channel whose flows cross no other channel in the solve and share one rate is
// re-rated on one record, not flow by flow, with the same numbers bit for bit: flow_uniform.cpp.
//
// A pass is one breadth-first search, then per channel the load left outside (a saturated
// channel's members are the set's flows on it, known once the search is done; a boundary
// channel's come from the crossings the search recorded, its held load from its load less their
// rates, see visit_boundary), one progressive filling over S with a min-heap of channel fair
// shares (lazy keys) and a heap of caps built only once the level reaches the smallest cap, and a
// commit that gives a new finish time only to the flows whose rate changed (a CompletionHeap
// update, not an event). S is taken with a relative margin below L, which only adds flows and so
// stays exact.
#include <algorithm>
#include <bit>
#include <cmath>

#include "flow_constants.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {

using flow::kCutMargin;
using flow::kExactSum;
using flow::kFitSlack;
using flow::kInf;
using flow::kNone;
using flow::kSameRate;
using flow::kUnsolved;

namespace {
// BoundaryList::head of a boundary channel summed flow by flow (no crossings recorded).
constexpr std::uint32_t kScanned = kNone - 1;
}  // namespace

double FlowNetwork::arrival_level(const ChannelId* channels, std::size_t count) {
  double level = kInf;
  for (std::size_t i = 0; i < count; ++i) {
    const ChannelId c = channels[i];
    if (channel_marks_[c].idle) continue;  // no level, or a higher one (flow_slack.cpp)
    if (std::find(channels, channels + i, c) != channels + i) continue;  // seen (chains)
    // Water-filling on one channel with every flow at its final rate: the others at their
    // rates, each new flow (marked kUnsolved, one entry per crossing) at its cap. The channel
    // saturates at the level x that solves sum_g min(r_g, x) + sum_new min(x, cap) = capacity,
    // or never if everything fits. With several new flows (a batch of starts) the first level
    // at which the new filling differs from the old is still the lowest such x over the
    // changed channels: below it every channel's usage is what it was. The capacity is taken a
    // little low so that rounding can only make the level lower (safe).
    const Channel& ch = channels_[c];
    // Fast path: if every crossing fits at its final rate (or cap) with room to spare, the
    // water-filling below consumes every entry (sorted ascending, r_i * weight is at most the
    // sum of the entries left, which is at most what remains) and the channel gives no level.
    // The slack of 1e-6 of the capacity is far above the rounding of the sums (n * 2^-53 of the
    // capacity, n < 1e6), so this skips the sort only where the loop would never break.
    {
      double total = 0.0;
      bool rising = false;
      for (std::size_t k = 0; k < ch.flows.size(); ++k) {
        const double r = ch.rates[k];
        const double cap = r != kUnsolved ? r : hot_[ch.flows[k]].cap;
        rising = rising || !std::isfinite(cap);
        total += cap;
      }
      if (!rising && ch.flows.size() < 1000000 &&
          total <= ch.capacity * kCutMargin * (1.0 - kFitSlack)) {
        continue;
      }
    }
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
  // Idle channels are unsaturated (their loads are not kept): skipped.
  for_each_live(f, [&](std::uint32_t i) {
    const ChannelId c = f.channels[i];
    if (std::find(f.channels, f.channels + i, c) != f.channels + i) return;  // seen (chains)
    const Channel& ch = channels_[c];
    // A channel counts as saturated a little early (safe: only lowers the level). It saturated
    // at the highest rate on it: the rate of the flows it froze.
    if (ch.load < ch.capacity * kCutMargin) return;
    double highest = 0.0;
    for (const double r : ch.rates) {
      if (r != kUnsolved) highest = std::max(highest, r);
    }
    level = std::min(level, highest);
  });
  return level;
}

void FlowNetwork::resolve(const ChannelId* seeds, std::size_t seed_count, double threshold,
                          const std::uint32_t* added, std::size_t added_count, bool prune) {
  ++stats_.recomputations;
  ++resolve_id_;
  // A uniform channel among the seeds is solved flow by flow (flow_uniform.cpp); the pruned
  // search reaches no other (their members cross no other channel that is not idle), an unpruned
  // one may reach any.
  if (uniform_count_ > 0) exit_uniform_on(seeds, seed_count, kNone);
  for (;;) {
    if (!prune && uniform_count_ > 0) exit_all_uniform();
    ++epoch_;
    set_.clear();
    expanded_ = 0;
    locals_.clear();
    members_size_ = 0;
    boundary_.clear();
    boundary_lists_.clear();
    crossings_.clear();
    stale_.clear();
    local_levels_ = prune;
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
    // A flow's crossings of boundary channels are recorded as it is expanded: every member of
    // a boundary channel is in the set, and every flow of the set is expanded. A flow that joined
    // after a channel it crosses was scanned, with a rate below that channel's local level, was
    // held there: that channel's Local is rebuilt once the set is complete.
    while (expanded_ < set_.size()) {
      const auto index = static_cast<std::uint32_t>(expanded_++);
      const std::uint32_t slot = set_[index];
      const FlowHot& g = hot_[slot];
      // Inlined: called out of line (two call sites) it cost ~6% of the cloud mix in calls.
      auto cross = [&](std::uint32_t k) __attribute__((always_inline)) {
        // Inline the common cases: a channel already visited, or already deferred as a boundary
        // in this pass (its state cannot change within a pass, so visit would defer it again).
        ChannelMark& cm = channel_marks_[g.channels[k]];
        if (cm.mark == epoch_) {
          if (index >= cm.scan_start && g.rate < cm.level) {
            cm.scan_start = kNone;  // once
            stale_.push_back(g.channels[k]);
          }
          return;
        }
        if (cm.deferred != epoch_) {
          visit(g.channels[k], threshold, prune);
          if (cm.mark == epoch_) return;
        }
        BoundaryList& list = boundary_lists_[cm.local];
        if (list.head == kScanned) return;
        crossings_.push_back(Crossing{list.head, slot});
        list.head = static_cast<std::uint32_t>(crossings_.size() - 1);
        ++list.count;
      };
      // A pruned pass only marks an idle channel visited (visit_idle), which nothing but this
      // loop reads: it is skipped. An unpruned one takes its flows in.
      if (prune) {
        for_each_live(g, cross);
      } else {
        for (std::uint32_t k = 0; k < g.channel_count; ++k)
          cross(k);
      }
    }
    for (const ChannelId c : stale_)
      rebuild_local(c);
    gather_boundary_members();
    stats_.flows_solved += set_.size();
    stats_.channels_solved += locals_.size();
    fill();
    if (!prune || boundary_holds(prune)) break;
    ++stats_.extra_rounds;
  }
  commit();
  settle_idle();
  if (uniform_enabled_ && locals_.size() == 1) try_enter_uniform();
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
      if (l.fits) continue;
      double load = l.outside;
      for (std::uint32_t i = l.members_begin; i < l.members_end; ++i)
        load += hot_[members_[i]].new_rate;
      if (load >= channels_[l.channel].capacity * kCutMargin) {
        channels_[l.channel].forced = resolve_id_;
        holds = false;
      }
    } else if (l.level >= 0.0 && l.level < l.outside_max * kCutMargin) {
      // A held flow has a higher rate than the level that stopped flows here. With local levels
      // the channel takes every flow above the level cut next pass; otherwise (or if it already
      // did) the pass is repeated without pruning.
      Channel& ch = channels_[l.channel];
      if (!local_levels_ || ch.lowered == resolve_id_) prune = false;
      if (ch.lowered != resolve_id_) ++stats_.lowered_levels;
      ch.lowered = resolve_id_;
      holds = false;
    }
  }
  return holds;
}

void FlowNetwork::visit(ChannelId c, double threshold, bool prune) {
  Channel& ch = channels_[c];
  ChannelMark& cm = channel_marks_[c];
  if (cm.mark == epoch_) return;
  if (cm.idle) {
    visit_idle(c, threshold, prune);
    return;
  }
  if (prune && ch.forced != resolve_id_ && ch.load < ch.capacity * kCutMargin) {
    // Unsaturated: defer; it joins as a boundary once the set is complete.
    if (cm.deferred != epoch_) {
      cm.deferred = epoch_;
      cm.local = static_cast<std::uint32_t>(boundary_.size());
      boundary_.push_back(c);
      // Summed flow by flow if needed, or if every flow on it was a member last time (no
      // crossings recorded then).
      const bool scanned = cm.drift >= kExactSum || cm.dense;
      boundary_lists_.push_back(BoundaryList{scanned ? kScanned : kNone, 0});
    }
    return;
  }
  cm.mark = epoch_;
  const std::size_t n = ch.flows.size();
  const double* rates = ch.rates.data();
  if (local_levels_ && ch.lowered != resolve_id_) {
    // A flow held here keeps its bottleneck unless it is this channel, i.e. unless its rate is
    // (to the margin) the highest here: only those join (boundary_holds verifies the levels).
    double top = 0.0;
    for (std::size_t k = 0; k < n; ++k)
      top = std::max(top, rates[k] != kUnsolved ? rates[k] : 0.0);
    threshold = std::max(threshold, top * kCutMargin);
  }
  cm.local = static_cast<std::uint32_t>(locals_.size());
  const auto begin = static_cast<std::uint32_t>(members_size_);
  // Flows below the threshold are held at their rates (their sum is the load left outside);
  // the others join the set. A flow already in the set is a member too; one that joins it later
  // through another channel makes this Local stale (resolve's search sees it from cm.level and
  // cm.scan_start, and rebuild_local takes it in). So a channel's members are exactly its
  // re-solved crossings. Without branches, as in visit_boundary (whose comment gives why the
  // sums are unchanged): every entry is written to members_ and to set_, and the counts advance
  // only for members and for members new to the set. std::max with +0.0 leaves outside_max
  // (>= +0.0) as it was.
  const auto set_begin = set_.size();
  cm.level = threshold;
  cm.scan_start = static_cast<std::uint32_t>(set_begin);
  reserve_members(n);
  set_.resize(set_begin + n);
  const std::uint32_t* flows = ch.flows.data();
  std::uint32_t* out = members_.data() + begin;
  std::uint32_t* added = set_.data() + set_begin;
  FlowHot* hot = hot_.data();
  const std::uint64_t epoch = epoch_;
  std::uint32_t count = 0;
  std::size_t fresh_count = 0;
  double outside = 0.0;
  double outside_max = 0.0;
  double caps = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t g = flows[k];
    const double r = rates[k];
    FlowHot& h = hot[g];
    const bool taken = r >= threshold;
    const bool fresh = taken & (h.mark != epoch);
    const bool member = taken | (h.mark == epoch);
    const std::uint64_t mask = 0 - static_cast<std::uint64_t>(member);  // all ones if a member
    const double held = std::bit_cast<double>(std::bit_cast<std::uint64_t>(r) & ~mask);
    h.mark = member ? epoch : h.mark;
    added[fresh_count] = g;
    fresh_count += static_cast<std::size_t>(fresh);
    out[count] = g;
    count += static_cast<std::uint32_t>(member);
    outside += held;
    outside_max = std::max(outside_max, held);
    caps += std::bit_cast<double>(std::bit_cast<std::uint64_t>(h.cap) & mask);
  }
  set_.resize(set_begin + fresh_count);
  const std::uint32_t end = begin + count;
  members_size_ = end;
  add_local(c, outside, outside_max, ch.capacity, caps, begin, end, false, true);
}

template <bool kWithMax>
FlowNetwork::MemberSums FlowNetwork::scan_members(const Channel& ch) {
  // Without branches: whether an entry is a member (a flow of the set) is data-dependent (on
  // the storm mix 37% of the entries, in no fixed pattern; the branching loop took 25% of the
  // run), so every entry is written to members_ and the count advances only for members, and a
  // non-member adds +0.0 to the member sums (and a member +0.0 to outside). Adding +0.0 leaves a
  // sum of non-negative terms bit-for-bit as it was, so the sums are those of the branching loop,
  // in the same order; std::max with +0.0 leaves outside_max (>= +0.0) as it was.
  MemberSums sums;
  sums.begin = static_cast<std::uint32_t>(members_size_);
  const std::size_t n = ch.flows.size();
  reserve_members(n);
  const std::uint32_t* flows = ch.flows.data();
  const double* rates = ch.rates.data();
  std::uint32_t* out = members_.data() + sums.begin;
  const FlowHot* hot = hot_.data();
  const std::uint64_t epoch = epoch_;
  std::uint32_t count = 0;
  double outside = 0.0;
  double outside_max = 0.0;
  double caps = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t g = flows[k];
    const FlowHot& h = hot[g];
    const bool member = h.mark == epoch;
    const std::uint64_t mask = 0 - static_cast<std::uint64_t>(member);  // all ones if a member
    const double held = std::bit_cast<double>(std::bit_cast<std::uint64_t>(rates[k]) & ~mask);
    out[count] = g;
    count += static_cast<std::uint32_t>(member);
    outside += held;
    if constexpr (kWithMax) outside_max = std::max(outside_max, held);
    caps += std::bit_cast<double>(std::bit_cast<std::uint64_t>(h.cap) & mask);
  }
  sums.end = sums.begin + count;
  members_size_ = sums.end;
  sums.outside = outside;
  sums.outside_max = outside_max;
  sums.caps = caps;
  sums.dense = n <= count;
  return sums;
}

void FlowNetwork::rebuild_local(ChannelId c) {
  // visit's sums again with the set complete (a member is a flow of the set), into the same Local
  // (its members appended at the end of members_).
  const Channel& ch = channels_[c];
  Local& l = locals_[channel_marks_[c].local];
  const MemberSums sums = scan_members<true>(ch);
  l.outside = sums.outside;
  l.outside_max = sums.outside_max;
  l.remaining = std::max(0.0, ch.capacity - sums.outside);
  l.caps = sums.caps;
  l.weight = sums.end - sums.begin;
  l.members_begin = sums.begin;
  l.members_end = sums.end;
}

void FlowNetwork::reserve_members(std::size_t n) {
  // Grown, never shrunk: only [0, members_size_) is in use, so a scan writes its candidates
  // without the zeroing a resize per channel would cost.
  if (members_.size() < members_size_ + n)
    members_.resize(std::max(2 * members_.size(), members_size_ + n));
}

void FlowNetwork::add_local(ChannelId c, double outside, double outside_max, double capacity,
                            double caps, std::uint32_t begin, std::uint32_t end, bool boundary,
                            bool exact) {
  // Written field by field into the vector's slot: a Local built on the stack was copied in by
  // an out-of-line push whose samples (~6% of the storm mix) sat on the 16-byte reloads of the
  // just-written 8- and 4-byte fields (likely store-forwarding stalls).
  Local& l = locals_.emplace_back();
  l.channel = c;
  l.outside = outside;
  l.outside_max = outside_max;
  l.remaining = std::max(0.0, capacity - outside);
  l.caps = caps;
  l.level = -1.0;
  l.weight = end - begin;
  l.members_begin = begin;
  l.members_end = end;
  l.boundary = boundary;
  l.exact = exact;
  // New rates are at most the caps, and a sum of smaller terms rounds no higher, so a boundary
  // channel that fits with every member at its cap (with a slack far above the rounding) stays
  // unsaturated: boundary_holds need not sum it.
  l.fits = outside + caps <= capacity * kCutMargin * (1.0 - kFitSlack);
}

void FlowNetwork::gather_boundary_members() {
  // A boundary channel's load held outside is its load less its members' committed rates (new
  // flows have rate 0 and are not in the load), unless flows joined or left it since it was last
  // summed exactly or it was updated so kExactSum times in a row, or every flow on it was a
  // member at its last visit (ChannelMark::dense): then it is summed flow by flow, the members
  // found by the same scan (visit_boundary_exact). The held load only decides
  // whether the channel stays unsaturated (a boundary channel that stops a flow in the fill fails
  // the check and is expanded next pass, where visit sums its load exactly), so the rates do not
  // depend on its rounding. The members of the others are the crossings the search recorded (a
  // list per channel, latest first), copied into members_.
  for (std::size_t b = 0; b < boundary_.size(); ++b) {
    const ChannelId c = boundary_[b];
    if (boundary_lists_[b].head == kScanned) {
      visit_boundary_exact(c);
      continue;
    }
    const auto begin = static_cast<std::uint32_t>(members_size_);
    const BoundaryList list = boundary_lists_[b];
    reserve_members(list.count);
    std::uint32_t* out = members_.data() + begin;
    for (std::uint32_t x = list.head; x != kNone; x = crossings_[x].next)
      *out++ = crossings_[x].slot;
    members_size_ = begin + list.count;
    visit_boundary(c, begin, static_cast<std::uint32_t>(members_size_));
  }
}

void FlowNetwork::visit_boundary(ChannelId c, std::uint32_t begin, std::uint32_t end) {
  const Channel& ch = channels_[c];
  ChannelMark& cm = channel_marks_[c];
  cm.mark = epoch_;
  cm.local = static_cast<std::uint32_t>(locals_.size());
  const FlowHot* hot = hot_.data();
  double caps = 0.0;
  double members_rate = 0.0;
  for (std::uint32_t i = begin; i < end; ++i) {
    const FlowHot& h = hot[members_[i]];
    caps += h.cap;
    members_rate += h.rate;
  }
  cm.dense = ch.flows.size() <= end - begin;
  add_local(c, std::max(0.0, ch.load - members_rate), 0.0, ch.capacity, caps, begin, end, true,
            false);
}

void FlowNetwork::visit_boundary_exact(ChannelId c) {
  const Channel& ch = channels_[c];
  ChannelMark& cm = channel_marks_[c];
  cm.mark = epoch_;
  cm.local = static_cast<std::uint32_t>(locals_.size());
  const MemberSums sums = scan_members<false>(ch);
  cm.dense = sums.dense;
  add_local(c, sums.outside, 0.0, ch.capacity, sums.caps, sums.begin, sums.end, true, true);
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
  std::size_t unfrozen = set_.size();
  if (locals_.size() != 1 || !fill_single(min_cap, unfrozen)) {
    for (std::uint32_t i = 0; i < locals_.size(); ++i) {
      const Local& l = locals_[i];
      if (l.weight == 0 || l.caps <= l.remaining) continue;
      share_heap_.push_back(HeapEntry{l.remaining / l.weight, i});
    }
    std::make_heap(share_heap_.begin(), share_heap_.end(), later);
  } else if (unfrozen == 0) {
    return;
  }
  // Caps matter only once the level reaches the smallest cap in the set; the cap heap (cap,
  // slot) is built then, from the flows still unfrozen (often few by that time).
  cap_heap_.clear();
  bool caps_built = false;

  auto freeze = [&](std::uint32_t g, double rate) {
    FlowHot& h = hot_[g];
    h.frozen = true;
    h.new_rate = rate;
    --unfrozen;
    for_each_live(h, [&](std::uint32_t k) {  // idle channels are not in the solve
      Local& l = locals_[channel_marks_[h.channels[k]].local];
      l.remaining -= rate;
      --l.weight;
    });
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

bool FlowNetwork::fill_single(double min_cap, std::size_t& unfrozen) {
  // The first round of fill's loop when the solve has one Local (the cloud mix: the store's
  // egress; the other channels of its flows are idle) that stops its members below every cap:
  // the same share (remaining / weight), level and freezes in members order, without the heap.
  // The freezes leave the Local's remaining and weight as they are: with no other Local and this
  // one out of the (empty) share heap, fill never reads them again. Anything else (no share, a
  // cap at or below it, an infinite one) is left to the general loop.
  Local& l = locals_[0];
  if (l.weight == 0 || l.caps <= l.remaining) return false;
  const double share = l.remaining / l.weight;
  if (!(min_cap > share) || !(share < kInf)) return false;
  const double level = std::max(0.0, share);
  l.level = level;
  FlowHot* hot = hot_.data();
  for (std::uint32_t i = l.members_begin; i < l.members_end; ++i) {
    FlowHot& h = hot[members_[i]];
    if (h.frozen) continue;  // a chain's second crossing
    h.frozen = true;
    h.new_rate = level;
    --unfrozen;
  }
  return true;
}

void FlowNetwork::commit() {
  // Only flows whose rate changed get new progress and a new finish time. The first sequence
  // number they take is noted for try_enter_uniform.
  commit_first_sequence_ = sim_.queue().next_sequence();
  renumbered_ = false;
  for (const std::uint32_t g : set_) {
    FlowHot& h = hot_[g];
    const double old_rate = h.rate;
    const double new_rate = h.new_rate;
    h.pending = false;
    h.changed = !(old_rate > 0.0 &&
                  std::fabs(new_rate - old_rate) <= kSameRate * std::max(new_rate, old_rate));
    if (!h.changed) continue;
    advance(g);
    h.rate = new_rate;
    const std::uint32_t* const pos = pos_of(g);
    // An idle channel's rates are rebuilt when it wakes (flow_slack.cpp).
    for_each_live(h, [&](std::uint32_t k) { channels_[h.channels[k]].rates[pos[k]] = new_rate; });
    ++stats_.rate_changes;
    schedule_completion(g);
  }
  // Loads are rebuilt from the held load plus the committed rates, and an empty channel carries
  // exactly nothing. A boundary channel's held load summed flow by flow resets its drift; one
  // derived from the load (visit_boundary) updates the load only if a member's rate changed, and
  // counts. (A saturated channel's load is summed exactly too, but its drift is left as it was:
  // only boundary visits read it, and a count too high only asks for an exact sum early.)
  for (const Local& l : locals_) {
    double load = l.outside;
    if (l.exact) {
      for (std::uint32_t i = l.members_begin; i < l.members_end; ++i)
        load += hot_[members_[i]].rate;
      // Reset here, not when summed: a pass that is repeated must sum it again (a flow that
      // left is still in the load until this commit).
      if (l.boundary) channel_marks_[l.channel].drift = 0;
    } else {
      bool changed = false;
      for (std::uint32_t i = l.members_begin; i < l.members_end; ++i) {
        const FlowHot& h = hot_[members_[i]];
        load += h.rate;
        changed |= h.changed;
      }
      if (!changed) continue;
      ++channel_marks_[l.channel].drift;
    }
    if (channels_[l.channel].flows.empty()) load = 0.0;
    channels_[l.channel].load = load;
  }
}

}  // namespace sim::net
