#include "sim/engine/event_queue.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace sim {

namespace {
constexpr int kSequenceShift = 24;
// Stale (cancelled) entries are purged once they outnumber live ones by this margin, so a
// pattern of scheduling and cancelling far-future events cannot grow the queue without bound.
constexpr std::size_t kStaleSlack = 1024;
// Bottom is turned back into a rung when insertions make it larger than this and than twice
// its size after the last refill (so an unsplittable refill cannot make this repeat often).
constexpr std::size_t kBottomMax = 256;
// Insertions into a Bottom of at most this many entries move the larger keys one by one.
constexpr std::size_t kBottomLinear = 16;
static_assert(kBottomLinear < kBottomMax);
// Bucket widths are at most 2^62 ns, so that start + nbuckets * width cannot overflow.
constexpr int kMaxShift = 62;

__extension__ using Key128 = unsigned __int128;

inline std::uint64_t key_time(Key128 k) {
  return static_cast<std::uint64_t>(k >> 64);
}

/// Smallest s with 2^s >= x (x >= 1).
inline int ceil_log2(std::uint64_t x) {
  return x <= 1 ? 0 : 64 - std::countl_zero(x - 1);
}

/// The shift of a rung spreading `count` events over `span` ns: a width near span / count, so
/// that buckets hold about one event each (Tang et al., Section 3: width = span / count; rung
/// 0 passes count / kSpread, see event_queue.hpp).
inline int shift_for(std::uint64_t span, std::size_t count) {
  const std::uint64_t width = span / std::max<std::uint64_t>(count, 1) + 1;
  return std::min(ceil_log2(width), kMaxShift);
}
}  // namespace

bool EventHandle::cancel() {
  return queue_ != nullptr && queue_->cancel(*this);
}

bool EventHandle::pending() const {
  return queue_ != nullptr && queue_->is_pending(*this);
}

EventQueue::EventQueue() : rungs_(kMaxRungs) {}

EventQueue::EventQueue(int sequence_bits) : rungs_(kMaxRungs), sequence_bits_(sequence_bits) {
  if (sequence_bits < 2 || sequence_bits > 38) {
    throw std::invalid_argument("EventQueue: sequence_bits must be in [2, 38]");
  }
}

void EventQueue::throw_negative_time(Time t) {
  throw std::invalid_argument("EventQueue::push: negative time " + to_string(t));
}

void EventQueue::throw_empty_callback() {
  throw std::invalid_argument("EventQueue::push: empty callback");
}

void EventQueue::drop(EventCallback& fn) noexcept {
  fn = nullptr;
}

std::uint32_t EventQueue::grow_slots() {
  if (slots_.size() > kSlotMask) {
    throw std::length_error("EventQueue: more than 16,777,216 events pending at once");
  }
  const auto slot = static_cast<std::uint32_t>(slots_.size());
  slots_.emplace_back();
  return slot;
}

inline void EventQueue::add_to_bucket(Bucket& bucket, Key k) {
  if (bucket.fill == kChunkKeys) {
    std::uint32_t c = free_chunk_;
    if (c != kNoChunk) {
      free_chunk_ = chunks_[c].next;
      // The next chunk taken: its link is read then, and its first key written. Measured
      // 2026-11-27 (session 17, N = 1e5, 4 interleaved pairs): +1.2% median.
      if (free_chunk_ != kNoChunk) prefetch_chunk(free_chunk_);
    } else {
      c = static_cast<std::uint32_t>(chunks_.size());
      chunks_.emplace_back();
    }
    chunks_[c].next = bucket.head;
    bucket.head = c;
    bucket.fill = 0;
  }
  chunks_[bucket.head].keys[bucket.fill++] = k;
}

inline void EventQueue::bucket_add(Rung& r, std::size_t b, Key k) {
  add_to_bucket(r.buckets[b], k);
  ++r.count;
}

