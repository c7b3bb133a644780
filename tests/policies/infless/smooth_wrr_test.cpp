// The incremental smooth weighted round robin (SmoothWrrSet, RateSplitDispatcher::idle_set)
// against the direct form over random sequences of membership changes and choices.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "infless/request_path.hpp"
#include "infless/smooth_wrr.hpp"
#include "sim/engine/random.hpp"

namespace sim::policy::infless {
namespace {

// The direct form: every member (ascending id) gains its weight in doubles, the first
// strictly richest is chosen and pays the total. Credits outlive membership.
class DirectWrr {
 public:
  void insert(InstanceId id, double w) {
    members_[id] = w;
    credit_.try_emplace(id, 0.0);
  }
  void erase(InstanceId id) { members_.erase(id); }
  std::optional<InstanceId> choose() {
    if (members_.empty()) return std::nullopt;
    double total = 0.0;
    std::optional<InstanceId> pick;
    for (const auto& [id, w] : members_) {
      total += w;
      credit_[id] += w;
      if (!pick || credit_[id] > credit_[*pick]) pick = id;
    }
    credit_[*pick] -= total;
    return pick;
  }
  double credit(InstanceId id) const {
    const auto it = credit_.find(id);
    return it == credit_.end() ? 0.0 : it->second;
  }

 private:
  std::map<InstanceId, double> members_;
  std::map<InstanceId, double> credit_;
};

// nginx's example, by hand: weights a 5, b 1, c 1 give a a b a c a a (credits after each
// round: a -2, a -4, b -4, a -1, c -2, a 2, a 0).
TEST(SmoothWrrSet, KnownSequence) {
  SmoothWrrSet s;
  s.insert(1, 5);
  s.insert(2, 1);
  s.insert(3, 1);
  std::vector<InstanceId> got;
  for (int k = 0; k < 7; ++k)
    got.push_back(*s.choose());
  EXPECT_EQ(got, (std::vector<InstanceId>{1, 1, 2, 1, 3, 1, 1}));
  EXPECT_EQ(s.credit(1), 0);
  EXPECT_EQ(s.credit(2), 0);
  EXPECT_EQ(s.credit(3), 0);
}

// Leaving keeps the credit: after round 3 (a 1, b -4, c 3) b and c leave; a alone gains and
// pays 5 (stays 1); b returns with -4: a 6 > b -3, a pays 6 (0); c keeps 3 throughout.
TEST(SmoothWrrSet, CreditOutlivesMembership) {
  SmoothWrrSet s;
  s.insert(1, 5);
  s.insert(2, 1);
  s.insert(3, 1);
  for (int k = 0; k < 3; ++k)
    s.choose();
  s.erase(2);
  s.erase(3);
  EXPECT_FALSE(s.contains(2));
  EXPECT_EQ(s.credit(2), -4);
  EXPECT_EQ(s.choose(), 1);  // a: 1 + 5 - 5
  EXPECT_EQ(s.credit(1), 1);
  s.insert(2, 1);
  EXPECT_EQ(s.choose(), 1);  // a 6, b -3
  EXPECT_EQ(s.credit(1), 0);
  EXPECT_EQ(s.credit(2), -3);
  EXPECT_EQ(s.credit(3), 3);
  EXPECT_EQ(s.size(), 2U);
}

TEST(SmoothWrrSet, EmptyAndInvalid) {
  SmoothWrrSet s;
  EXPECT_EQ(s.choose(), std::nullopt);
  EXPECT_THROW(s.insert(1, 0), std::invalid_argument);
  EXPECT_THROW(s.insert(1, SmoothWrrSet::kMaxWeight + 1), std::invalid_argument);
  s.erase(7);  // not a member: nothing happens
  EXPECT_EQ(s.size(), 0U);
}

// Random inserts (new ids, returning ids, weight changes of members), erases and choices;
// every choice and every credit equals the direct form's. rebase_every 5 (and the default)
// exercise the rebasing of keys.
TEST(SmoothWrrSet, MatchesDirectFormOnRandomSequences) {
  for (const std::int64_t rebase : {std::int64_t{5}, std::int64_t{1} << 22}) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      RandomStream rng(seed);
      SmoothWrrSet fast(rebase);
      DirectWrr direct;
      const auto ids = rng.uniform_int(2, 40);
      // Few distinct weights (as INFless configurations give), sometimes many.
      const auto weights = seed % 4 == 0 ? 1000 : rng.uniform_int(1, 4);
      for (int op = 0; op < 3000; ++op) {
        const auto id = static_cast<InstanceId>(rng.uniform_int(1, ids));
        const double u = rng.uniform01();
        if (u < 0.3) {
          const auto w = static_cast<std::int64_t>(rng.uniform_int(1, weights) * 7);
          fast.insert(id, w);
          direct.insert(id, static_cast<double>(w));
        } else if (u < 0.5) {
          fast.erase(id);
          direct.erase(id);
        } else {
          const auto a = fast.choose();
          const auto b = direct.choose();
          ASSERT_EQ(a, b) << "seed " << seed << " op " << op;
          if (a) {
            ASSERT_EQ(static_cast<double>(fast.credit(*a)), direct.credit(*a));
          }
        }
      }
      for (InstanceId id = 1; id <= ids; ++id)
        EXPECT_EQ(static_cast<double>(fast.credit(id)), direct.credit(id)) << "seed " << seed;
    }
  }
}

