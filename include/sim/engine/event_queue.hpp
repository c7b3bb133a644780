#pragma once
/// The pending-event set: a ladder queue (Tang, Goh & Thng, "Ladder Queue: An O(1) Priority
/// Queue Structure for Large-Scale Discrete Event Simulation", ACM TOMACS 15(3), 2005) whose
/// entries are exact keys (time, phase, insertion sequence).
///
/// The total order follows OMNeT++ and SST: events at equal times run by phase, then in the
/// order they were scheduled, so a run is a pure function of its inputs. Cancelling is O(1)
/// (as ns-3's EventId::Cancel): the callback is released at once and the stale entry is
/// dropped when the queue next touches it.
///
/// Structure (all O(1) amortised per event, whatever the distribution of times):
///   - an entry is one 128-bit key: time (64 bits) | phase (2) | sequence (38) | slot (24), so
///     comparing two events is one integer comparison;
///   - Top: an unsorted vector of the far-future events (time >= top_start_);
///   - rungs: arrays of buckets of width 2^shift ns, spawned on demand; rung 0 is built from
///     Top (width from Top's time span / count, times kSpread; reaching kTopReach times Top's
///     span), a bucket holding more than kThresh events is split into a finer child rung of
///     buckets of ~16-32 events when it is reached, a smaller one is sorted into Bottom by a
///     counting sort on time and an insertion sort;
///   - Bottom: the near-future events, sorted by full key (exact order, FIFO among equal
///     times); it is refilled from the lowest non-empty bucket of the last rung. A Bottom that
///     grows by insertions is turned into a rung again, so inserting stays cheap.
///   Bucket routing uses only the time, so all events of one time share a bucket and the full
///   key decides their order once the bucket is sorted into Bottom.
///   Stale (cancelled) entries are dropped when they reach Bottom's front, or by a purge once
///   they outnumber live ones by 2x + 1024 (so schedule+cancel cannot grow memory unboundedly).
///   - callbacks (EventCallback, built in place) live in a slot table beside the queue, one
///     cache line per slot, reused through a free list threaded through the free slots.
/// Memory access (at N = 1e5 the slots, buckets and chunks are far larger than the L2 cache,
/// and cache misses, not instructions, decide the speed):
///   - a bucket is a list of 128-byte chunks of seven keys; the number of keys in its first
///     chunk is kept beside its head, so adding a key is a store that waits for no load;
///   - a key bound for a rung is staged (kStaged at a time) with its bucket's line prefetched,
///     and added when the stage is full, so the bucket misses overlap (staged keys are all
///     later than Bottom, so Bottom's front stays exact; the stage is flushed before any
///     bucket is read);
///   - after each refill of Bottom, its events' slots are prefetched together, and the next
///     non-empty bucket's chunk list is walked one link every fourth pop (so that a link is
///     read at least one memory latency after its prefetch) with each chunk and its keys' slots
///     prefetched, so the next refill finds its chunks and slots in cache.
/// Limits: at most 2^24 (16.7 million) events pending at once; when the 38-bit sequence
/// counter runs out (after 2.7e11 events) the pending events (and the numbers reserved by
/// registered SequenceHolders) are renumbered in their current order, which keeps every
/// ordering guarantee.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/engine/event_callback.hpp"
#include "sim/engine/time.hpp"

namespace sim {

/// Phases order events that share a time; lower runs first. Most events use kDefault.
enum class EventPhase : std::uint8_t { kEarly = 0, kDefault = 1, kLate = 2 };

class EventQueue;

/// Something outside the queue that keeps sequence numbers from EventQueue::take_sequence for
/// events it will push later (push_reserved). When the queue renumbers (its sequence counter ran
/// out), it renumbers the held numbers with its own, keeping their order; so a holder registers
/// with EventQueue::add_holder for as long as it holds any.
class SequenceHolder {
 public:
  /// Appends every sequence number held now.
  virtual void held_sequences(std::vector<std::uint64_t>& out) const = 0;
  /// Replaces each held number s by `renumbered[index of s in sorted]`, in effect: `sorted` is
  /// the ascending list of old numbers (held ones included) and a number's new value is its
  /// index there. Use EventQueue::renumbered_sequence(sorted, s).
  virtual void renumber_sequences(const std::vector<std::uint64_t>& sorted) = 0;

