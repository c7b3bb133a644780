#pragma once
/// Flow-level network model: max-min fair sharing of full-duplex links, recomputed incrementally
/// (DESIGN.md "Network"; algorithm in docs/network.md "Rate allocation").
///
/// A flow moves `bytes` along one route at a rate (bits/s) that is the max-min fair share of
/// every channel (link direction) it crosses, optionally capped per flow. Rates are
/// piecewise constant: they change only when a flow starts, finishes or is cancelled. After each
/// such change only the flows whose rate can change are re-solved: the flows at or above the
/// level at which the change first matters in progressive filling and at the highest rate of a
/// saturated channel, connected to the changed channels through saturated channels (a result
/// that is then verified, and in some cases widened). Only flows whose rate actually changed get a
/// new finish time; finish times are kept in a heap with only the earliest in the event queue
/// (CompletionHeap).
///
/// A flow's bytes have all left the source when its fluid transfer ends (then it stops using
/// bandwidth); each receiver gets the last byte one route latency later. Finish times are rounded
/// up to the next nanosecond (sim::ceil_seconds).
///
/// A chained multicast (TCP chaining, Flashpoint thesis §6.2) is one flow whose route is the
/// concatenation src->r1->r2->...: every receiver forwards as it receives, so the chain moves
/// at one rate, limited by its most congested channel, and receiver i finishes at the fluid end
/// plus the latency from src to r_i along the chain. A channel the chain crosses twice counts
/// twice against its capacity.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/network/completion_heap.hpp"
#include "sim/network/route_table.hpp"
#include "sim/network/topology.hpp"

namespace sim::net {

/// Refers to one flow. Copyable; stays harmless after the flow finished or was cancelled.
struct FlowHandle {
  std::uint32_t slot = 0;
  std::uint64_t serial = 0;  ///< 0: no flow
  [[nodiscard]] bool valid() const { return serial != 0; }
  friend bool operator==(const FlowHandle&, const FlowHandle&) = default;
};

struct FlowOptions {
  /// Per-flow rate cap (bits/s), combined (min) with the caps of the end nodes.
  std::optional<double> rate_cap_bps;
  /// Key hashed with source and destination to choose among equal-cost paths; default: the
  /// flow's serial number (1, 2, 3, ... in start order).
  std::optional<std::uint64_t> route_key;
  /// Route through this node (e.g. pin a spine): shortest src->via, then shortest via->dst.
  std::optional<NodeId> via;
};

/// Counters for benchmarks and for checking that recomputation stays local.
struct FlowNetworkStats {
  std::uint64_t recomputations = 0;   ///< one per start, finish or cancel that touched links
                                      ///< (one per batch inside a BatchUpdate)
  std::uint64_t flows_solved = 0;     ///< sum over solve passes of the re-solved set's size
  std::uint64_t channels_solved = 0;  ///< sum over solve passes of the channels it crosses
  std::uint64_t extra_rounds = 0;     ///< passes repeated because a pruned boundary did not hold
  std::uint64_t lowered_levels = 0;   ///< channels whose local level did not hold (re-taken with
                                      ///< every flow above the level cut)
  std::uint64_t rate_changes = 0;     ///< flows that got a new rate (and finish time)
  std::uint64_t channels_woken = 0;   ///< channels that could no longer be left out of the solve
  std::uint64_t flows_started = 0;
  std::uint64_t flows_finished = 0;
  std::uint64_t flows_cancelled = 0;
};

class FlowNetwork {
 public:
  /// Both references must outlive the FlowNetwork.
  FlowNetwork(Simulation& sim, const Topology& topology);
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;
  ~FlowNetwork();

  /// Starts a unicast flow of `bytes` (>= 0) now. `on_done` runs when the last byte reaches dst.
  /// src == dst: no links are used; the flow takes bytes / cap, or finishes now if uncapped.
  FlowHandle start(NodeId src, NodeId dst, double bytes, std::function<void()> on_done,
                   const FlowOptions& options = {});

  /// Starts a chained multicast src -> receivers[0] -> receivers[1] -> ... of `bytes`.
  /// `on_delivered(i)` runs when receivers[i] has the last byte (in receiver order on ties).
  /// Per-node caps of src and of every receiver apply to the chain's single rate.
  FlowHandle start_chain(NodeId src, const std::vector<NodeId>& receivers, double bytes,
                         std::function<void(std::size_t receiver)> on_delivered,
                         const FlowOptions& options = {});