// Instances start (new ids, ascending as the platform hands them out), go idle and busy
// again, and terminate, 5,000 times over with at most 12 alive: forgetting the terminated
// ones keeps at most the live ones' credits, and every choice and every live credit equals
// the direct form's, which keeps every credit for ever.
TEST(SmoothWrrSet, ForgettingTerminatedInstancesKeepsChoices) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomStream rng(seed);
    SmoothWrrSet fast(seed % 2 == 0 ? 7 : std::int64_t{1} << 22);
    DirectWrr direct;
    std::vector<InstanceId> alive;
    InstanceId next = 1;
    std::size_t most_kept = 0;
    int terminated = 0;
    for (int op = 0; op < 60000 && terminated < 5000; ++op) {
      const double u = rng.uniform01();
      if (alive.size() < 2 || (u < 0.25 && alive.size() < 12)) {
        alive.push_back(next++);  // starts; idle only once it is inserted
      } else if (u < 0.45) {
        const auto id = alive[rng.uniform_int(0, alive.size() - 1)];
        const auto w = static_cast<std::int64_t>(rng.uniform_int(1, 3) * 5);
        fast.insert(id, w);
        direct.insert(id, static_cast<double>(w));
      } else if (u < 0.6) {
        const auto at =
            alive.begin() + static_cast<std::ptrdiff_t>(rng.uniform_int(0, alive.size() - 1));
        // Terminates, idle (a member: forget ends membership) or not, inserted ever or not.
        fast.forget(*at);
        direct.erase(*at);
        alive.erase(at);
        ++terminated;
      } else {
        const auto a = fast.choose();
        ASSERT_EQ(a, direct.choose()) << "seed " << seed << " op " << op;
        if (a && rng.uniform01() < 0.7) {  // dispatched: busy
          fast.erase(*a);
          direct.erase(*a);
        }
      }
      ASSERT_LE(fast.kept(), alive.size()) << "seed " << seed << " op " << op;
      most_kept = std::max(most_kept, fast.kept());
    }
    EXPECT_EQ(terminated, 5000);
    EXPECT_GE(most_kept, 2U);
    for (const InstanceId id : alive)
      EXPECT_EQ(static_cast<double>(fast.credit(id)), direct.credit(id)) << "seed " << seed;
  }
}