 protected:
  ~SequenceHolder() = default;
};

/// Refers to one scheduled event. Copyable; stays valid (and harmless) after the event ran.
class EventHandle {
 public:
  EventHandle() = default;
  /// Cancels the event if it is still pending. Returns whether it was.
  bool cancel();
  /// True while the event is scheduled and not yet run or cancelled.
  [[nodiscard]] bool pending() const;
  [[nodiscard]] bool valid() const { return queue_ != nullptr; }

 private:
  friend class EventQueue;
  EventHandle(EventQueue* q, std::uint32_t slot, std::uint32_t generation)
      : queue_(q), slot_(slot), generation_(generation) {}
  EventQueue* queue_ = nullptr;
  std::uint32_t slot_ = 0;
  std::uint32_t generation_ = 0;
};

class EventQueue {
 public:
  EventQueue();
  /// For tests of sequence renumbering: a counter of `sequence_bits` (2..38) bits.
  explicit EventQueue(int sequence_bits);
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  /// Schedules `fn` (any void() callable, e.g. a lambda or an EventCallback) at t >= 0.
  /// Throws std::invalid_argument for a negative time or an empty callable (a null pointer, an
  /// empty std::function) and std::length_error beyond 2^24 pending events. The callable is
  /// built directly in its slot.
  template <class F>
  EventHandle push(Time t, F&& fn, EventPhase phase = EventPhase::kDefault) {
    const std::uint32_t slot = store_callback(t, std::forward<F>(fn));
    commit_sequence(t, slot, phase, take_sequence());
    return handle(slot);
  }
  bool cancel(const EventHandle& h);
  [[nodiscard]] bool is_pending(const EventHandle& h) const;

  /// The sequence number a push made now would take, taken now (the counter moves on). An event
  /// pushed later with push_reserved(t, that number) runs exactly where the push made now would
  /// have: events at equal times run in sequence order. This lets a component keep many
  /// would-be events in its own structure and only the earliest in the queue (the flow network
  /// keeps its completions so). Holders of such numbers must be registered (add_holder).
  std::uint64_t take_sequence() {
    if (next_sequence_ >> sequence_bits_ != 0) renumber();
    return next_sequence_++;
  }
  /// The number take_sequence() would return now (unless it renumbers first).
  [[nodiscard]] std::uint64_t next_sequence() const { return next_sequence_; }
  /// Whether `n` >= 1 numbers can be taken now without renumbering.
  [[nodiscard]] bool sequences_left(std::uint64_t n) const {
    return (next_sequence_ + n - 1) >> sequence_bits_ == 0;
  }
  /// `n` >= 1 consecutive numbers, taken now: the first is returned. Like n take_sequence()
  /// calls, except that a renumbering (if the counter runs out) happens before the first, so that
  /// the block stays consecutive (a holder must then report all n).
  std::uint64_t take_sequences(std::uint64_t n) {
    if ((next_sequence_ + n - 1) >> sequence_bits_ != 0) renumber();
    const std::uint64_t first = next_sequence_;
    next_sequence_ += n;
    return first;
  }
  /// Schedules `fn` at t >= 0 with a sequence number from take_sequence() (not used by a pending
  /// event). Otherwise like push.
  template <class F>
  EventHandle push_reserved(Time t, std::uint64_t sequence, F&& fn,
                            EventPhase phase = EventPhase::kDefault) {
    const std::uint32_t slot = store_callback(t, std::forward<F>(fn));
    commit_sequence(t, slot, phase, sequence);
    return handle(slot);
  }
  /// Registers / unregisters a holder of reserved sequence numbers (not owned).
  /// Whether every pending event comes after one at `t` in `phase` numbered `sequence`: pushed
  /// now, that event would be the next to run. False also when that is not known without
  /// settling the queue (nothing in Bottom but events pending). Bottom's keys are before every
  /// rung's and Top's (each rung holds times from its consumed part on, Bottom those before), so
  /// its first key, even a cancelled one, bounds all of them.
  [[nodiscard]] bool next_is_after(Time t, EventPhase phase, std::uint64_t sequence) const {
    if (live_ == 0) return true;
    if (bottom_head_ == bottom_.size()) return false;
    const Key bound = (static_cast<Key>(static_cast<std::uint64_t>(t.ns())) << 64) |
                      (static_cast<std::uint64_t>(phase) << kPhaseShift) | (sequence << kSlotBits) |
                      kSlotMask;
    return bottom_[bottom_head_] > bound;
  }
  void add_holder(SequenceHolder* holder);
  void remove_holder(SequenceHolder* holder);
  /// The new number of old sequence number `s` in a renumbering (see SequenceHolder).
  [[nodiscard]] static std::uint64_t renumbered_sequence(const std::vector<std::uint64_t>& sorted,
                                                         std::uint64_t s);

