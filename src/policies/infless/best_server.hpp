#pragma once
/// INFless Algorithm 1's argmax (line 8: the configuration and server of the largest resource
/// efficiency e_ij, eq. 10) without evaluating every (configuration, server) pair.
///
/// For one configuration, e_ij = numerator / max(kMinFragment, 1 - demand / A_j) depends on the
/// server only through A_j = beta C_j + G_j, and (for A_j > 0, numerator >= 0) never increases
/// with A_j: every step (a quotient by a growing positive divisor, a difference, a max, a
/// quotient by a growing positive divisor) is a correctly rounded operation, which is monotone,
/// so this holds for the computed doubles too. A server the configuration fits on has
/// A_j >= demand (less a rounding margin): its free threads cover the configuration's, and one
/// of its GPUs the SM share. So with the servers ordered by A_j, a search starts at the first
/// with A_j >= demand - margin and stops as soon as e falls below the best found: the servers
/// it skips either fit nowhere or have a smaller e. Ties (equal e) go to the lowest server
/// index, and across configurations to the first, as the direct scan's strict comparison does.

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "schedule.hpp"

namespace sim::policy::infless {

struct BestServer {
  std::size_t config = 0;  ///< index into the candidates
  std::size_t server = 0;  ///< index into the servers
  int gpu = -1;            ///< gpu_for(servers[server], candidates[config])
  double efficiency = 0.0;
};

/// The direct form: every candidate (in order) on every server (in order), the strictly largest
/// e_ij kept. `available[j]` is servers[j].available(beta).
std::optional<BestServer> best_server_direct(std::span<const Configuration> candidates,
                                             const std::vector<ServerState>& servers,
                                             std::span<const double> available,
                                             const ScheduleOptions& o, double e_max);

/// The servers ordered by beta C_j + G_j (then index), kept as placements book them; best()
/// returns what best_server_direct() returns.
class ServersByAvailable {
 public:
  ServersByAvailable(const std::vector<ServerState>& servers, double beta);
  [[nodiscard]] std::span<const double> available() const { return available_; }
  /// Server j changed (a booking): its A_j is recomputed and it moves to its place.
  void changed(std::size_t j, const ServerState& s);
  [[nodiscard]] std::optional<BestServer> best(std::span<const Configuration> candidates,
                                               const std::vector<ServerState>& servers,
                                               const ScheduleOptions& o, double e_max) const;

 private:
  [[nodiscard]] static bool orderable(const ServerState& s, double a);
  std::vector<double> available_;                      ///< A_j by server index
  std::vector<std::pair<double, std::size_t>> order_;  ///< (A_j, j) ascending
  std::vector<char> ordered_;                          ///< orderable(), by server index
  double beta_;
  /// Servers whose state the bound or the monotonicity does not cover (negative free
  /// threads or SM share, A_j not positive and finite): best() then searches directly.
  std::size_t unordered_ = 0;
};

}  // namespace sim::policy::infless