  /// Stops a flow (and any deliveries still pending); its callbacks never run. Returns whether
  /// the flow was still running or delivering.
  bool cancel(FlowHandle h);

  /// Groups starts and cancels made at one simulated time into one recomputation (for example
  /// to put 1e5 flows in flight at once). While a batch is open, new flows are attached with
  /// rate 0 and no completion event, and cancelled flows are detached, but no rate changes;
  /// closing the outermost batch recomputes once: a batch of starts only like one start (level
  /// cut and pruned search, docs/network.md "Batches"), a batch with finishes or cancels by
  /// re-solving every connected component that changed. The result is the allocation the same
  /// starts and cancels give one by one (max-min fairness depends only on the final set of flows),
  /// though a flow's rate is only observable once the batch is closed. Batches nest. Starting or
  /// cancelling after simulated time moved on since the batch opened throws std::logic_error (rates
  /// must not stay stale while time passes).
  class BatchUpdate {
   public:
    explicit BatchUpdate(FlowNetwork& net) : net_(net) { net_.begin_batch(); }
    BatchUpdate(const BatchUpdate&) = delete;
    BatchUpdate& operator=(const BatchUpdate&) = delete;
    ~BatchUpdate() { net_.end_batch(); }

   private:
    FlowNetwork& net_;
  };
  void begin_batch();
  /// Closes one level of batching; the outermost close recomputes. Unmatched calls throw.
  void end_batch();

  [[nodiscard]] bool active(FlowHandle h) const;
  /// Current rate in bits/s; 0 for a flow that is not transferring (or started in an open
  /// batch).
  [[nodiscard]] double rate_bps(FlowHandle h) const;
  /// Bytes still to send at the current simulated time.
  [[nodiscard]] double remaining_bytes(FlowHandle h) const;
  /// The flow's route (for a chain: the concatenated route). Throws if the handle is stale.
  [[nodiscard]] const Route& route(FlowHandle h) const;
  /// Number of flows currently transferring (using bandwidth).
  [[nodiscard]] std::size_t active_flows() const { return active_count_; }

  // Per-channel observations for metrics.
  /// The sum of the rates of the flows on the channel (repeats counted).
  [[nodiscard]] double channel_load_bps(ChannelId c) const;
  [[nodiscard]] double channel_utilisation(ChannelId c) const {
    return channel_load_bps(c) / channels_.at(c).capacity;
  }
  /// Bytes that crossed the channel since time zero, up to the current simulated time.
  [[nodiscard]] double channel_bytes(ChannelId c) const;
  [[nodiscard]] std::size_t channel_flow_count(ChannelId c) const {
    return channels_.at(c).flows.size();
  }

  /// A read-only view of every transferring flow, in slot order (for tests and metrics).
  struct FlowView {
    FlowHandle handle;
    const std::vector<ChannelId>* channels;  ///< with repeats for chains
    double rate_bps;
    double cap_bps;  ///< +inf when uncapped
  };
  [[nodiscard]] std::vector<FlowView> flows() const;

  [[nodiscard]] const FlowNetworkStats& stats() const { return stats_; }
  /// For tests: keep every channel in the solve, including those that can never saturate
  /// (docs/network.md "Rate allocation"); the rates are the same, bit for bit. Call before
  /// starting flows.
  void keep_all_channels();
  /// For tests: re-rate the flows of a channel one by one even where they all share one rate
  /// (uniform channels, flow_uniform.cpp); the rates and finish times are the same, bit for bit.
  /// Call before starting flows.
  void keep_rates_per_flow() { uniform_enabled_ = false; }
  /// For tests: the number of channels whose flows are kept as one (uniform channels).
  [[nodiscard]] std::size_t uniform_channels() const { return uniform_count_; }
  [[nodiscard]] const Topology& topology() const { return topology_; }
  RouteTable& routes() { return routes_; }

 private:
  enum class State : std::uint8_t { kFree, kActive, kDelivering };