void EventQueue::flush_staged() {
  for (std::size_t i = 0; i < staged_count_; ++i)
    add_to_bucket(*staged_[i].bucket, staged_[i].key);
  staged_count_ = 0;
}

inline void EventQueue::stage(Rung& r, std::uint64_t t, Key k) {
  // Staged: the bucket's line is requested now and written a few insertions later, so that
  // its cache miss overlaps other work instead of stalling this insertion.
  Bucket* bucket = &r.buckets[static_cast<std::size_t>((t - r.start) >> r.shift)];
  __builtin_prefetch(bucket);
  ++r.count;
  staged_[staged_count_++] = {bucket, k};
  if (staged_count_ == kStaged) flush_staged();
}

inline void EventQueue::insert(Key k) {
  ++entries_;
  const std::uint64_t t = key_time(k);
  // Rung i holds [lo(i), lo(i - 1)) (rung 0 up to top_start_): the first rung whose
  // unconsumed range starts at or before t takes the event; below the last rung is Bottom.
  // The usual case (rung 0) is inline, the others are not, so that the path stays short
  // (session 17: +0.8% median in 4 interleaved pairs at N = 1e5, within noise; kept as the
  // shorter path).
  if (t < top_start_ && rung_count_ != 0 && t >= rungs_[0].lo) [[likely]] {
    stage(rungs_[0], t, k);
    return;
  }
  insert_other(k);
}

void EventQueue::insert_other(Key k) {
  const std::uint64_t t = key_time(k);
  if (t >= top_start_) {
    top_.push_back(k);
    top_min_ = std::min(top_min_, t);
    top_max_ = std::max(top_max_, t);
    return;
  }
  for (std::size_t i = 1; i < rung_count_; ++i) {
    Rung& r = rungs_[i];
    if (t >= r.lo) {
      stage(r, t, k);
      return;
    }
  }
  insert_bottom(k);
}

void EventQueue::commit_sequence(Time t, std::uint32_t slot, EventPhase phase,
                                 std::uint64_t sequence) {
  static_assert(kSequenceShift == kSlotBits);  // next_is_after builds keys alike
  const std::uint64_t tail =
      (static_cast<std::uint64_t>(phase) << kPhaseShift) | (sequence << kSequenceShift) | slot;
  slots_[slot].tail = tail;
  insert((static_cast<Key>(static_cast<std::uint64_t>(t.ns())) << 64) | tail);
  ++live_;
}

void EventQueue::insert_bottom(Key k) {
  if (bottom_head_ == bottom_.size()) {
    bottom_.clear();
    bottom_head_ = 0;
  }
  if (bottom_head_ > 0 && k < bottom_[bottom_head_]) {
    bottom_[--bottom_head_] = k;  // before everything: reuse the consumed prefix
    return;
  }
  if (bottom_.size() - bottom_head_ <= kBottomLinear) {
    // A short Bottom (the usual one when few events are pending: a flow network's completion,
    // deliveries and next start): the key is appended and moved down past the larger ones, the
    // place upper_bound would give, without a binary search and vector::insert's shift.
    bottom_.push_back(k);
    Key* const keys = bottom_.data();
    std::size_t i = bottom_.size() - 1;
    for (; i > bottom_head_ && k < keys[i - 1]; --i)
      keys[i] = keys[i - 1];
    keys[i] = k;
    return;  // (at most kBottomLinear + 1 <= kBottomMax entries: no new rung)
  }
  const auto pos = std::upper_bound(bottom_.begin() + static_cast<std::ptrdiff_t>(bottom_head_),
                                    bottom_.end(), k);
  bottom_.insert(pos, k);
  const std::size_t n = bottom_.size() - bottom_head_;
  if (n > kBottomMax && n > 2 * bottom_fill_ && rung_count_ < kMaxRungs &&
      key_time(bottom_[bottom_head_]) != key_time(bottom_.back())) {
    spawn_from_bottom();
  }
}

