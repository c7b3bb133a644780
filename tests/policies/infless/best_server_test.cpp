// Algorithm 1's argmax over servers ordered by available resource (ServersByAvailable)
// against the direct scan of every (configuration, server): hand-computed cases and random
// sequences of searches and bookings.

#include <gtest/gtest.h>

#include <vector>

#include "infless/best_server.hpp"
#include "infless/resource_efficiency.hpp"
#include "sim/engine/random.hpp"

namespace sim::policy::infless {
namespace {

ServerState server(int host, double cores, std::vector<double> shares) {
  ServerState s;
  s.host = host;
  s.cores_free = cores;
  s.memory_free_bytes = 1e11;
  for (std::size_t g = 0; g < shares.size(); ++g)
    s.gpus.push_back({static_cast<int>(g), true, shares[g], 11.0});
  return s;
}

Configuration config(int threads, int gpu_percent, double r_up) {
  Configuration c;
  c.threads = threads;
  c.gpu_percent = gpu_percent;
  c.bounds.r_up = r_up;
  return c;
}

ScheduleOptions options() {
  ScheduleOptions o;
  o.beta = 0.5;
  o.model_bytes = 1e8;
  o.device_memory_gb = 1.0;
  return o;
}

// Demand 0.5 * 2 + 10 = 11. S0: A = 0.5 * 8 + 40 = 44, fragment 1 - 11/44 = 0.75; S1: A = 0.5
// * 4 + 18 = 20, fragment 0.45: the smaller fragment wins, S1 (its GPU 0: 18 % free, the only
// one). S2 (A = 0.5 * 2 + 9 = 10) is below the demand and fits nowhere.
TEST(BestServer, SmallestFragmentWins) {
  const std::vector<ServerState> s = {server(0, 8, {0.4}), server(1, 4, {0.18}),
                                      server(2, 2, {0.09})};
  const std::vector<Configuration> c = {config(2, 10, 30)};
  const ServersByAvailable by(s, 0.5);
  const auto b = by.best(c, s, options(), 1.0);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->server, 1u);
  EXPECT_EQ(b->gpu, 0);
  // e = (30 / 11 / 1) / 0.45.
  EXPECT_NEAR(b->efficiency, 30.0 / 11.0 / 0.45, 1e-12);
  EXPECT_EQ(best_server_direct(c, s, by.available(), options(), 1.0)->server, 1u);
}

// Both servers leave a fragment below kMinFragment (1 - 11/11.005 and 1 - 11/11.001), so e
// ties at numerator / 0.001: the lower index wins although its A is the larger (S0: 0.5 * 2 +
// 10.005, S1: 0.5 * 2 + 10.001).
TEST(BestServer, TiesGoToTheLowerIndex) {
  const std::vector<ServerState> s = {server(0, 2, {0.10005}), server(1, 2, {0.10001})};
  const std::vector<Configuration> c = {config(2, 10, 30)};
  const ServersByAvailable by(s, 0.5);
  const auto b = by.best(c, s, options(), 1.0);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->server, 0u);
  EXPECT_NEAR(b->efficiency, 30.0 / 11.0 / kMinFragment, 1e-9);
}

// Two configurations with the same e on the same server: the first one is kept.
TEST(BestServer, TiesAcrossConfigurationsGoToTheFirst) {
  const std::vector<ServerState> s = {server(0, 8, {1.0})};
  const std::vector<Configuration> c = {config(2, 10, 30), config(2, 10, 30)};
  const ServersByAvailable by(s, 0.5);
  EXPECT_EQ(by.best(c, s, options(), 1.0)->config, 0u);
}

// A booking moves the server: after S1 loses 15 % of its SMs it no longer fits, S0 does.
TEST(BestServer, ChangedServerMoves) {
  std::vector<ServerState> s = {server(0, 8, {0.4}), server(1, 4, {0.18})};
  const std::vector<Configuration> c = {config(2, 10, 30)};
  ServersByAvailable by(s, 0.5);
  s[1].gpus[0].share_free = 0.03;
  by.changed(1, s[1]);
  EXPECT_DOUBLE_EQ(by.available()[1], 0.5 * 4 + 3);
  const auto b = by.best(c, s, options(), 1.0);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->server, 0u);
}

// Random servers (shares on a coarse grid, so that fragments and efficiencies tie often),
// random candidates, bookings of the chosen server and random changes (some leaving a
// negative share, which the ordered search leaves to the direct one): every search equals
// the direct scan, configuration, server, GPU and efficiency.
TEST(BestServer, MatchesDirectScanOnRandomSequences) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    RandomStream rng(seed);
    const auto share = [&] { return 0.05 * static_cast<double>(rng.uniform_int(0, 20)); };
    std::vector<ServerState> s;
    const auto n = rng.uniform_int(1, 60);
    for (std::uint64_t j = 0; j < n; ++j) {
      std::vector<double> shares(rng.uniform_int(1, 3));
      for (double& x : shares)
        x = share();
      s.push_back(server(static_cast<int>(j), static_cast<double>(rng.uniform_int(0, 16)), shares));
      if (rng.uniform01() < 0.1) s.back().gpus[0].usable = false;
      if (rng.uniform01() < 0.05) s.back().memory_free_bytes = 0;
    }
    ScheduleOptions o = options();
    o.beta = seed % 2 == 0 ? 0.5 : conversion_factor(64, 14200);
    ServersByAvailable by(s, o.beta);
    for (int step = 0; step < 200; ++step) {
      std::vector<Configuration> c(rng.uniform_int(1, 6));
      for (Configuration& x : c) {
        x = config(static_cast<int>(rng.uniform_int(1, 4)),
                   5 * static_cast<int>(rng.uniform_int(1, 8)),
                   static_cast<double>(rng.uniform_int(0, 3) * 10));
      }
      const double e_max = 0.5 + rng.uniform01();
      const auto got = by.best(c, s, o, e_max);
      const auto want = best_server_direct(c, s, by.available(), o, e_max);
      ASSERT_EQ(got.has_value(), want.has_value()) << "seed " << seed << " step " << step;
      if (!got) continue;
      ASSERT_EQ(got->config, want->config) << "seed " << seed << " step " << step;
      ASSERT_EQ(got->server, want->server) << "seed " << seed << " step " << step;
      ASSERT_EQ(got->gpu, want->gpu);
      ASSERT_EQ(got->efficiency, want->efficiency);
      book(s[got->server], got->gpu, c[got->config], o);
      by.changed(got->server, s[got->server]);
      if (rng.uniform01() < 0.2) {  // something else frees or takes resources
        const auto j = rng.uniform_int(0, s.size() - 1);
        s[j].cores_free = static_cast<double>(rng.uniform_int(0, 16));
        s[j].gpus.back().share_free = rng.uniform01() < 0.1 ? -0.05 : share();
        by.changed(j, s[j]);
      }
      ASSERT_EQ(by.available()[got->server], s[got->server].available(o.beta));
    }
  }
}

}  // namespace
}  // namespace sim::policy::infless