  /// Per-flow bookkeeping that the solver does not read. Its first cache line holds what a
  /// flow's start, finish, departure and delivery read and write (identity, state, progress,
  /// bound, deliveries left); the buffers and callbacks follow.
  struct alignas(64) Flow {
    std::uint64_t serial = 0;
    State state = State::kFree;
    double remaining = 0.0;  ///< bytes, as of last_update
    Time last_update;
    /// Its rate bound in whole bit/s, rounded up, or kNoBound (flow_slack.cpp): set when it
    /// joins, taken back when it leaves (the cap and the capacities do not change meanwhile).
    std::uint64_t bound_units = 0;
    std::size_t pending_deliveries = 0;
    Route route;
    std::vector<std::uint32_t>
        pos;  ///< index in channels_[route.channels[i]].flows (long routes: pos_of)
    std::vector<Time> delivery_latency;             ///< one per receiver
    std::function<void(std::size_t)> on_delivered;  ///< chains
    /// Unicast flows (start): kept as given rather than wrapped into on_delivered, which cost a
    /// second heap-allocated callable per flow.
    std::function<void()> on_done;
    std::vector<EventHandle> deliveries;
  };
  static constexpr std::uint64_t kNoBound = ~std::uint64_t{0};

  /// What the solver reads and writes, kept apart from Flow (struct of arrays) so that scanning
  /// a channel's flows touches one small record per flow.
  /// Routes of up to this many channels are copied into FlowHot itself (a host-to-host route
  /// across the spines has 4), so that the solver's walks over a flow's channels read the line
  /// it already loaded for the flow rather than the route's own heap buffer.
  static constexpr std::uint32_t kInlineChannels = 4;
  struct alignas(64) FlowHot {
    double rate = 0.0;  ///< committed rate (bits/s)
    double cap = std::numeric_limits<double>::infinity();
    double new_rate = 0.0;   ///< solver scratch
    std::uint64_t mark = 0;  ///< == epoch_ while in the set being solved
    /// inline_channels.data() when the route fits there (re-pointed when hot_ reallocates),
    /// else route.channels.data(): stable while transferring (Flow moves keep the buffer;
    /// checked by a static_assert in the .cpp that flows_ reallocates by moving).
    const ChannelId* channels = nullptr;
    std::uint32_t channel_count = 0;
    bool frozen = false;
    bool changed = false;  ///< commit scratch: the rate changed in this recomputation
    bool pending = false;  ///< attached, not yet solved (flow_slack.cpp)
    /// Bit k set: channels[k] is not idle (routes of up to kLiveBits channels; see for_each_live).
    std::uint8_t live = 0;
    std::array<ChannelId, kInlineChannels> inline_channels{};
  };
  static_assert(sizeof(FlowHot) == 64);
  static constexpr std::uint32_t kLiveBits = 8;

  struct alignas(64) Channel {  // capacity, load, flows, rates: the solver's first cache line
    double capacity = 0.0;
    double load = 0.0;                 ///< sum of rates (bits/s), repeats counted
    std::vector<std::uint32_t> flows;  ///< flow slots, one entry per crossing
    std::vector<double> rates;         ///< their committed rates (parallel to flows)
    /// Bytes at start of the flows that joined, less the bytes left of those that left: the
    /// bytes that crossed are this less the bytes the flows on it still have to send.
    double sent = 0.0;
    /// Sum over crossings of each flow's rate bound, whole bit/s rounded up, and the crossings
    /// of flows without a finite bound (flow_slack.cpp).
    std::uint64_t potential = 0;
    std::uint32_t unbounded = 0;
    /// never_binds in integers: a potential below this (with no unbounded crossing) can never
    /// bind; 0 where none can, or where that is decided in doubles (idle_in_doubles).
    std::uint64_t idle_below = 0;
    bool idle_in_doubles = false;  ///< its idle limit is 2^53 bit/s or more
    std::uint64_t forced = 0;      ///< == resolve_id_: expand even if unsaturated
    std::uint64_t lowered = 0;     ///< == resolve_id_: take every flow above the level cut
    bool dirty = false;            ///< membership changed inside the open batch
  };
  /// The solver's per-channel scratch, apart from Channel (parallel to channels_) so that the
  /// search's "seen?" tests and the fill's channel -> local lookups touch 24 bytes per channel.
  struct ChannelMark {
    std::uint64_t mark = 0;      ///< == epoch_ once visited
    std::uint64_t deferred = 0;  ///< == epoch_ once queued as a boundary
    std::uint32_t local = 0;     ///< index in locals_ (visited), or in boundary_ (deferred)
    /// Incremental updates of the channel's load since it was last summed exactly (flow by
    /// flow); kExactSum once flows joined or left it: its next boundary visit re-sums it.
    std::uint32_t drift = 0;
    std::uint32_t scan_start = 0;  ///< set_.size() when visit scanned it (kNone once stale)
    /// At its last boundary visit every flow on it was a member: summed flow by flow next time
    /// (the scan then reads only lines the solve loads anyway; on the cloud mix recording the
    /// crossings cost ~5%).
    bool dense = false;
    double level = 0.0;  ///< the lowest rate visit took in (local level or threshold)
    /// Can never saturate (flow_slack.cpp): left out of the solve; its rates and load in
    /// Channel are stale until it can bind again.
    bool idle = false;
    /// Index in uniform_ while the channel's flows are kept as one (flow_uniform.cpp), or ~0.
    std::uint32_t uniform = ~std::uint32_t{0};
  };

