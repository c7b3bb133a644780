#pragma once
/// Reproduction claims: the quantitative findings of a paper, each a checked target over the
/// summaries of dcsim runs (`dcsim reproduce`, data/reproduction/<paper>.json).
///
/// A claim file names the runs its claims need, each with a CI-sized and a full-sized variant
/// (scenario + --set overrides), and the claims: a metric expression over run summaries, the
/// paper's value and where the paper gives it, the acceptance rule, and whether the claim is
/// known to reproduce (`reproduced`: CI fails when such a claim stops holding). The schema is
/// declared once (claim_file_schema) and documents every key; `dcsim reproduce --help` points
/// to it.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/schema.hpp"
#include "sim/reproduce/expression.hpp"
#include "sim/reproduce/rate_search.hpp"

namespace sim::reproduce {

enum class Size { kCi, kFull };

/// One scenario run at a given size: the scenario (absolute) and its --set overrides.
struct RunVariant {
  std::filesystem::path scenario;
  std::vector<std::string> overrides;
  /// Present: not one run but a search for the largest rate every workload sustains
  /// (rate_search.hpp); the summary of the best run gets a `search` block.
  std::optional<RateSearch> search;
};

struct RunSpec {
  std::string id;
  std::optional<RunVariant> ci;    ///< none: no CI-sized variant (claims not comparable in CI)
  std::optional<RunVariant> full;  ///< none: the run has no full-size variant

  [[nodiscard]] const RunVariant* variant(Size size) const {
    const auto& v = size == Size::kCi ? ci : full;
    return v ? &*v : nullptr;
  }
};

/// A term of a metric expression: a value of a run's summary.
struct Term {
  Term() = default;
  /// `value` empty: `metric` is parsed when the term is evaluated (no quantities).
  Term(std::string run_id, std::string metric_text, Expression parsed = {})
      : run(std::move(run_id)), metric(std::move(metric_text)), value(std::move(parsed)) {}

  std::string run;     ///< RunSpec::id
  std::string metric;  ///< as written: a dotted path, or an expression over the summary
  Expression value;    ///< `metric` parsed (expression.hpp)
};

enum class MetricKind {
  kValue,          ///< terms[0]
  kRatio,          ///< terms[0] / terms[1]
  kDifferencePp,   ///< 100 * (terms[0] - terms[1]): percentage points of two fractions
  kReduction,      ///< 100 * (1 - terms[0] / terms[1]): percent reduction of terms[0] vs terms[1]
  kOrdering,       ///< the values of every term, in order
  kMeanRatio,      ///< mean of terms[2k] / terms[2k+1] ("on average" over several settings)
  kMeanReduction,  ///< mean of 100 * (1 - terms[2k] / terms[2k+1]) ("x% lower on average")
};

enum class RuleKind {
  kAbs,       ///< |value - paper| <= tolerance
  kRel,       ///< |value - paper| <= tolerance * |paper|
  kAtLeast,   ///< value >= bound (bound defaults to the paper's value)
  kAtMost,    ///< value <= bound (bound defaults to the paper's value)
  kOrdering,  ///< the terms' values strictly decrease (descending) or increase (ascending)
  kSign,      ///< value > 0 (positive) or value < 0 (negative)
  kFactor,    ///< paper / tolerance <= value <= paper * tolerance (tolerance >= 1, paper > 0)
};

struct Rule {
  RuleKind kind = RuleKind::kAbs;
  double tolerance = 0.0;
  std::optional<double> bound;
  bool descending = true;  ///< kOrdering
  bool positive = true;    ///< kSign
};

struct Claim {
  std::string id;
  std::string where;                  ///< "Table 4", "Fig. 11", "§8.4"
  std::string statement;              ///< what the paper says, in words
  std::string paper_text;             ///< the paper's number as printed ("94.19%")
  std::optional<double> paper_value;  ///< in the unit of the metric expression
  MetricKind kind = MetricKind::kValue;
  std::vector<Term> terms;
  Rule rule;
  bool reproduced = false;
  std::string not_comparable;  ///< non-empty: dcsim cannot measure this claim, and why
  std::string note;
};

struct ClaimFile {
  std::filesystem::path file;
  std::string family;  ///< protean, flashpoint, harmonybatch, infless, queueing
  std::string paper;   ///< full citation-like name
  std::string page;    ///< the reproduction page, relative to docs/reproduction/
  /// Named expressions over a run summary ("$NAME" in terms), each with where its weights
  /// come from; a quantity may use the ones defined before it.
  Expression::Quantities quantities;
  std::vector<RunSpec> runs;
  std::vector<Claim> claims;

  [[nodiscard]] const RunSpec* find_run(const std::string& id) const;
};

/// The schema of a claim file (declared once; used to validate and to document).
std::shared_ptr<const config::Schema> claim_file_schema();

/// Reads, validates (schema, run references, metric/rule consistency) and resolves a claim
/// file; scenario paths are resolved against the file's directory. Throws config::ConfigError
/// naming the file, JSON path, expected and found for every problem.
ClaimFile load_claim_file(const std::filesystem::path& file);

std::string to_string(MetricKind kind);
std::string to_string(RuleKind kind);
std::string to_string(Size size);

}  // namespace sim::reproduce
