// Evaluating claims on run summaries, and the scorecard's three renderings.

#include "sim/reproduce/scorecard.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "sim/scenario/golden.hpp"

namespace sim::reproduce {

using nlohmann::json;

namespace {

std::string num(double v) {
  return fmt::format("{:.4g}", v);
}

/// The numeric value of one term, or the reason there is none.
std::optional<double> term_value(const Term& t, const std::map<std::string, RunOutcome>& runs,
                                 std::string& reason) {
  const auto it = runs.find(t.run);
  if (it == runs.end() || !it->second.ok) {
    reason = fmt::format("run {}: {}", t.run, it == runs.end() ? "not run" : it->second.error);
    return std::nullopt;
  }
  std::string why;
  std::optional<double> v;
  try {
    v = (t.value.empty() ? Expression::parse(t.metric) : t.value).evaluate(it->second.summary, why);
  } catch (const ExpressionError& e) {
    why = fmt::format("metric \"{}\": {}", t.metric, e.what());
  }
  if (!v) reason = fmt::format("run {}: {}", t.run, why);
  return v;
}

/// The metric expression (MetricKind) on the terms' values.
std::optional<double> combine(MetricKind kind, const std::vector<double>& v, std::string& reason) {
  switch (kind) {
    case MetricKind::kValue:
      return v[0];
    case MetricKind::kRatio:
      if (v[1] == 0.0) {
        reason = "the denominator is 0";
        return std::nullopt;
      }
      return v[0] / v[1];
    case MetricKind::kDifferencePp:
      return 100.0 * (v[0] - v[1]);
    case MetricKind::kReduction:
      if (v[1] == 0.0) {
        reason = "the reference value is 0";
        return std::nullopt;
      }
      return 100.0 * (1.0 - v[0] / v[1]);
    case MetricKind::kMeanRatio:
    case MetricKind::kMeanReduction: {
      double sum = 0.0;
      for (std::size_t i = 0; i + 1 < v.size(); i += 2) {
        if (v[i + 1] == 0.0) {
          reason = fmt::format("the denominator of ratio {} is 0", i / 2 + 1);
          return std::nullopt;
        }
        sum += kind == MetricKind::kMeanRatio ? v[i] / v[i + 1] : 100.0 * (1.0 - v[i] / v[i + 1]);
      }
      return sum / static_cast<double>(v.size() / 2);
    }
    case MetricKind::kOrdering:
      return std::nullopt;
  }
  return std::nullopt;
}

bool check_rule(const Claim& c, const std::vector<double>& values, double value) {
  const Rule& r = c.rule;
  switch (r.kind) {
    case RuleKind::kAbs:
      return std::fabs(value - *c.paper_value) <= r.tolerance;
    case RuleKind::kRel:
      return std::fabs(value - *c.paper_value) <= r.tolerance * std::fabs(*c.paper_value);
    case RuleKind::kFactor:
      return value >= *c.paper_value / r.tolerance && value <= *c.paper_value * r.tolerance;
    case RuleKind::kAtLeast:
      return value >= r.bound.value_or(c.paper_value.value_or(0.0));
    case RuleKind::kAtMost:
      return value <= r.bound.value_or(c.paper_value.value_or(0.0));
    case RuleKind::kSign:
      return r.positive ? value > 0.0 : value < 0.0;
    case RuleKind::kOrdering:
      for (std::size_t i = 1; i < values.size(); ++i) {
        if (r.descending ? !(values[i - 1] > values[i]) : !(values[i - 1] < values[i])) {
          return false;
        }
      }
      return true;
  }
  return false;
}

std::string term_text(const Term& t) {
  return t.run + ":" + t.metric;
}

}  // namespace

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::kHolds:
      return "holds";
    case Verdict::kMisses:
      return "misses";
    case Verdict::kNotComparable:
      return "not comparable";
  }
  return "not comparable";
}

std::size_t FamilyResult::count(Verdict v) const {
  std::size_t n = 0;
  for (const auto& c : claims)
    n += c.verdict == v ? 1 : 0;
  return n;
}

std::vector<const ClaimResult*> Scorecard::regressions() const {
  std::vector<const ClaimResult*> out;
  for (const auto& f : families) {
    for (const auto& c : f.claims) {
      if (c.claim.reproduced && c.verdict != Verdict::kHolds) out.push_back(&c);
    }
  }
  return out;
}

std::vector<const ClaimResult*> Scorecard::suggestions() const {
  std::vector<const ClaimResult*> out;
  for (const auto& f : families) {
    for (const auto& c : f.claims) {
      if (!c.claim.reproduced && c.verdict == Verdict::kHolds) out.push_back(&c);
    }
  }
  return out;
}