  /// The smallest and largest of a multiset of caps (kInf and 0.0 when empty) and how many
  /// elements equal each.
  struct CapRange {
    double min_cap = std::numeric_limits<double>::infinity();
    double max_cap = 0.0;
    std::uint32_t at_min = 0;
    std::uint32_t at_max = 0;
    void add(double c) {
      if (c < min_cap) {
        min_cap = c;
        at_min = 1;
      } else if (c == min_cap) {
        ++at_min;
      }
      if (c > max_cap) {
        max_cap = c;
        at_max = 1;
      } else if (c == max_cap) {
        ++at_max;
      }
    }
  };

  /// A saturated channel whose flows all cross no other channel that is not idle and share one
  /// rate (flow_uniform.cpp): their committed rate, progress and finish times are kept here, once,
  /// and their FlowHot::rate, Flow::remaining and last_update, the channel's rates[] and load, and
  /// every completion entry but the earliest one's are stale until the channel leaves the mode.
  /// Members are ch.flows[0, m), m = remaining.size() (flows attached later are not members).
  struct Uniform {
    ChannelId channel = 0;
    bool active = false;
    double rate = 0.0;              ///< the members' committed rate (bits/s)
    Time since;                     ///< when it was committed: every member's last_update
    std::vector<double> remaining;  ///< per member: bytes left as of `since`
    std::vector<double> caps;       ///< per member: FlowHot::cap
    /// The members' smallest and largest caps and how many members have each, kept as members
    /// join and leave, so that a start or a finish does not scan `caps` for them (caps are > 0
    /// and never NaN, so the extremes do not depend on the order they are taken in).
    CapRange range;
    /// The commit took the block [sequence, sequence + block): member k took
    /// sequence + (k + rotation) % m (the commit's order: new flows first).
    std::uint64_t sequence = 0;
    std::uint64_t block = 0;
    std::uint32_t rotation = 0;
    std::uint32_t winner = ~std::uint32_t{0};  ///< the member whose completion entry is kept
    /// The least of `remaining` as crown_uniform last took it, and how many members have it (0:
    /// not counted): a commit at the same instant, when nothing advanced, starts from it rather
    /// than scanning for the least (cloud: most finishes are a burst's members finishing in one
    /// nanosecond).
    double least = 0.0;
    std::uint32_t at_least = 0;
  };
  /// Reports the uniform channels' blocks of sequence numbers when the queue renumbers.
  struct UniformBlocks final : SequenceHolder {
    FlowNetwork* net = nullptr;
    void held_sequences(std::vector<std::uint64_t>& out) const override;
    void renumber_sequences(const std::vector<std::uint64_t>& sorted) override;
  };