bool EventQueue::is_pending(const EventHandle& h) const {
  return h.queue_ == this && h.slot_ < slots_.size() &&
         (slots_[h.slot_].tail & kFreeTail) != kFreeTail &&
         slots_[h.slot_].generation == h.generation_;
}

bool EventQueue::cancel(const EventHandle& h) {
  if (!is_pending(h)) return false;
  // The callable is destroyed only when cancel returns, after the bookkeeping: its destructor
  // may schedule events, and a push that grows the slot table would leave a reference into it
  // dangling.
  const EventCallback doomed = std::move(slots_[h.slot_].fn);
  release_slot(h.slot_);
  --live_;
  if (entries_ > 2 * live_ + kStaleSlack) {
    std::vector<Key> keep = live_keys();
    rebuild(keep);
  }
  return true;
}

std::size_t EventQueue::bucket_take(Rung& r, std::size_t b, int bin_bits) {
  // The keys' time bins (see sort_bottom) are counted as they are copied, for bins of
  // 2^(shift - bin_bits) ns from the bucket's start (no counting when bin_bits is 0).
  Bucket& bucket = r.buckets[b];
  std::uint32_t c = bucket.head;
  std::uint32_t n = bucket.fill;
  std::size_t m = 0;
  Key* out = sort_scratch_.data();
  std::size_t room = sort_scratch_.size();
  const std::uint64_t start = r.lo;
  const int fine = r.shift - bin_bits;
  std::uint32_t* const ends = bin_ends_.data() + 1;
  while (c != kNoChunk) {
    if (room - m < kChunkKeys) [[unlikely]] {
      sort_scratch_.resize(std::max<std::size_t>(2 * room, 1024));
      out = sort_scratch_.data();
      room = sort_scratch_.size();
    }
    Chunk& ch = chunks_[c];
    // A whole chunk, fixed size (a head chunk's keys beyond `n` are junk, overwritten next).
    std::memcpy(out + m, ch.keys, sizeof ch.keys);
    if (bin_bits != 0) {
      for (std::uint32_t j = 0; j < n; ++j)
        ++ends[(key_time(ch.keys[j]) - start) >> fine];
    }
    m += n;
    const std::uint32_t next = ch.next;
    ch.next = free_chunk_;
    free_chunk_ = c;
    c = next;
    n = kChunkKeys;
  }
  bucket = Bucket{};
  return m;
}

EventQueue::Rung& EventQueue::open_rung(std::uint64_t start, int shift, std::size_t nbuckets) {
  Rung& r = rungs_[rung_count_++];
  if (r.buckets.size() < nbuckets) r.buckets.resize(nbuckets);
  r.nbuckets = nbuckets;
  r.start = start;
  r.shift = shift;
  r.cur = 0;
  r.lo = start;
  r.count = 0;
  ++rungs_spawned_;
  return r;
}

void EventQueue::spawn_from_top() {
  // Tang et al., Section 3.2: Top becomes rung 1 with width (MaxTS - MinTS) / NTop; later
  // events beyond its range go to Top again.
  const std::uint64_t span = top_max_ - top_min_;
  const int shift = shift_for(span, top_.size() / kSpread);
  // Rung 0 reaches kTopReach times as far as Top's span, so that the events scheduled while it
  // is consumed mostly go straight to its buckets (staged) instead of to Top and then, when
  // the rung is spent, to the next rung's buckets one by one: in a hold model, the share of
  // events that pass through Top falls from ~1/ln(N) to ~1/(kTopReach ln(N)). Times are
  // below 2^63, so the rung need not (and may not, lest its end overflow) reach further.
  const std::size_t needed = static_cast<std::size_t>(span >> shift) + 1;
  const std::size_t to_end =
      static_cast<std::size_t>(((std::uint64_t{1} << 63) - top_min_) >> shift);
  const std::size_t nbuckets = std::max(needed, std::min(kTopReach * needed, to_end));
  Rung& r = open_rung(top_min_, shift, nbuckets);
  // Stale entries are not filtered here: looking up their slots would cost a cache miss per
  // event; they are dropped when they reach the front of Bottom (or by a purge).
  for (const Key k : top_)
    bucket_add(r, static_cast<std::size_t>((key_time(k) - r.start) >> shift), k);
  top_start_ = r.start + (static_cast<std::uint64_t>(nbuckets) << shift);
  top_.clear();
  top_min_ = ~std::uint64_t{0};
  top_max_ = 0;
}