  /// Number of live (not cancelled) events.
  [[nodiscard]] std::size_t size() const { return live_; }
  [[nodiscard]] bool empty() const { return live_ == 0; }

  /// Time of the earliest live event; Time::max() when there is none.
  [[nodiscard]] Time next_time();

  struct Popped {
    Time time;
    EventCallback fn;
  };
  /// Removes the earliest live event and returns its time and callback. Precondition: !empty().
  Popped pop();
  /// Removes the earliest live event if its time is <= limit; returns whether it did. Inline
  /// (below): the run loop calls it once per event.
  bool pop_until(Time limit, Popped& out);

  void reserve(std::size_t n);

  /// Introspection for tests: stored entries including stale (cancelled) ones, and the number
  /// of rungs currently in use (0..kMaxRungs).
  [[nodiscard]] std::size_t stored_entries() const { return entries_; }
  [[nodiscard]] std::size_t rung_count() const { return rung_count_; }
  /// How many times a rung was spawned (from Top, a bucket or Bottom) since construction.
  [[nodiscard]] std::uint64_t rungs_spawned() const { return rungs_spawned_; }

  /// A bucket with more events than this is split into a child rung (Tang et al.: THRESH);
  /// smaller ones are sorted into Bottom (sort_bottom). Tang et al. use 50, with buckets of
  /// about one event; here buckets are kSpread times wider (see there), so they hold hundreds.
  static constexpr std::size_t kThresh = 1024;
  /// Rung 0 spreads Top over buckets of about kSpread events each (Tang et al.: one), so that
  /// the buckets being filled are few: at N = 1e5 pending events ~3,000 buckets instead of
  /// ~100,000, whose heads and last chunks stay in cache, where one bucket per event made each
  /// insertion miss twice (bucket, chunk). The bucket then holds ~15 x kSpread (~480) events when
  /// it reaches Bottom and is sorted in cache (sort_bottom). Measured 2026-11-27 at N = 1e5
  /// (hold model, load 13-17, M events/s): kSpread 1 ~10; 16 14.5-15.6; 32 13.4-15.9; 64
  /// 8.0-9.6 (buckets of ~1,000 then often exceed kThresh and split; 14-16 with kThresh
  /// 8192); 128 10-14 and 256 ~8 (kThresh 100,000). kThresh is twice the usual bucket.
  static constexpr std::size_t kSpread = 32;
  /// Rung 0 spans this many times Top's span when it is spawned (Tang et al.: once), so that
  /// fewer events pass through Top (see spawn_from_top). Measured 2026-11-27 (session 17) at
  /// N = 1e5 (hold model with the SimPy draw, 3 interleaved pairs, load ~3, M events/s): once
  /// 38.0-39.2, twice 39.6-39.9 (+3.3%), four times 38.6-40.2 (+1.4% over twice, within noise).
  /// Twice alone made the cancelling hold model at N = 1e5 20% slower: after a purge, Top
  /// holds live events only, so rung 0's buckets are twice too wide once the stale entries
  /// come back, exceed kThresh and were split into child rungs of ~1 event per bucket, now for
  /// twice as long. Child rungs of ~16-32 events per bucket (refill_bottom) remove that: the
  /// cancelling variants became 3-9% faster at N = 1e5 and 50-58% at N = 1e6.
  static constexpr std::size_t kTopReach = 2;
  /// Rungs at most (Tang et al. use 8); the last rung's buckets go to Bottom whatever their size.
  static constexpr std::size_t kMaxRungs = 8;