  /// `route`'s buffers are swapped with the slot's (the caller gets back cleared buffers to
  /// reuse); the `receivers` delivery latencies are copied into the slot's reused buffer.
  FlowHandle launch(Route& route, const Time* delivery_latency, std::size_t receivers, double bytes,
                    double cap, std::function<void(std::size_t)> on_delivered,
                    std::function<void()> on_done = nullptr);
  [[nodiscard]] const Flow* lookup(FlowHandle h) const;
  void attach(std::uint32_t slot);
  void detach(std::uint32_t slot);
  void advance(std::uint32_t slot);
  /// Bytes the transferring flow in `slot` still has to send now (what advance would leave),
  /// without updating it.
  [[nodiscard]] double remaining_now(std::uint32_t slot) const;
  void schedule_completion(std::uint32_t slot);
  /// schedule_completion's arithmetic: false when the flow never finishes (no entry). It is that
  /// of the event per flow the completion heap replaced, so the finish time is the same to the
  /// nanosecond.
  [[nodiscard]] static bool finish_time(double remaining, double rate, Time now, Time& t) {
    if (!(rate > 0.0)) return false;  // stalled: cannot happen with positive capacities
    const double secs = (remaining <= 0.0 || std::isinf(rate)) ? 0.0 : remaining * 8.0 / rate;
    if (secs > 9.0e9) return false;  // beyond ~285 years of simulated time: never finishes
    t = now + ceil_seconds(secs);
    return true;
  }
  void complete(std::uint32_t slot);
  void deliver(std::uint32_t slot, std::size_t receiver);
  void release(std::uint32_t slot);
  /// Detaches a transferring flow with links and re-solves (or defers that to the batch end).
  void depart(std::uint32_t slot);
  void check_batch_time() const;
  // Channels that can never saturate (flow_slack.cpp).
  [[nodiscard]] static bool never_binds(const Channel& ch) {
    return never_binds(ch, ch.potential, ch.unbounded);
  }
  /// Whether the channel would never bind with this potential and count of unbounded crossings:
  /// never_binds(capacity, ...), from Channel::idle_below where that decides (set_idle_limit).
  [[nodiscard]] static bool never_binds(const Channel& ch, std::uint64_t potential,
                                        std::uint32_t unbounded) {
    if (unbounded != 0) return false;
    if (potential < ch.idle_below) return true;
    return ch.idle_in_doubles && never_binds(ch.capacity, potential, unbounded);
  }
  [[nodiscard]] static bool never_binds(double capacity, std::uint64_t potential,
                                        std::uint32_t unbounded);
  /// Sets ch.idle_below and ch.idle_in_doubles from ch.capacity.
  static void set_idle_limit(Channel& ch);
  /// The flow's rate bound in whole bit/s, rounded up; false when it has none (flow_slack.cpp).
  bool rate_bound(const FlowHot& h, std::uint64_t& units) const;
  void wake(ChannelId c);
  void settle_idle();
  void visit_idle(ChannelId c, double threshold, bool prune);
  /// Levels of progressive filling below which a change alters nothing (docs/network.md "Rate
  /// allocation"): flows with lower rates keep them. +inf when nothing but the flow itself
  /// changes. arrival_level: `slot` is attached, not yet solved; departure_level: still attached.
  [[nodiscard]] double arrival_level(const ChannelId* channels, std::size_t count);
  [[nodiscard]] double departure_level(std::uint32_t slot) const;
  /// Re-solves the flows with rate >= threshold connected to the seed channels (plus the new
  /// flows `added`), with every other flow held at its rate, and commits the changed rates.
  /// `prune`: stop the search at unsaturated channels, take from each saturated channel only the
  /// flows at its highest rate (or above the threshold, if higher), and verify afterwards.
  void resolve(const ChannelId* seeds, std::size_t seed_count, double threshold,
               const std::uint32_t* added, std::size_t added_count, bool prune);
  void visit(ChannelId c, double threshold, bool prune);
  /// A channel's flows split into members (flows of the set, appended to members_) and held
  /// ones: the held load, its largest rate (if kWithMax) and the members' caps.
  struct MemberSums {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    double outside = 0.0;
    double outside_max = 0.0;
    double caps = 0.0;
    bool dense = false;  // every flow on the channel is a member
  };
  template <bool kWithMax>
  MemberSums scan_members(const Channel& ch);
  void rebuild_local(ChannelId c);
  void visit_boundary(ChannelId c, std::uint32_t begin, std::uint32_t end);
  void gather_boundary_members();
  void visit_boundary_exact(ChannelId c);
  void reserve_members(std::size_t n);
  void add_local(ChannelId c, double outside, double outside_max, double capacity, double caps,
                 std::uint32_t begin, std::uint32_t end, bool boundary, bool exact);
  [[nodiscard]] bool boundary_holds(bool& prune);
  void fill();
  /// Calls f(k) for every crossing k of h whose channel is not idle, in route order: from
  /// FlowHot::live (kept by set_live when channels wake or sleep) for short routes, so that the
  /// solver's walks over a flow's channels skip idle ones without reading their marks (cloud: 4
  /// of a flow's 5 channels).
  template <class F>
  void for_each_live(const FlowHot& h, F&& f) const {
    if (h.channel_count <= kLiveBits) {
      for (unsigned m = h.live; m != 0; m &= m - 1)
        f(static_cast<std::uint32_t>(std::countr_zero(m)));
      return;
    }
    for (std::uint32_t k = 0; k < h.channel_count; ++k) {
      if (!channel_marks_[h.channels[k]].idle) f(k);
    }
  }
  void set_live(ChannelId c, bool live);
  // Uniform channels (flow_uniform.cpp).
  /// The uniform_ index of the channel whose member `slot` is (and its index there), or ~0.
  [[nodiscard]] std::uint32_t uniform_member(std::uint32_t slot, std::uint32_t& index) const;
  [[nodiscard]] double committed_rate(std::uint32_t slot) const;
  /// Writes a member's rate and progress back into its FlowHot and Flow (the channel stays).
  void materialize_member(std::uint32_t slot);
  /// Leaves the mode: every member's rate, progress and completion entry (but `skip`'s
  /// progress and entry), the channel's rates[] and load, as the per-flow commits would have.
  void exit_uniform(std::uint32_t index, std::uint32_t skip);
  void exit_uniform_on(const ChannelId* channels, std::size_t count, std::uint32_t skip);
  void exit_all_uniform();
  [[nodiscard]] bool uniform_saturated(const Uniform& u) const;
  /// The recomputation after the starts `added` (attached, all on one uniform channel and on no
  /// other channel that is not idle) or the departure of member `slot`, done on the channel's
  /// record; false (nothing changed) where the per-flow solve would not re-rate every member to
  /// the channel's new share.
  bool try_uniform_start(const std::uint32_t* added, std::size_t count);
  bool try_uniform_depart(std::uint32_t slot);
  /// The recomputation after the starts `added` (attached, all on one channel they alone cross,
  /// and on no other channel that is not idle) when the per-flow solve would give them one rate
  /// and the channel would enter the mode: the channel enters it directly. False (nothing
  /// changed) otherwise.
  bool try_uniform_fresh(const std::uint32_t* added, std::size_t count);
  /// The departure of a uniform channel's only member: what the per-flow solve does (the channel
  /// leaves the mode, is left empty and goes idle), without the solve.
  void depart_last_member(std::uint32_t index, std::uint32_t slot);
  /// A free Uniform record (reused or appended) made active for channel `c` at `rate` since now,
  /// with no members and `range`; returns its index. The caller adds the members and the block.
  std::uint32_t open_uniform(ChannelId c, double rate, const CapRange& range);
  void recommit_uniform(Uniform& u, double rate, const std::uint32_t* added, std::size_t count);
  /// Gives the earliest member (Uniform::winner) its completion entry.
  void crown_uniform(Uniform& u, double least);
  [[nodiscard]] static double least_remaining(const Uniform& u);
  void try_enter_uniform();
  bool fill_single(double min_cap, std::size_t& unfrozen);
  void commit();