void EventQueue::spawn_from_bottom() {
  // Bottom covers [its front time, the end of the last rung's consumed part); spread it over a
  // new rung with about one bucket per event. Clustered events are split further on demand.
  const std::uint64_t start = key_time(bottom_[bottom_head_]);
  const std::uint64_t end = rung_count_ > 0 ? rungs_[rung_count_ - 1].lo : top_start_;
  const std::size_t n = bottom_.size() - bottom_head_;
  const std::uint64_t span = end - start;  // > 0: every Bottom entry is before `end`
  const int shift = shift_for(span - 1, n);
  const std::size_t nbuckets = static_cast<std::size_t>((span - 1) >> shift) + 1;
  Rung& r = open_rung(start, shift, nbuckets);
  for (std::size_t i = bottom_head_; i < bottom_.size(); ++i) {
    const Key k = bottom_[i];
    bucket_add(r, static_cast<std::size_t>((key_time(k) - start) >> shift), k);
  }
  bottom_.clear();
  bottom_head_ = 0;
  bottom_fill_ = 0;
}

bool EventQueue::refill_bottom() {
  // Precondition: Bottom is empty (all consumed). Tang et al., Section 3.3 (dequeue): take the
  // first non-empty bucket of the last rung; split it into a new rung if it holds more than
  // THRESH events. The bucket's keys go to sort_scratch_ and are sorted into Bottom.
  flush_staged();
  while (true) {
    if (rung_count_ == 0) {
      if (top_.empty()) return false;
      spawn_from_top();
    }
    Rung& r = rungs_[rung_count_ - 1];
    if (r.count == 0) {
      --rung_count_;
      continue;
    }
    while (r.buckets[r.cur].head == kNoChunk)
      r.advance();
    const std::uint64_t bucket_start = r.lo;
    // Bins for sort_bottom, counted during the take: about as many as the last bucket's keys
    // (buckets of a rung hold similar numbers); sort_bottom recounts if that was far off.
    // Session 17 (2026-11-27, N = 1e5, 4 interleaved pairs): with the take into a fixed buffer
    // (no push_back) and sort_bottom without the largest bin's count, +2.6% median; the
    // buffer and the move budget alone were within noise.
    const int bin_bits = std::min(r.shift, std::max(1, ceil_log2(bottom_fill_)));
    bin_ends_.assign((std::size_t{1} << bin_bits) + 1, 0);
    const std::size_t n = bucket_take(r, r.cur, r.shift > 0 ? bin_bits : 0);
    r.advance();
    r.count -= n;
    const Key* const keys = sort_scratch_.data();
    if (n > kThresh && r.shift > 0 && rung_count_ < kMaxRungs) {
      // The child covers exactly the consumed bucket [bucket_start, bucket_start + 2^shift),
      // in buckets of ~16-32 keys (2^(log2 n - 5) of them) rather than Tang et al.'s ~1: a
      // bucket of a few keys costs a refill each. Session 17 (3 interleaved runs): the
      // cancelling hold model at N = 1e6 7.3-8.1 M events/s instead of 4.9-5.2 (and at
      // N = 1e5 no 20% loss with kTopReach 2, see there).
      const int child_shift = std::max(0, r.shift - std::max(1, ceil_log2(n) - 5));
      Rung& c = open_rung(bucket_start, child_shift, std::size_t{1} << (r.shift - child_shift));
      for (std::size_t i = 0; i < n; ++i)
        bucket_add(c, static_cast<std::size_t>((key_time(keys[i]) - bucket_start) >> child_shift),
                   keys[i]);
      continue;
    }
    if (n > 16 && r.shift > 0) {
      sort_bottom(n, bucket_start, r.shift, bin_bits);  // prefetches the slots
    } else {
      bottom_.assign(keys, keys + n);
      if (n <= 16) {
        // Insertion sort: a small bucket (a child rung's, or a small queue's), where the
        // counting sort's passes cost more than the sorting.
        for (std::size_t i = 1; i < n; ++i) {
          const Key k = bottom_[i];
          std::size_t j = i;
          for (; j > 0 && k < bottom_[j - 1]; --j)
            bottom_[j] = bottom_[j - 1];
          bottom_[j] = k;
        }
      } else {
        std::sort(bottom_.begin(), bottom_.end());
      }
      // The events just moved to Bottom run next: fetch their slots together, so that their
      // misses overlap instead of each pop waiting for one.
      for (const Key k : bottom_)
        __builtin_prefetch(&slots_[static_cast<std::uint64_t>(k) & kSlotMask]);
    }
    bottom_head_ = 0;
    bottom_fill_ = n;
    start_look_ahead(r);
    return true;
  }
}