// forget() on a member ends its membership and its credit; on an erased id its credit; on an
// unknown id nothing. nginx's sequence as in KnownSequence, with c forgotten after round 3
// (a 1, b -4, c 3): round 4 gives a 6 - 6 = 0, b -3; round 5 a 5 - 6 = -1, b -2.
TEST(SmoothWrrSet, ForgetDropsTheCredit) {
  SmoothWrrSet s;
  s.insert(1, 5);
  s.insert(2, 1);
  s.insert(3, 1);
  for (int k = 0; k < 3; ++k)
    s.choose();
  EXPECT_EQ(s.credit(3), 3);
  s.forget(3);
  s.forget(99);
  EXPECT_FALSE(s.contains(3));
  EXPECT_EQ(s.credit(3), 0);
  EXPECT_EQ(s.size(), 2U);
  EXPECT_EQ(s.kept(), 2U);
  EXPECT_EQ(s.choose(), 1);
  EXPECT_EQ(s.choose(), 1);
  EXPECT_EQ(s.credit(1), -1);
  EXPECT_EQ(s.credit(2), -2);
  s.erase(2);
  EXPECT_EQ(s.kept(), 2U);  // erased, not forgotten: b may come back
  s.forget(2);
  EXPECT_EQ(s.kept(), 1U);
}

// Two sets sharing one id index (as a dispatcher's idle sets do), with ids interleaved
// between them (odd ids in one, even in the other): each makes the direct form's choices
// over its own ids, as a set with an index of its own does.
TEST(SmoothWrrSet, SetsSharingAnIndexKeepTheirOwnChoices) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomStream rng(seed);
    auto index = std::make_shared<DenseIdIndex>();
    SmoothWrrSet sets[2] = {SmoothWrrSet(SmoothWrrSet::kRebaseEvery, index),
                            SmoothWrrSet(SmoothWrrSet::kRebaseEvery, index)};
    DirectWrr direct[2];
    for (int op = 0; op < 4000; ++op) {
      const auto id = static_cast<InstanceId>(rng.uniform_int(1, 30));
      const auto s = static_cast<std::size_t>(id % 2);
      const double u = rng.uniform01();
      if (u < 0.3) {
        const auto w = static_cast<std::int64_t>(rng.uniform_int(1, 3) * 4);
        sets[s].insert(id, w);
        direct[s].insert(id, static_cast<double>(w));
      } else if (u < 0.5) {
        sets[s].erase(id);
        direct[s].erase(id);
      } else {
        const auto c = static_cast<std::size_t>(rng.uniform_int(0, 1));
        ASSERT_EQ(sets[c].choose(), direct[c].choose()) << "seed " << seed << " op " << op;
      }
    }
    for (InstanceId id = 1; id <= 30; ++id) {
      const auto s = static_cast<std::size_t>(id % 2);
      EXPECT_EQ(static_cast<double>(sets[s].credit(id)), direct[s].credit(id)) << id;
    }
  }
}

// An id is in one set of an index: another set of the index rejects it (any call naming it)
// until the first forgets it.
TEST(SmoothWrrSet, AnIdInTwoSetsOfOneIndexIsRejected) {
  auto index = std::make_shared<DenseIdIndex>();
  SmoothWrrSet a(SmoothWrrSet::kRebaseEvery, index);
  SmoothWrrSet b(SmoothWrrSet::kRebaseEvery, index);
  a.insert(4, 3);
  b.insert(5, 3);
  EXPECT_THROW(b.insert(4, 3), std::logic_error);
  EXPECT_THROW(b.erase(4), std::logic_error);
  a.erase(4);  // erased, its credit kept: still a's
  EXPECT_THROW(b.insert(4, 3), std::logic_error);
  a.forget(4);
  b.insert(4, 2);
  EXPECT_TRUE(b.contains(4));
  EXPECT_THROW((void)a.contains(4), std::logic_error);
  EXPECT_EQ(a.kept(), 0U);
  EXPECT_EQ(b.kept(), 2U);
}

InstanceView view(InstanceId id, double latency_s, int batch) {
  InstanceView v;
  v.id = id;
  v.batch_latency_s = latency_s;
  v.config.max_batch = batch;
  return v;
}

