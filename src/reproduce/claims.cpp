// Claim files: the schema (declared once), loading and the cross-checks the schema cannot
// express (run references, the arity of metric expressions, rules that need a paper value).

#include "sim/reproduce/claims.hpp"
#include "sim/config/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include "sim/config/diagnostics.hpp"

namespace sim::reproduce {

namespace fs = std::filesystem;
using config::ParamType;
using nlohmann::json;

namespace {

/// An object parameter without the "all defaults" default of Schema::object: these objects have
/// required keys, so their absence is an error of the parent.
config::Param& required_object(config::Schema& s, std::string name,
                               std::shared_ptr<const config::Schema> nested) {
  auto& p = s.object(std::move(name), std::move(nested));
  p.default_value.reset();
  return p;
}

std::shared_ptr<const config::Schema> search_schema() {
  auto s = std::make_shared<config::Schema>(
      "reproduction/run/variant/search",
      "A bisection over every workload's rate (requests per second) for the largest rate whose "
      "SLO compliance reaches the target; probes at whole rates.");
  s->add("low", ParamType::kNumber).at_least(0).doc("a rate assumed sustainable (not run)");
  s->add("high", ParamType::kNumber).at_least(0).doc("a rate assumed not sustainable (not run)");
  s->add("steps", ParamType::kInteger).def(8).at_least(1).at_most(30).doc("runs");
  s->add("target", ParamType::kNumber)
      .def(0.95)
      .at_least(0)
      .at_most(1)
      .doc("SLO compliance (met / (with SLO + left in the system)) a rate must reach");
  return s;
}

std::shared_ptr<const config::Schema> variant_schema() {
  auto s = std::make_shared<config::Schema>("reproduction/run/variant",
                                            "One size of a run: a scenario and its overrides.");
  s->add("scenario", ParamType::kString).doc("scenario file, relative to the claim file");
  s->list_of("set", ParamType::kString)
      .def(json::array())
      .doc("--set overrides (KEY=VALUE), applied after output.requests=none");
  required_object(*s, "search", search_schema())
      .optional()
      .doc(
          "present: search for the largest rate per workload that meets an SLO-compliance "
          "target instead of one run (INFless Fig. 11); the best run's summary gets a block "
          "search.{rate_per_workload, throughput_rps, slo_compliance, workloads, probes}");
  return s;
}

std::shared_ptr<const config::Schema> run_schema() {
  auto s = std::make_shared<config::Schema>("reproduction/run", "A run some claims need.");
  s->add("id", ParamType::kString).doc("name the claims' terms use (\"RUN:metric.path\")");
  required_object(*s, "ci", variant_schema())
      .optional()
      .doc("the CI-sized variant; absent: claims on this run are not comparable at CI size");
  required_object(*s, "full", variant_schema())
      .optional()
      .doc("the full-size variant; absent: claims on this run are not comparable at full size");
  return s;
}

std::shared_ptr<const config::Schema> paper_schema() {
  auto s = std::make_shared<config::Schema>("reproduction/claim/paper",
                                            "What the paper says and where.");
  s->add("where", ParamType::kString).doc("table, figure or section (\"Table 4\", \"§8.4\")");
  s->add("text", ParamType::kString).doc("the paper's number as printed (\"94.19%\")");
  s->add("value", ParamType::kNumber)
      .optional()
      .doc("the paper's number in the unit of the metric expression (fractions for compliance)");
  return s;
}

std::shared_ptr<const config::Schema> metric_schema() {
  auto s = std::make_shared<config::Schema>(
      "reproduction/claim/metric", "The expression over run summaries that dcsim measures.");
  s->add("kind", ParamType::kChoice)
      .one_of({"value", "ratio", "difference_pp", "reduction", "ordering", "mean_ratio",
               "mean_reduction"})
      .def("value")
      .doc(
          "value: of[0]; ratio: of[0]/of[1]; difference_pp: 100*(of[0]-of[1]); reduction: "
          "100*(1-of[0]/of[1]); ordering: every term, in order; mean_ratio: the mean of "
          "of[0]/of[1], of[2]/of[3], ... (a paper's \"on average\" over settings); "
          "mean_reduction: the mean of the reductions of of[0] vs of[1], of[2] vs of[3], ...");
  s->list_of("of", ParamType::kString)
      .def(json::array())
      .doc(
          "terms \"RUN:METRIC\", METRIC a dotted path into the run's summary.json or an "
          "expression over it (\"RUN:throughput_rps / $resource\"; see quantities)");
  return s;
}

std::shared_ptr<const config::Schema> rule_schema() {
  auto s = std::make_shared<config::Schema>("reproduction/claim/rule", "The acceptance rule.");
  s->add("kind", ParamType::kChoice)
      .one_of({"abs", "rel", "factor", "at_least", "at_most", "ordering", "sign"})
      .doc(
          "abs: |v-paper|<=tolerance; rel: |v-paper|<=tolerance*|paper|; factor: "
          "paper/tolerance<=v<=paper*tolerance; at_least/at_most: v>=bound / v<=bound; "
          "ordering: terms strictly ordered; sign: v>0 or v<0");
  s->add("tolerance", ParamType::kNumber).def(0.0).at_least(0).doc("for abs, rel and factor");
  s->add("bound", ParamType::kNumber)
      .optional()
      .doc("for at_least and at_most; absent: the paper's value");
  s->add("order", ParamType::kChoice)
      .one_of({"descending", "ascending"})
      .def("descending")
      .doc("for ordering: descending means of[0] > of[1] > ...");
  s->add("sign", ParamType::kChoice).one_of({"positive", "negative"}).def("positive");
  return s;
}

std::shared_ptr<const config::Schema> quantity_schema() {
  auto s = std::make_shared<config::Schema>(
      "reproduction/quantity",
      "A named expression over one run's summary, used in terms as $ID (expression.hpp).");
  s->add("id", ParamType::kString).doc("its name: letters, digits and '_'");
  s->add("expr", ParamType::kString)
      .doc(
          "+ - * / ( ), numbers, dotted summary paths, [any path], $earlier_quantity, "
          "mean(PATH: expr) and sum(PATH: expr) over the members of an object");
  s->add("doc", ParamType::kString).doc("what it is, and the source of every constant in it");
  return s;
}

std::shared_ptr<const config::Schema> claim_schema() {
  auto s = std::make_shared<config::Schema>("reproduction/claim", "One quantitative claim.");
  s->add("id", ParamType::kString).doc("unique id, \"<family>.<figure>.<what>\"");
  s->add("statement", ParamType::kString).doc("the claim in words");
  required_object(*s, "paper", paper_schema()).doc("what the paper says and where");
  required_object(*s, "metric", metric_schema()).doc("what dcsim measures");
  required_object(*s, "rule", rule_schema()).doc("when dcsim's value holds the claim");
  s->add("reproduced", ParamType::kBool)
      .def(false)
      .doc("true: the claim holds at CI size and CI fails when it stops holding (the ratchet)");
  s->add("not_comparable", ParamType::kString)
      .def("")
      .doc("non-empty: why dcsim cannot measure this claim (it is reported, never evaluated)");
  s->add("note", ParamType::kString).def("").doc("why the claim misses, or how it is measured");
  return s;
}

json read_document(const fs::path& file, config::Diagnostics& /*diag*/) {
  // The strict reader names the file, the line and column or the JSON path.
  return config::read_json_document(file.string());
}

RunVariant read_variant(const json& v, const fs::path& base, const std::string& at,
                        config::Diagnostics& diag) {
  RunVariant r;
  r.scenario = (base / v.at("scenario").get<std::string>()).lexically_normal();
  r.overrides = v.at("set").get<std::vector<std::string>>();
  if (v.contains("search")) {
    const auto& s = v.at("search");
    RateSearch search;
    search.low = s.at("low").get<double>();
    search.high = s.at("high").get<double>();
    search.steps = s.at("steps").get<int>();
    search.target = s.at("target").get<double>();
    if (!(search.high > search.low)) {
      diag.error(at + "/search/high", fmt::format("expected a rate above low ({:g}), found {:g}",
                                                  search.low, search.high));
    }
    r.search = search;
  }
  return r;
}

MetricKind metric_kind(const std::string& s) {
  if (s == "ratio") return MetricKind::kRatio;
  if (s == "difference_pp") return MetricKind::kDifferencePp;
  if (s == "reduction") return MetricKind::kReduction;
  if (s == "ordering") return MetricKind::kOrdering;
  if (s == "mean_ratio") return MetricKind::kMeanRatio;
  if (s == "mean_reduction") return MetricKind::kMeanReduction;
  return MetricKind::kValue;
}

RuleKind rule_kind(const std::string& s) {
  if (s == "rel") return RuleKind::kRel;
  if (s == "factor") return RuleKind::kFactor;
  if (s == "at_least") return RuleKind::kAtLeast;
  if (s == "at_most") return RuleKind::kAtMost;
  if (s == "ordering") return RuleKind::kOrdering;
  if (s == "sign") return RuleKind::kSign;
  return RuleKind::kAbs;
}

std::size_t arity(MetricKind k) {
  switch (k) {
    case MetricKind::kValue:
      return 1;
    case MetricKind::kRatio:
    case MetricKind::kDifferencePp:
    case MetricKind::kReduction:
      return 2;
    case MetricKind::kOrdering:
    case MetricKind::kMeanRatio:
    case MetricKind::kMeanReduction:
      return 0;  // two or more
  }
  return 1;
}

Claim read_claim(const json& c, const std::string& at, const ClaimFile& file,
                 config::Diagnostics& diag) {
  Claim claim;
  claim.id = c.at("id").get<std::string>();
  claim.statement = c.at("statement").get<std::string>();
  const auto& paper = c.at("paper");
  claim.where = paper.at("where").get<std::string>();
  claim.paper_text = paper.at("text").get<std::string>();
  if (paper.contains("value") && paper.at("value").is_number()) {
    claim.paper_value = paper.at("value").get<double>();
  }
  const auto& metric = c.at("metric");
  claim.kind = metric_kind(metric.at("kind").get<std::string>());
  const auto terms = metric.at("of").get<std::vector<std::string>>();
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto colon = terms[i].find(':');
    const std::string where = fmt::format("{}/metric/of/{}", at, i);
    if (colon == std::string::npos || colon == 0 || colon + 1 == terms[i].size()) {
      diag.error(where, fmt::format("expected \"RUN:METRIC\", found \"{}\"", terms[i]));
      continue;
    }
    Term t{terms[i].substr(0, colon), terms[i].substr(colon + 1), {}};
    try {
      t.value = Expression::parse(t.metric, file.quantities);
    } catch (const ExpressionError& e) {
      diag.error(where, fmt::format("expected an expression after \"{}:\", found \"{}\": {} (at "
                                    "character {} of the expression)",
                                    t.run, t.metric, e.what(), e.offset() + 1));
    }
    if (file.find_run(t.run) == nullptr) {
      std::vector<std::string> ids;
      for (const auto& r : file.runs)
        ids.push_back(r.id);
      diag.error(where, fmt::format("expected the id of a run of this file, found \"{}\"", t.run),
                 config::nearest(t.run, ids));
    }
    claim.terms.push_back(std::move(t));
  }
  claim.not_comparable = c.at("not_comparable").get<std::string>();
  const bool measured = claim.not_comparable.empty();
  const std::size_t need = arity(claim.kind);
  if (!measured) {
    // Reported, never evaluated: no terms needed.
  } else if (need != 0 && terms.size() != need) {
    diag.error(at + "/metric/of", fmt::format("expected {} term(s) for kind \"{}\", found {}", need,
                                              to_string(claim.kind), terms.size()));
  } else if ((claim.kind == MetricKind::kMeanRatio || claim.kind == MetricKind::kMeanReduction) &&
             (terms.size() < 2 || terms.size() % 2 != 0)) {
    diag.error(at + "/metric/of",
               fmt::format("expected an even number (>= 2) of terms for a {}, found {}",
                           to_string(claim.kind), terms.size()));
  } else if (need == 0 && terms.size() < 2) {
    diag.error(at + "/metric/of",
               fmt::format("expected at least 2 terms for an ordering, found {}", terms.size()));
  }
  const auto& rule = c.at("rule");
  claim.rule.kind = rule_kind(rule.at("kind").get<std::string>());
  claim.rule.tolerance = rule.at("tolerance").get<double>();
  if (rule.contains("bound") && rule.at("bound").is_number()) {
    claim.rule.bound = rule.at("bound").get<double>();
  }
  claim.rule.descending = rule.at("order").get<std::string>() == "descending";
  claim.rule.positive = rule.at("sign").get<std::string>() == "positive";
  const bool ordering_metric = claim.kind == MetricKind::kOrdering;
  const bool ordering_rule = claim.rule.kind == RuleKind::kOrdering;
  if (ordering_metric != ordering_rule) {
    diag.error(at + "/rule/kind",
               "expected rule \"ordering\" exactly when the metric kind is \"ordering\", found "
               "metric \"" +
                   to_string(claim.kind) + "\" with rule \"" + to_string(claim.rule.kind) + "\"");
  }
  if (claim.rule.kind == RuleKind::kFactor && claim.rule.tolerance < 1.0) {
    diag.error(at + "/rule/tolerance", "expected a factor >= 1 for rule \"factor\", found " +
                                           std::to_string(claim.rule.tolerance));
  }
  if (claim.rule.kind == RuleKind::kFactor && claim.paper_value && !(*claim.paper_value > 0.0)) {
    diag.error(at + "/paper/value", "expected a positive value for rule \"factor\"");
  }
  const bool needs_paper =
      claim.rule.kind == RuleKind::kAbs || claim.rule.kind == RuleKind::kRel ||
      claim.rule.kind == RuleKind::kFactor ||
      ((claim.rule.kind == RuleKind::kAtLeast || claim.rule.kind == RuleKind::kAtMost) &&
       !claim.rule.bound);
  if (measured && needs_paper && !claim.paper_value) {
    diag.error(at + "/paper/value", "expected a number (rule \"" + to_string(claim.rule.kind) +
                                        "\" compares with the paper's value), found none");
  }
  claim.reproduced = c.at("reproduced").get<bool>();
  claim.note = c.at("note").get<std::string>();
  if (claim.reproduced && !claim.not_comparable.empty()) {
    diag.error(at + "/reproduced", "expected false for a claim marked not_comparable, found true");
  }
  // The ratchet runs at CI size: a claim it guards needs every run at that size.
  for (const auto& t : claim.terms) {
    const auto* run = file.find_run(t.run);
    if (claim.reproduced && run != nullptr && !run->ci) {
      diag.error(at + "/reproduced", "expected false: run \"" + t.run +
                                         "\" has no CI-sized variant, so CI cannot check it");
    }
  }
  return claim;
}

}  // namespace