ClaimResult evaluate_claim(const Claim& claim, const std::map<std::string, RunOutcome>& runs) {
  ClaimResult r;
  r.claim = claim;
  if (!claim.not_comparable.empty()) {
    r.reason = claim.not_comparable;
    return r;
  }
  for (const auto& t : claim.terms) {
    const auto v = term_value(t, runs, r.reason);
    if (!v) {
      r.values.clear();  // a partial set of terms means nothing
      return r;
    }
    r.values.push_back(*v);
  }
  double value = 0.0;
  if (claim.kind != MetricKind::kOrdering) {
    const auto v = combine(claim.kind, r.values, r.reason);
    if (!v) {
      r.values.clear();
      return r;
    }
    value = *v;
    r.values = {value};
  }
  const bool holds = check_rule(claim, r.values, value);
  r.verdict = holds ? Verdict::kHolds : Verdict::kMisses;
  if (!holds) r.reason = claim.note.empty() ? "outside the rule" : claim.note;
  return r;
}

std::string describe_rule(const Claim& c) {
  if (!c.not_comparable.empty()) return "-";  // never evaluated
  const Rule& r = c.rule;
  switch (r.kind) {
    case RuleKind::kAbs:
      return fmt::format("within ±{} of {}", num(r.tolerance), num(c.paper_value.value_or(0)));
    case RuleKind::kRel:
      return fmt::format("within ±{}% of {}", num(100.0 * r.tolerance),
                         num(c.paper_value.value_or(0)));
    case RuleKind::kFactor:
      return fmt::format("within {}x of {}", num(r.tolerance), num(c.paper_value.value_or(0)));
    case RuleKind::kAtLeast:
      return ">= " + num(r.bound.value_or(c.paper_value.value_or(0)));
    case RuleKind::kAtMost:
      return "<= " + num(r.bound.value_or(c.paper_value.value_or(0)));
    case RuleKind::kSign:
      return r.positive ? "> 0" : "< 0";
    case RuleKind::kOrdering:
      return r.descending ? "strictly descending" : "strictly ascending";
  }
  return "";
}

std::string describe_values(const ClaimResult& r) {
  if (r.values.empty()) return "-";
  std::string out;
  const char* sep = r.claim.rule.kind == RuleKind::kOrdering ? " / " : "";
  for (std::size_t i = 0; i < r.values.size(); ++i)
    out += (i == 0 ? "" : sep) + num(r.values[i]);
  return out;
}

json to_json(const Scorecard& card) {
  json families = json::array();
  for (const auto& f : card.families) {
    json claims = json::array();
    for (const auto& r : f.claims) {
      const Claim& c = r.claim;
      json terms = json::array();
      for (const auto& t : c.terms)
        terms.push_back(term_text(t));
      json rule = {{"kind", to_string(c.rule.kind)},
                   {"tolerance", c.rule.tolerance},
                   {"order", c.rule.descending ? "descending" : "ascending"},
                   {"sign", c.rule.positive ? "positive" : "negative"}};
      if (c.rule.bound) rule["bound"] = *c.rule.bound;
      json paper = {{"where", c.where}, {"text", c.paper_text}};
      if (c.paper_value) paper["value"] = *c.paper_value;
      claims.push_back({{"id", c.id},
                        {"statement", c.statement},
                        {"paper", paper},
                        {"metric", {{"kind", to_string(c.kind)}, {"of", terms}}},
                        {"rule", rule},
                        {"rule_text", describe_rule(c)},
                        {"reproduced", c.reproduced},
                        {"not_comparable", c.not_comparable},
                        {"note", c.note},
                        {"values", r.values},
                        {"verdict", to_string(r.verdict)},
                        {"reason", r.reason}});
    }
    families.push_back({{"family", f.family},
                        {"paper", f.paper},
                        {"page", f.page},
                        {"counts",
                         {{"holds", f.count(Verdict::kHolds)},
                          {"misses", f.count(Verdict::kMisses)},
                          {"not_comparable", f.count(Verdict::kNotComparable)}}},
                        {"claims", claims}});
  }
  return {{"size", to_string(card.size)}, {"families", families}};
}