void EventQueue::sort_bottom(std::size_t n, std::uint64_t start, int shift, int counted_bits) {
  // A bucket of a few hundred keys: std::sort's ~n log n comparisons of 128-bit keys, a third
  // of them mispredicted, cost more than two passes of a counting sort on the time's high bits
  // and an insertion sort of runs of ~1 key. Bins split [start, start + 2^shift) evenly, so
  // bin order is time order and only keys of one bin can be out of order. About n bins (one
  // key each on average) rather than n / 2: the insertion pass moves fewer keys. Measured
  // 2026-11-27 (hold model, N = 1e5, interleaved): 23.1-24.7 -> 23.9-25.6 M events/s, higher in
  // 6 of 6 pairs; 2n bins 25.0-25.1 (against n bins 25.1-25.6).
  const Key* const src = sort_scratch_.data();
  int bin_bits = counted_bits;
  const int ideal = std::min(shift, std::max(1, ceil_log2(n)));
  if (bin_bits < ideal - 1 || bin_bits > ideal + 1) {
    // The counts taken with the take were for far fewer or more bins than keys: count again.
    bin_bits = ideal;
    bin_ends_.assign((std::size_t{1} << bin_bits) + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
      ++bin_ends_[((key_time(src[i]) - start) >> (shift - bin_bits)) + 1];
  }
  const int fine = shift - bin_bits;
  const std::size_t bins = std::size_t{1} << bin_bits;
  std::uint32_t* const ends = bin_ends_.data();
  for (std::size_t b = 1; b <= bins; ++b)
    ends[b] += ends[b - 1];
  bottom_.resize(n);
  Key* const a = bottom_.data();
  for (std::size_t i = 0; i < n; ++i) {
    const Key k = src[i];
    a[ends[(key_time(k) - start) >> fine]++] = k;
    // These events run next: their slots are fetched together (see refill_bottom), here
    // rather than in a pass of their own (session 17, N = 1e5: +1.4% median, 4 pairs).
    __builtin_prefetch(&slots_[static_cast<std::uint64_t>(k) & kSlotMask]);
  }
  // One insertion pass over all: a key stops at its bin's start, as every earlier key is
  // earlier. Bins hold about one key, so whether a key goes before its predecessor is a coin
  // toss that a branch mispredicts; that first step is a branch-free compare-exchange with
  // the running maximum (kept in registers), and only a key that is smaller than two keys
  // before it (a bin of three or more) takes the branch into the ordinary insertion loop.
  // Measured 2026-11-27 (hold model, N = 1e5, 35 interleaved pairs): +2.3% median.
  // Clustered times (many events in one bin) would make this O(m^2): once the moves exceed a
  // budget of a few per key, the rest is left to std::sort.
  std::size_t budget = 8 * n;
  Key high = a[0];  // the largest of a[0..i-1], which belongs at a[i - 1]
  for (std::size_t i = 1; i < n; ++i) {
    const Key k = a[i];
    const bool before = k < high;
    const Key low = before ? k : high;
    high = before ? high : k;
    // a[0..i-2] are sorted and <= high; low goes at a[i - 1] unless it is below a[i - 2]
    // (possible only if it is k).
    std::size_t j = i - 1;
    if (j > 0 && low < a[j - 1]) [[unlikely]] {
      do {
        a[j] = a[j - 1];
        --j;
      } while (j > 0 && low < a[j - 1]);
      a[j] = low;
      const std::size_t moved = i - 1 - j;
      if (moved > budget) {
        // a[0..i] is a permutation of the first i + 1 keys: sort everything.
        a[i] = high;
        std::sort(a, a + n);
        return;
      }
      budget -= moved;
      continue;
    }
    a[j] = low;
  }
  a[n - 1] = high;
}

void EventQueue::step_look_ahead() {
  // The previous step prefetched this chunk. Its keys' slots are fetched too, so that the
  // next Bottom's first pops do not wait for them. The chunk may have been consumed and
  // reused since, and a head chunk may not be full: the keys and the link may be
  // stale, which costs a useless prefetch at most (they are bounds-checked).
  const Chunk& ch = chunks_[look_ahead_];
  for (const Key k : ch.keys) {
    const std::uint64_t slot = static_cast<std::uint64_t>(k) & kSlotMask;
    if (slot < slots_.size()) __builtin_prefetch(&slots_[slot]);
  }
  look_ahead_ = ch.next;
  if (look_ahead_ < chunks_.size()) {
    prefetch_chunk(look_ahead_);
  } else {
    look_ahead_ = kNoChunk;
  }
}

void EventQueue::start_look_ahead(const Rung& r) {
  // The next non-empty bucket of this rung is likely the next refill: start walking its chunk
  // list (one link every few pops, see pop_until) so that its chunks are in cache by then.
  look_ahead_ = kNoChunk;
  const std::size_t end = std::min(r.nbuckets, r.cur + 8);
  for (std::size_t b = r.cur; b < end; ++b) {
    const std::uint32_t c = r.buckets[b].head;
    if (c != kNoChunk) {
      prefetch_chunk(c);
      look_ahead_ = c;
      return;
    }
  }
}

bool EventQueue::settle_front() {
  while (true) {
    while (bottom_head_ < bottom_.size()) {
      const Key k = bottom_[bottom_head_];
      if (!is_stale(k)) return true;
      ++bottom_head_;
      --entries_;
    }
    if (!refill_bottom()) return false;
  }
}

Time EventQueue::next_time() {
  if (!settle_front()) return Time::max();
  return Time::from_ns(static_cast<std::int64_t>(key_time(bottom_[bottom_head_])));
}

EventQueue::Popped EventQueue::pop() {
  Popped out;
  if (!pop_until(Time::max(), out)) throw std::logic_error("EventQueue::pop: no pending event");
  return out;
}

void EventQueue::reserve(std::size_t n) {
  top_.reserve(n);
  slots_.reserve(n);
}

std::vector<EventQueue::Key> EventQueue::live_keys() {
  flush_staged();
  std::vector<Key> keep;
  keep.reserve(live_);
  auto take = [&](const std::vector<Key>& v, std::size_t from) {
    for (std::size_t i = from; i < v.size(); ++i) {
      if (!is_stale(v[i])) keep.push_back(v[i]);
    }
  };
  take(bottom_, bottom_head_);
  for (std::size_t i = 0; i < rung_count_; ++i) {
    const Rung& r = rungs_[i];
    for (std::size_t b = r.cur; b < r.nbuckets; ++b) {
      std::uint32_t n = r.buckets[b].fill;
      for (std::uint32_t c = r.buckets[b].head; c != kNoChunk; c = chunks_[c].next) {
        const Chunk& ch = chunks_[c];
        for (std::uint32_t j = 0; j < n; ++j) {
          if (!is_stale(ch.keys[j])) keep.push_back(ch.keys[j]);
        }
        n = kChunkKeys;
      }
    }
  }
  take(top_, 0);
  return keep;
}

void EventQueue::rebuild(std::vector<Key>& keys) {
  // Everything goes to Top (top_start_ = 0 sends new events there too); the next pop spreads
  // it over a fresh rung. Correct for any content since Top has no ordering obligations.
  for (std::size_t i = 0; i < rung_count_; ++i) {
    Rung& r = rungs_[i];
    std::fill(r.buckets.begin() + static_cast<std::ptrdiff_t>(r.cur),
              r.buckets.begin() + static_cast<std::ptrdiff_t>(r.nbuckets), Bucket{});
  }
  rung_count_ = 0;
  staged_count_ = 0;  // live_keys() flushed them
  chunks_.clear();
  free_chunk_ = kNoChunk;
  look_ahead_ = kNoChunk;
  bottom_.clear();
  bottom_head_ = 0;
  bottom_fill_ = 0;
  top_.swap(keys);
  top_min_ = ~std::uint64_t{0};
  top_max_ = 0;
  for (const Key k : top_) {
    top_min_ = std::min(top_min_, key_time(k));
    top_max_ = std::max(top_max_, key_time(k));
  }
  top_start_ = 0;
  entries_ = top_.size();
}

void EventQueue::add_holder(SequenceHolder* holder) {
  holders_.push_back(holder);
}

void EventQueue::remove_holder(SequenceHolder* holder) {
  holders_.erase(std::remove(holders_.begin(), holders_.end(), holder), holders_.end());
}

std::uint64_t EventQueue::renumbered_sequence(const std::vector<std::uint64_t>& sorted,
                                              std::uint64_t s) {
  return static_cast<std::uint64_t>(std::lower_bound(sorted.begin(), sorted.end(), s) -
                                    sorted.begin());
}

void EventQueue::renumber() {
  // Replace every sequence number in use (pending events' and the holders') by its rank among
  // them: 0, 1, ... An order-preserving map of the numbers keeps the order of everything
  // pending (events at equal time and phase run by number), and every handle stays valid.
  std::vector<Key> keep = live_keys();
  std::vector<std::uint64_t> sorted;
  sorted.reserve(keep.size());
  for (const Key k : keep)
    sorted.push_back((static_cast<std::uint64_t>(k) & ~(std::uint64_t{3} << kPhaseShift)) >>
                     kSequenceShift);
  for (const SequenceHolder* h : holders_)
    h->held_sequences(sorted);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.size() >= (std::uint64_t{1} << sequence_bits_)) {
    throw std::length_error("EventQueue: too many pending events to renumber");
  }
  const std::uint64_t keep_mask = (std::uint64_t{3} << kPhaseShift) | kSlotMask;
  for (Key& k : keep) {
    const auto tail = static_cast<std::uint64_t>(k);
    const std::uint64_t old_sequence = (tail & ~keep_mask) >> kSequenceShift;
    const std::uint64_t new_tail =
        (tail & keep_mask) | (renumbered_sequence(sorted, old_sequence) << kSequenceShift);
    slots_[tail & kSlotMask].tail = new_tail;
    k = (k >> 64 << 64) | new_tail;
  }
  rebuild(keep);
  for (SequenceHolder* h : holders_)
    h->renumber_sequences(sorted);
  next_sequence_ = sorted.size();
}

}  // namespace sim