  Simulation& sim_;
  const Topology& topology_;
  RouteTable routes_;
  Route route_scratch_;  ///< start()'s route, reused across flows (routing allocates nothing)
  std::vector<Flow> flows_;
  std::vector<FlowHot> hot_;  ///< parallel to flows_
  /// Parallel to flows_: a flow's index in each channel's flow list when its route fits
  /// inline (FlowHot::inline_channels), else Flow::pos holds them (see pos_of). Kept apart from
  /// Flow so that a commit's or a swap-remove's position update touches 16 bytes per flow.
  std::vector<std::array<std::uint32_t, kInlineChannels>> pos_;
  std::uint32_t* pos_of(std::uint32_t slot) {
    return hot_[slot].channel_count <= kInlineChannels ? pos_[slot].data()
                                                       : flows_[slot].pos.data();
  }
  const std::uint32_t* pos_of(std::uint32_t slot) const {
    return hot_[slot].channel_count <= kInlineChannels ? pos_[slot].data()
                                                       : flows_[slot].pos.data();
  }
  std::vector<std::uint32_t> free_slots_;
  CompletionHeap completions_;  ///< finish times of the transferring flows, by slot
  std::vector<Channel> channels_;
  std::vector<ChannelMark> channel_marks_;  ///< parallel to channels_
  std::uint64_t next_serial_ = 1;
  std::size_t active_count_ = 0;
  FlowNetworkStats stats_;