Scorecard scorecard_from_json(const json& doc) {
  try {
    Scorecard card;
    card.size = doc.at("size").get<std::string>() == "full" ? Size::kFull : Size::kCi;
    for (const auto& f : doc.at("families")) {
      FamilyResult fr;
      fr.family = f.at("family").get<std::string>();
      fr.paper = f.at("paper").get<std::string>();
      fr.page = f.at("page").get<std::string>();
      for (const auto& c : f.at("claims")) {
        ClaimResult r;
        Claim& claim = r.claim;
        claim.id = c.at("id").get<std::string>();
        claim.statement = c.at("statement").get<std::string>();
        claim.where = c.at("paper").at("where").get<std::string>();
        claim.paper_text = c.at("paper").at("text").get<std::string>();
        if (c.at("paper").contains("value")) {
          claim.paper_value = c.at("paper").at("value").get<double>();
        }
        const auto kind = c.at("metric").at("kind").get<std::string>();
        for (const auto k : {MetricKind::kValue, MetricKind::kRatio, MetricKind::kDifferencePp,
                             MetricKind::kReduction, MetricKind::kOrdering, MetricKind::kMeanRatio,
                             MetricKind::kMeanReduction}) {
          if (to_string(k) == kind) claim.kind = k;
        }
        for (const auto& t : c.at("metric").at("of")) {
          const auto s = t.get<std::string>();
          const auto colon = s.find(':');
          claim.terms.push_back({s.substr(0, colon), s.substr(colon + 1), {}});
        }
        const auto& rule = c.at("rule");
        const auto rk = rule.at("kind").get<std::string>();
        for (const auto k : {RuleKind::kAbs, RuleKind::kRel, RuleKind::kFactor, RuleKind::kAtLeast,
                             RuleKind::kAtMost, RuleKind::kOrdering, RuleKind::kSign}) {
          if (to_string(k) == rk) claim.rule.kind = k;
        }
        claim.rule.tolerance = rule.at("tolerance").get<double>();
        if (rule.contains("bound")) claim.rule.bound = rule.at("bound").get<double>();
        claim.rule.descending = rule.at("order").get<std::string>() == "descending";
        claim.rule.positive = rule.at("sign").get<std::string>() == "positive";
        claim.reproduced = c.at("reproduced").get<bool>();
        claim.not_comparable = c.at("not_comparable").get<std::string>();
        claim.note = c.at("note").get<std::string>();
        r.values = c.at("values").get<std::vector<double>>();
        const auto verdict = c.at("verdict").get<std::string>();
        r.verdict = verdict == "holds"    ? Verdict::kHolds
                    : verdict == "misses" ? Verdict::kMisses
                                          : Verdict::kNotComparable;
        r.reason = c.at("reason").get<std::string>();
        fr.claims.push_back(std::move(r));
      }
      card.families.push_back(std::move(fr));
    }
    return card;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("not a scorecard: ") + e.what());
  }
}

namespace {
/// Markdown table cells must not contain a bare '|'.
std::string cell(const std::string& s) {
  std::string out;
  for (const char ch : s)
    out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}
}  // namespace

std::string to_markdown(const Scorecard& card, int heading_level) {
  const std::string h(static_cast<std::size_t>(heading_level), '#');
  std::string out;
  out += "| paper | holds | misses | not comparable |\n|---|---|---|---|\n";
  for (const auto& f : card.families) {
    out += fmt::format("| {} | {} | {} | {} |\n", cell(f.paper), f.count(Verdict::kHolds),
                       f.count(Verdict::kMisses), f.count(Verdict::kNotComparable));
  }
  out += "\n";
  for (const auto& f : card.families) {
    out += fmt::format("{} {}\n\n", h, f.paper);
    if (!f.page.empty()) out += fmt::format("Explanations: [{}]({}).\n\n", f.page, f.page);
    out += "| claim | where | paper | dcsim | rule | verdict |\n|---|---|---|---|---|---|\n";
    for (const auto& r : f.claims) {
      std::string verdict = to_string(r.verdict);
      if (r.claim.reproduced) verdict += " (ratcheted)";
      if (!r.reason.empty()) verdict += ": " + r.reason;
      out += fmt::format("| `{}`: {} | {} | {} | {} | {} | {} |\n", r.claim.id,
                         cell(r.claim.statement), cell(r.claim.where), cell(r.claim.paper_text),
                         describe_values(r), cell(describe_rule(r.claim)), cell(verdict));
    }
    out += "\n";
  }
  return out;
}

void print_table(const Scorecard& card, std::ostream& out) {
  for (const auto& f : card.families) {
    out << fmt::format("{} ({} size): {} hold, {} miss, {} not comparable\n", f.paper,
                       to_string(card.size), f.count(Verdict::kHolds), f.count(Verdict::kMisses),
                       f.count(Verdict::kNotComparable));
    out << fmt::format("  {:<44} {:<14} {:>12} {:>22} {:<26} {}\n", "claim", "where", "paper",
                       "dcsim", "rule", "verdict");
    for (const auto& r : f.claims) {
      std::string verdict = to_string(r.verdict);
      if (r.claim.reproduced) verdict += " [ratchet]";
      if (!r.reason.empty()) verdict += " (" + r.reason + ")";
      out << fmt::format("  {:<44} {:<14} {:>12} {:>22} {:<26} {}\n", r.claim.id, r.claim.where,
                         r.claim.paper_text, describe_values(r), describe_rule(r.claim), verdict);
    }
    out << '\n';
  }
}

}  // namespace sim::reproduce