 private:
  __extension__ using Key = unsigned __int128;

  /// One cache line per pending event: popping reads the tail (is the entry stale?) and moves
  /// the callback out, one miss at most.
  struct alignas(64) Slot {
    /// The low 64 bits of the key of the event held. A free slot has phase bits 3 (which no
    /// key has, so every entry naming it is stale) and the next free slot in the low 32 bits.
    std::uint64_t tail = std::uint64_t{3} << 62;
    std::uint32_t generation = 0;  // bumped whenever the slot is released
    EventCallback fn;
  };

  static constexpr std::uint32_t kNoChunk = ~std::uint32_t{0};

  /// Seven keys and a link on two adjacent cache lines: a bucket is a list of chunks, so adding
  /// an event touches the bucket's head and one chunk (a vector per bucket would touch two
  /// lines far apart and reallocate). The order of keys in a bucket does not matter: it is
  /// sorted when it moves to Bottom. Why seven: a bucket reached by the hold model at N = 1e5
  /// holds ~15 events, so the look-ahead walk (a chain of dependent loads, one per chunk)
  /// takes 3 links instead of 5 with three-key chunks; both lines of a chunk are prefetched
  /// together. Measured 2026-11-26: 9.4-9.9 -> 10.1-11.0 M events/s (interleaved).
  static constexpr std::uint32_t kChunkKeys = 7;
  struct alignas(128) Chunk {
    Key keys[kChunkKeys] = {};
    std::uint32_t next = kNoChunk;
  };
  static_assert(sizeof(Chunk) == 128);
  static constexpr std::size_t kLine = 64;
  /// Requests both cache lines of chunk c.
  void prefetch_chunk(std::uint32_t c) const {
    const char* p = reinterpret_cast<const char*>(&chunks_[c]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + kLine);
  }

  /// A bucket's first chunk and how many keys it holds (the chunks after it are full). The
  /// count lives here rather than in the chunk, so that adding an event only stores to the
  /// chunk: its address does not wait for the chunk's line to arrive. An empty bucket is
  /// {kNoChunk, kChunkKeys}, so that "no room in the first chunk" is one test.
  struct Bucket {
    std::uint32_t head = kNoChunk;
    std::uint32_t fill = kChunkKeys;
  };

  /// Buckets [cur, nbuckets) of width 2^shift ns starting at `start`; buckets before `cur`
  /// were consumed. The bucket vector is reused.
  struct Rung {
    std::vector<Bucket> buckets;
    std::size_t nbuckets = 0;
    std::uint64_t start = 0;
    int shift = 0;
    std::size_t cur = 0;
    std::size_t count = 0;  // entries in buckets [cur, nbuckets), stale ones included
    /// Start time of the first unconsumed bucket (start + cur * 2^shift): the rung holds
    /// times in [lo, end).
    std::uint64_t lo = 0;
    void advance() {
      ++cur;
      lo += std::uint64_t{1} << shift;
    }
  };

  static constexpr int kSlotBits = 24;