// The dispatcher's idle set against the dispatcher itself, shown the same idle instances
// (ascending ids) at every dispatch: random instances become idle (with a latency and batch
// that may change, or 0 latency: weight 1), leave, and batches are dispatched.
TEST(RateSplitIdleSet, MatchesChooseOnRandomSequences) {
  const std::vector<double> latencies = {0.0, 0.0123, 0.05, 0.1, 0.037, 0.21};
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    RandomStream rng(seed);
    RateSplitDispatcher direct(1.3);
    RateSplitDispatcher incremental(1.3);
    auto set = incremental.idle_set();
    ASSERT_NE(set, nullptr);
    std::map<InstanceId, InstanceView> idle;
    for (int op = 0; op < 3000; ++op) {
      const auto id = static_cast<InstanceId>(rng.uniform_int(1, 30));
      const double u = rng.uniform01();
      if (u < 0.35) {
        const auto v = view(id, latencies[rng.uniform_int(0, latencies.size() - 1)],
                            static_cast<int>(rng.uniform_int(1, 8)));
        idle[id] = v;
        set->insert(v);
      } else if (u < 0.55) {
        idle.erase(id);
        set->erase(id);
      } else {
        std::vector<InstanceView> shown;
        for (const auto& [i, v] : idle)
          shown.push_back(v);
        const auto a = direct.choose(DispatchView{ms(op), 0, shown});
        const auto b = set->choose(DispatchView{ms(op), 0, {}});
        ASSERT_EQ(a, b) << "seed " << seed << " op " << op;
        // The platform dispatches the chosen instance: it is no longer idle.
        if (b && rng.uniform01() < 0.8) {
          idle.erase(*b);
          set->erase(*b);
        }
      }
    }
  }
}

// The dispatcher shown every idle instance (the scan path): told of terminations
// (Dispatcher::forget), it keeps at most the live instances' credits and chooses as one that
// keeps every credit for ever. Instances start with ascending ids, go idle and busy, and
// terminate, 3,000 times over with at most 10 alive.
TEST(RateSplitDispatcher, ForgettingTerminatedInstancesKeepsChoices) {
  const std::vector<double> latencies = {0.0, 0.0123, 0.05, 0.1};
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RandomStream rng(seed);
    RateSplitDispatcher keeping(1.1);
    RateSplitDispatcher forgetting(1.1);
    std::vector<InstanceId> alive;
    std::map<InstanceId, InstanceView> idle;
    InstanceId next = 1;
    int terminated = 0;
    std::size_t most_kept = 0;
    for (int op = 0; op < 40000 && terminated < 3000; ++op) {
      const double u = rng.uniform01();
      if (alive.size() < 2 || (u < 0.25 && alive.size() < 10)) {
        alive.push_back(next++);
      } else if (u < 0.45) {
        const auto id = alive[rng.uniform_int(0, alive.size() - 1)];
        idle[id] = view(id, latencies[rng.uniform_int(0, latencies.size() - 1)],
                        static_cast<int>(rng.uniform_int(1, 4)));
      } else if (u < 0.6) {
        const auto at =
            alive.begin() + static_cast<std::ptrdiff_t>(rng.uniform_int(0, alive.size() - 1));
        idle.erase(*at);
        forgetting.forget(*at);
        alive.erase(at);
        ++terminated;
      } else {
        std::vector<InstanceView> shown;
        for (const auto& [i, v] : idle)
          shown.push_back(v);
        const auto a = keeping.choose(DispatchView{ms(op), 0, shown});
        ASSERT_EQ(a, forgetting.choose(DispatchView{ms(op), 0, shown}))
            << "seed " << seed << " op " << op;
        if (a) idle.erase(*a);  // dispatched: busy until it becomes idle again
      }
      ASSERT_LE(forgetting.kept(), alive.size()) << "seed " << seed << " op " << op;
      most_kept = std::max(most_kept, forgetting.kept());
    }
    EXPECT_EQ(terminated, 3000);
    EXPECT_GE(most_kept, 2U);
    EXPECT_GT(keeping.kept(), 1000U);  // without forget(): every instance ever shown
  }
}

}  // namespace
}  // namespace sim::policy::infless
