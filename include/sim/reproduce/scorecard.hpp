#pragma once
/// The scorecard: every claim of a claim file evaluated on run summaries (holds / misses / not
/// comparable, with the reason), rendered as a text table, JSON and Markdown.

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/reproduce/claims.hpp"

namespace sim::reproduce {

enum class Verdict { kHolds, kMisses, kNotComparable };
std::string to_string(Verdict v);

/// The outcome of one run: its summary, or why there is none.
struct RunOutcome {
  bool ok = false;
  nlohmann::json summary;
  std::string error;  ///< when !ok: the run failed, or it has no variant of this size
};

struct ClaimResult {
  Claim claim;
  std::vector<double> values;  ///< the measured value (one), or the ordered terms' values
  Verdict verdict = Verdict::kNotComparable;
  std::string reason;  ///< why it misses or is not comparable; empty when it holds
};

struct FamilyResult {
  std::string family;
  std::string paper;
  std::string page;
  std::vector<ClaimResult> claims;

  [[nodiscard]] std::size_t count(Verdict v) const;
};

struct Scorecard {
  Size size = Size::kCi;
  std::vector<FamilyResult> families;

  /// Claims marked reproduced that do not hold (the ratchet: non-empty fails CI).
  [[nodiscard]] std::vector<const ClaimResult*> regressions() const;
  /// Claims that hold but are not marked reproduced (candidates to ratchet).
  [[nodiscard]] std::vector<const ClaimResult*> suggestions() const;
};

/// Evaluates one claim on the outcomes of its runs (keyed by run id).
ClaimResult evaluate_claim(const Claim& claim, const std::map<std::string, RunOutcome>& runs);

/// The human-readable rule ("within 0.02 of 0.9419", "descending").
std::string describe_rule(const Claim& claim);
/// dcsim's value(s) as shown in tables.
std::string describe_values(const ClaimResult& r);

nlohmann::json to_json(const Scorecard& card);
/// Reads a scorecard written by to_json (for the generated README). Throws std::runtime_error.
Scorecard scorecard_from_json(const nlohmann::json& doc);

/// One table per family (claim, paper, dcsim, rule, verdict) and the counts.
std::string to_markdown(const Scorecard& card, int heading_level = 2);
void print_table(const Scorecard& card, std::ostream& out);

}  // namespace sim::reproduce