  [[noreturn]] static void throw_negative_time(Time t);
  [[noreturn]] static void throw_empty_callback();
  /// Empties `fn` (out of line: rare, and keeps pop_until small enough to be inlined).
  [[gnu::noinline]] static void drop(EventCallback& fn) noexcept;
  /// Takes a free slot (growing the table if none is free); its callback is empty. Inline:
  /// it is on the path of every push.
  std::uint32_t acquire_slot() {
    const std::uint32_t slot = free_slot_;
    if (slot == ~std::uint32_t{0}) [[unlikely]]
      return grow_slots();
    free_slot_ = static_cast<std::uint32_t>(slots_[slot].tail);
    return slot;
  }
  /// acquire_slot when no slot is free: a new one at the end of the table.
  std::uint32_t grow_slots();
  /// push and push_reserved: checks t, builds the callable in a free slot and returns the slot
  /// (released again if the callable throws or is empty).
  template <class F>
  std::uint32_t store_callback(Time t, F&& fn) {
    if (t < Time::zero()) throw_negative_time(t);
    const std::uint32_t slot = acquire_slot();
    EventCallback& cb = slots_[slot].fn;
    try {
      cb.assign_empty(std::forward<F>(fn));  // a free slot's callback is empty
    } catch (...) {
      release_slot(slot);
      throw;
    }
    // Only a pointer or a std::function / EventCallback can be empty; a lambda cannot.
    if constexpr (EventCallback::kMayBeEmpty<F>) {
      if (!cb) {
        release_slot(slot);
        throw_empty_callback();
      }
    }
    return slot;
  }
  /// Enqueues the event whose callback is already in `slot`. The handle is made by the inline
  /// caller (handle()), so that a caller that drops it (as most do) does not pay for it.
  /// Measured 2026-11-27 with the slot changes beside it (the callable built without a reset,
  /// no emptiness test for lambdas, the move out of the slot without a second reset): hold
  /// model N = 1e5, 39.4 -> 40.9 M events/s (medians of 5 interleaved runs).
  void commit_sequence(Time t, std::uint32_t slot, EventPhase phase, std::uint64_t sequence);
  [[nodiscard]] EventHandle handle(std::uint32_t slot) {
    return {this, slot, slots_[slot].generation};
  }
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  static constexpr int kPhaseShift = 62;  ///< a tail's top two bits: the event's phase
  /// Phase bits 3 (no event's phase) mark a free slot's tail.
  static constexpr std::uint64_t kFreeTail = std::uint64_t{3} << kPhaseShift;
  [[nodiscard]] bool is_stale(Key k) const {
    const auto tail = static_cast<std::uint64_t>(k);
    return slots_[tail & kSlotMask].tail != tail;  // a free slot's tail matches no key
  }
  void add_to_bucket(Bucket& bucket, Key k);
  void bucket_add(Rung& r, std::size_t b, Key k);
  /// Adds the staged keys to their buckets (before anything reads or moves buckets).
  void flush_staged();
  /// Copies bucket b's keys to sort_scratch_[0, n) (grown as needed), counting them into
  /// 2^bin_bits time bins in bin_ends_[1..] for sort_bottom (none if bin_bits is 0), frees
  /// its chunks, empties it and returns n.
  std::size_t bucket_take(Rung& r, std::size_t b, int bin_bits);
  /// Frees the slot (its callback destroyed, old handles no longer matching) for reuse.
  void release_slot(std::uint32_t slot) {
    Slot& s = slots_[slot];
    s.fn = nullptr;
    free_emptied_slot(s, slot);
  }
  /// release_slot for a slot whose callback was moved out (so is empty already).
  void free_emptied_slot(Slot& s, std::uint32_t slot) {
    s.tail = kFreeTail | free_slot_;
    ++s.generation;
    free_slot_ = slot;
  }
  [[gnu::always_inline]] inline void insert(Key k);
  /// insert when the key does not go to rung 0: Top, a later rung or Bottom.
  [[gnu::noinline]] void insert_other(Key k);
  /// Stages key k (time t) for its bucket of rung r.
  inline void stage(Rung& r, std::uint64_t t, Key k);
  void insert_bottom(Key k);
  /// Makes Bottom non-empty with a live front entry if any live event exists; false otherwise.
  bool settle_front();
  bool refill_bottom();
  void start_look_ahead(const Rung& r);
  /// Sorts sort_scratch_[0, n) (a bucket's keys, all with times in [start, start + 2^shift))
  /// into Bottom by full key: a counting sort into about n bins by time, then an insertion sort
  /// (keys move only within their bin), or std::sort when that moves keys too often. The
  /// keys were counted into 2^counted_bits bins by bucket_take (recounted if far from n).
  void sort_bottom(std::size_t n, std::uint64_t start, int shift, int counted_bits);
  void step_look_ahead();
  Rung& open_rung(std::uint64_t start, int shift, std::size_t nbuckets);
  void spawn_from_top();
  void spawn_from_bottom();
  /// Replaces the whole structure by the given live keys, all in Top.
  void rebuild(std::vector<Key>& keys);
  /// Flushes the staged keys first.
  [[nodiscard]] std::vector<Key> live_keys();
  void renumber();