const RunSpec* ClaimFile::find_run(const std::string& id) const {
  for (const auto& r : runs) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::shared_ptr<const config::Schema> claim_file_schema() {
  static const auto schema = [] {
    auto s = std::make_shared<config::Schema>(
        "reproduction", "A paper's quantitative claims as checked targets (dcsim reproduce).");
    s->add("family", ParamType::kChoice)
        .one_of({"protean", "flashpoint", "harmonybatch", "infless", "queueing"})
        .doc("the family the claims belong to");
    s->add("paper", ParamType::kString).doc("the paper, as cited on its reproduction page");
    s->add("page", ParamType::kString).def("").doc("its page under docs/reproduction/");
    s->list_of("quantities", quantity_schema())
        .def(json::array())
        .doc("named expressions over a run summary that terms use as $ID");
    s->list_of("runs", run_schema()).doc("the runs the claims need");
    s->list_of("claims", claim_schema()).doc("the claims, in the paper's order");
    return std::shared_ptr<const config::Schema>(std::move(s));
  }();
  return schema;
}

ClaimFile load_claim_file(const fs::path& file) {
  config::Diagnostics diag(file.string());
  const json doc = read_document(file, diag);
  if (!doc.is_object()) {
    diag.error("", std::string("expected an object, found ") + doc.type_name());
    diag.throw_if_errors();
  }
  const json resolved = claim_file_schema()->resolve(doc, "", diag);
  diag.throw_if_errors();

  ClaimFile out;
  out.file = file;
  out.family = resolved.at("family").get<std::string>();
  out.paper = resolved.at("paper").get<std::string>();
  out.page = resolved.at("page").get<std::string>();
  const fs::path base = file.parent_path();
  const auto& quantities = resolved.at("quantities");
  for (std::size_t i = 0; i < quantities.size(); ++i) {
    const std::string at = fmt::format("/quantities/{}", i);
    const auto id = quantities[i].at("id").get<std::string>();
    const bool name_ok = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    });
    if (!name_ok) {
      diag.error(at + "/id",
                 fmt::format("expected a name of letters, digits and '_', found \"{}\"", id));
      continue;
    }
    if (out.quantities.contains(id)) {
      diag.error(at + "/id",
                 fmt::format("expected a unique quantity id, found \"{}\" a second time", id));
      continue;
    }
    const auto text = quantities[i].at("expr").get<std::string>();
    try {
      out.quantities.emplace(id, Expression::parse(text, out.quantities));
    } catch (const ExpressionError& e) {
      diag.error(at + "/expr",
                 fmt::format("expected an expression, found \"{}\": {} (at character {})", text,
                             e.what(), e.offset() + 1));
    }
  }
  std::set<std::string> ids;
  const auto& runs = resolved.at("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunSpec r;
    r.id = runs[i].at("id").get<std::string>();
    if (!ids.insert(r.id).second) {
      diag.error(fmt::format("/runs/{}/id", i),
                 "expected a unique run id, found \"" + r.id + "\" a second time");
    }
    const std::string at = fmt::format("/runs/{}", i);
    if (runs[i].contains("ci")) r.ci = read_variant(runs[i].at("ci"), base, at + "/ci", diag);
    if (runs[i].contains("full")) {
      r.full = read_variant(runs[i].at("full"), base, at + "/full", diag);
    }
    if (!r.ci && !r.full) {
      diag.error(fmt::format("/runs/{}", i),
                 "expected \"ci\" or \"full\" (or both), found neither");
    }
    out.runs.push_back(std::move(r));
  }
  std::set<std::string> claim_ids;
  const auto& claims = resolved.at("claims");
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const std::string at = fmt::format("/claims/{}", i);
    auto claim = read_claim(claims[i], at, out, diag);
    if (!claim_ids.insert(claim.id).second) {
      diag.error(at + "/id",
                 "expected a unique claim id, found \"" + claim.id + "\" a second time");
    }
    out.claims.push_back(std::move(claim));
  }
  diag.throw_if_errors();
  return out;
}

std::string to_string(MetricKind kind) {
  switch (kind) {
    case MetricKind::kValue:
      return "value";
    case MetricKind::kRatio:
      return "ratio";
    case MetricKind::kDifferencePp:
      return "difference_pp";
    case MetricKind::kReduction:
      return "reduction";
    case MetricKind::kOrdering:
      return "ordering";
    case MetricKind::kMeanRatio:
      return "mean_ratio";
    case MetricKind::kMeanReduction:
      return "mean_reduction";
  }
  return "value";
}

std::string to_string(RuleKind kind) {
  switch (kind) {
    case RuleKind::kAbs:
      return "abs";
    case RuleKind::kRel:
      return "rel";
    case RuleKind::kFactor:
      return "factor";
    case RuleKind::kAtLeast:
      return "at_least";
    case RuleKind::kAtMost:
      return "at_most";
    case RuleKind::kOrdering:
      return "ordering";
    case RuleKind::kSign:
      return "sign";
  }
  return "abs";
}

std::string to_string(Size size) {
  return size == Size::kCi ? "ci" : "full";
}

}  // namespace sim::reproduce