  // Batching.
  int batch_depth_ = 0;
  Time batch_time_;
  std::vector<ChannelId> dirty_;            ///< channels whose membership changed inside the batch
  std::vector<std::uint32_t> batch_added_;  ///< flows started inside the batch (with links)
  std::size_t batch_departures_ = 0;        ///< finishes and cancels inside the batch

  // Solver scratch (kept to avoid reallocating on every event).
  std::uint64_t epoch_ = 0;          ///< one per solve pass
  std::uint64_t resolve_id_ = 0;     ///< one per recomputation (which may take several passes)
  std::vector<ChannelId> boundary_;  ///< unsaturated channels reached, not expanded
  bool local_levels_ = false;        ///< this pass takes local levels (see resolve)
  std::vector<ChannelId> stale_;     ///< expanded channels that held a flow that joined later
  std::vector<ChannelId> settling_;  ///< channels that may turn idle once re-solved
  bool leave_out_idle_ = true;       ///< see keep_all_channels
  /// A re-solved flow's crossing of a boundary channel, recorded by the search (so that a
  /// boundary channel's members are found without scanning its flows): a list per channel.
  struct Crossing {
    std::uint32_t next;  ///< the channel's previous crossing (index in crossings_), or kNone
    std::uint32_t slot;
  };
  std::vector<Crossing> crossings_;
  struct BoundaryList {
    std::uint32_t head;   ///< latest crossing (index in crossings_), or kNone
    std::uint32_t count;  ///< crossings
  };
  std::vector<BoundaryList> boundary_lists_;  ///< per boundary_ entry
  std::vector<std::uint32_t> set_;            ///< the flows being re-solved (slots), in visit order
  std::size_t expanded_ = 0;  ///< set_[0, expanded_) have had their channels visited
  struct Local {
    ChannelId channel;
    double outside;        ///< load of the flows not being re-solved (held at their rates)
    double outside_max;    ///< highest rate among them
    double remaining;      ///< capacity left during filling
    double caps;           ///< sum of the members' caps (+inf if one is uncapped)
    double level;          ///< level at which the channel saturated in the fill; -1 if it did not
    std::uint32_t weight;  ///< unfrozen crossings
    std::uint32_t members_begin, members_end;  ///< into members_
    bool boundary;  ///< unsaturated before the change: flows behind it were not added
    bool exact;     ///< outside summed flow by flow (else the load less the members' rates)
    bool fits;      ///< the held load plus every member at its cap stays unsaturated
  };
  std::vector<Local> locals_;
  std::vector<std::uint32_t> members_;  ///< per local channel, its re-solved crossings
  std::size_t members_size_ = 0;        ///< members_[0, members_size_) in use (see reserve_members)
  struct HeapEntry {
    double share;         ///< a lower bound of the channel's current fair share, or a cap
    std::uint32_t local;  ///< index in locals_, or a flow slot (cap heap)
  };
  std::vector<HeapEntry> share_heap_;  ///< min-heap of channel fair shares (lazy keys)
  std::vector<HeapEntry> cap_heap_;    ///< min-heap of (cap, slot) of unfrozen capped flows
  std::vector<double> level_scratch_;

  // Uniform channels (flow_uniform.cpp).
  bool uniform_enabled_ = true;
  std::vector<Uniform> uniform_;
  std::size_t uniform_count_ = 0;
  UniformBlocks uniform_blocks_;
  bool renumbered_ = false;                  ///< the queue renumbered since the last commit began
  std::uint64_t commit_first_sequence_ = 0;  ///< the queue's next number as the last commit began
};

}  // namespace sim::net