  std::vector<Slot> slots_;
  std::uint32_t free_slot_ = ~std::uint32_t{0};  // first free slot, linked through Slot::tail

  std::vector<Chunk> chunks_;
  std::uint32_t free_chunk_ = kNoChunk;  // free chunks linked through Chunk::next
  /// Keys bound for rung buckets whose lines were prefetched; counted in their rung already.
  struct Staged {
    Bucket* bucket;
    Key key;
  };
  /// Measured 2026-11-27 (session 17, N = 1e5): 4 and 16 within noise of 8; no staging (a
  /// direct add) 12% slower; requesting the chunk lines too, in a first pass of the flush,
  /// 1.6% slower.
  static constexpr std::size_t kStaged = 8;
  Staged staged_[kStaged] = {};
  std::size_t staged_count_ = 0;
  /// A chunk of the bucket expected to be refilled next, being prefetched link by link.
  std::uint32_t look_ahead_ = kNoChunk;

  std::vector<Key> top_;
  std::uint64_t top_min_ = ~std::uint64_t{0};
  std::uint64_t top_max_ = 0;
  std::uint64_t top_start_ = 0;  // events at or after this time go to Top
  std::vector<Rung> rungs_;      // kMaxRungs objects; the first rung_count_ are in use
  std::size_t rung_count_ = 0;
  std::vector<Key> bottom_;              // sorted ascending from bottom_head_
  std::vector<std::uint32_t> bin_ends_;  // sort_bottom's bin boundaries
  std::vector<Key> sort_scratch_;        // a bucket's keys on their way to Bottom
  std::size_t bottom_head_ = 0;
  std::size_t bottom_fill_ = 0;  // Bottom's size after its last refill

  int sequence_bits_ = 38;
  std::uint64_t next_sequence_ = 0;
  std::size_t live_ = 0;
  std::size_t entries_ = 0;  // keys stored anywhere, stale included
  std::uint64_t rungs_spawned_ = 0;
  std::vector<SequenceHolder*> holders_;
};

inline bool EventQueue::pop_until(Time limit, Popped& out) {
  // A callable left in `out` with a destructor to run is destroyed before the next event is
  // chosen and before a reference into the slot table is taken: the destructor may schedule
  // events (the run loop destroys its callbacks itself; this is for other callers).
  if (out.fn.needs_destroy()) [[unlikely]]
    drop(out.fn);
  // Usually Bottom's front is live: settle_front only when it is not.
  if (bottom_head_ == bottom_.size() || is_stale(bottom_[bottom_head_])) {
    if (!settle_front()) return false;
  }
  const Key top = bottom_[bottom_head_];
  const auto time = static_cast<std::int64_t>(static_cast<std::uint64_t>(top >> 64));
  if (time > limit.ns()) return false;
  ++bottom_head_;
  --entries_;
  const auto slot = static_cast<std::uint32_t>(static_cast<std::uint64_t>(top) & kSlotMask);
  out.time = Time::from_ns(time);
  Slot& s = slots_[slot];
  out.fn.assign_empty(std::move(s.fn));  // leaves s.fn empty
  free_emptied_slot(s, slot);
  --live_;
  // The next event's callback, while this one runs: its slot is in cache (Bottom's slots are
  // prefetched at each refill), the object it starts on usually not (a large platform's
  // execution units and queues).
  if (bottom_head_ < bottom_.size()) {
    const std::uint64_t next = static_cast<std::uint64_t>(bottom_[bottom_head_]) & kSlotMask;
    slots_[next].fn.prefetch_target();  // every key names a slot of the table
  }
  // One more link of the look-ahead walk every fourth pop: reading a link one or two pops after
  // its prefetch stalled on it (a pop takes ~100 ns, less than a miss under load). With chunks
  // of seven keys a bucket of ~15 events is three links, walked within 12 pops; measured at
  // N = 1e5 (2026-11-26), every 4th pop 10.6-11.2 M events/s against 9.8-10.0 every 2nd, 1e3
  // and 1e6 and the cancelling variant within noise. Bottom's read position serves as the
  // counter (it also counts skipped stale entries).
  if (look_ahead_ != kNoChunk && bottom_head_ % 4 == 0) step_look_ahead();
  return true;
}

}  // namespace sim
