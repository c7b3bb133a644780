// dcsim reproduce: runs the scenarios behind every claim of a paper (data/reproduction/*.json),
// evaluates the claims and prints/writes the scorecard; exits 1 when a claim marked reproduced
// no longer holds (the CI ratchet).

#include <fmt/format.h>
#include "sim/config/json_text.hpp"

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/reproduce/generated_page.hpp"
#include "sim/reproduce/rate_search.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/run.hpp"

namespace sim::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using reproduce::RunOutcome;
using reproduce::Size;

namespace {

const std::vector<std::string> kFamilies = {"queueing", "protean", "flashpoint", "harmonybatch",
                                            "infless"};

/// One run to execute: a claim file's run at the chosen size.
struct Job {
  std::string family;
  const reproduce::RunSpec* spec = nullptr;
  RunOutcome outcome;
  double wall_seconds = 0.0;
  bool reused = false;
};

/// The summary of an earlier, complete run of exactly this resolved scenario in `dir`, if any
/// (--reuse: a scorecard interrupted or run family by family need not rerun what it has).
std::optional<nlohmann::json> earlier_summary(const fs::path& dir, const nlohmann::json& resolved) {
  try {
    if (!fs::exists(dir / "summary.json") || !fs::exists(dir / "scenario.json")) {
      return std::nullopt;
    }
    if (scenario::read_json_file(dir / "scenario.json") != resolved) return std::nullopt;
    auto summary = scenario::read_json_file(dir / "summary.json");
    if (summary.value("partial", true)) return std::nullopt;
    return summary;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: run again
  }
}

/// A variant's scenario with its overrides, then `extra`, named `name`.
scenario::LoadedScenario load_variant(const reproduce::RunVariant& variant, const std::string& name,
                                      const std::vector<std::string>& extra,
                                      const scenario::Registry& registry) {
  scenario::LoadOptions load;
  load.preset_dirs = preset_dirs();
  for (const auto& s : variant.overrides)
    load.overrides.push_back(scenario::parse_override(s));
  for (const auto& s : extra)
    load.overrides.push_back(scenario::parse_override(s));
  load.overrides.push_back(scenario::parse_override("output.requests=none"));
  load.overrides.push_back(scenario::parse_override("name=" + nlohmann::json(name).dump()));
  return scenario::load_scenario(variant.scenario, registry, load);
}

/// The summary of one loaded scenario run into `out_dir` (or reused from an earlier complete
/// run there); nullopt when the run was interrupted.
std::optional<nlohmann::json> run_one(const scenario::LoadedScenario& loaded,
                                      const fs::path& out_dir, const scenario::Registry& registry,
                                      bool reuse, bool& reused) {
  const auto name = loaded.resolved.at("name").get<std::string>();
  if (reuse) {
    if (auto summary = earlier_summary(out_dir / name, loaded.resolved)) {
      reused = true;
      return summary;
    }
  }
  scenario::RunOptions run;
  run.out_dir = out_dir;
  fs::create_directories(run.out_dir);
  run.trace_search_path = trace_search_path();
  run.data_dir = data_dir();
  run.interrupted = interrupt_requested;
  auto result = scenario::run_scenario(loaded, registry, run);
  if (result.partial) return std::nullopt;
  return std::move(result.summary);
}

/// A search variant: bisects every workload's rate (rate_search.hpp); each probe is its own
/// run, RUN.rate-R; the outcome is the best probe's summary with a `search` block.
void execute_search(Job& job, const reproduce::RunVariant& variant, const fs::path& out_dir,
                    const std::vector<std::string>& extra, const scenario::Registry& registry,
                    bool reuse) {
  const std::size_t workloads =
      load_variant(variant, job.spec->id, extra, registry).resolved.at("workload").size();
  std::optional<nlohmann::json> best;
  std::optional<nlohmann::json> last;
  bool all_reused = true;
  const auto result = reproduce::search_rate(*variant.search, [&](double rate) {
    std::vector<std::string> rates = extra;
    for (std::size_t i = 0; i < workloads; ++i)
      rates.push_back(fmt::format("workload.{}.rate={}/s", i, rate));
    const auto loaded =
        load_variant(variant, fmt::format("{}.rate-{}", job.spec->id, rate), rates, registry);
    bool reused = false;
    auto summary = run_one(loaded, out_dir, registry, reuse, reused);
    all_reused = all_reused && reused;
    if (!summary) return std::optional<double>{};
    const double compliance = reproduce::search_compliance(*summary);
    if (compliance >= variant.search->target) best = *summary;
    last = std::move(summary);
    return std::optional<double>{compliance};
  });
  if (result.interrupted) {
    job.outcome.error = "interrupted";
    return;
  }
  // No rate met the target: the last probe's summary, with a search block saying 0.
  job.outcome.summary = best ? std::move(*best) : std::move(*last);
  job.outcome.summary["search"] = reproduce::search_block(result, workloads);
  // The probes, for a reader checking the search (the runs' own folders hold their summaries).
  metrics::write_json_atomic(out_dir / (job.spec->id + ".search.json"),
                             job.outcome.summary["search"]);
  job.outcome.ok = true;
  job.reused = all_reused;
}

/// `extra`: overrides applied to every run after its variant's own (--seed).
void execute(Job& job, Size size, const fs::path& runs_dir, const std::vector<std::string>& extra,
             const scenario::Registry& registry, bool reuse) {
  const auto* variant = job.spec->variant(size);
  if (variant == nullptr) {
    job.outcome.error = "no " + reproduce::to_string(size) + "-size variant";
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    if (variant->search) {
      execute_search(job, *variant, runs_dir / job.family, extra, registry, reuse);
    } else {
      const auto loaded = load_variant(*variant, job.spec->id, extra, registry);
      auto summary = run_one(loaded, runs_dir / job.family, registry, reuse, job.reused);
      if (summary) {
        job.outcome.ok = true;
        job.outcome.summary = std::move(*summary);
      } else {
        job.outcome.error = "interrupted";
      }
    }
  } catch (const std::exception& e) {
    job.outcome.error = std::string("failed: ") + e.what();
  }
  job.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Runs every job on `threads` threads (each run is independent and single-threaded).
void run_all(std::vector<Job>& jobs, Size size, const fs::path& runs_dir,
             const std::vector<std::string>& extra, unsigned threads, bool reuse,
             std::ostream& err) {
  const auto registry = builtin_registry();
  std::atomic<std::size_t> next{0};
  std::mutex log;
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      if (interrupt_requested()) return;
      execute(jobs[i], size, runs_dir, extra, registry, reuse);
      const std::lock_guard<std::mutex> lock(log);
      err << fmt::format("[{}/{}] {}/{}: {} ({:.1f} s)\n", i + 1, jobs.size(), jobs[i].family,
                         jobs[i].spec->id,
                         jobs[i].reused       ? "reused"
                         : jobs[i].outcome.ok ? "done"
                                              : jobs[i].outcome.error,
                         jobs[i].wall_seconds);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1U, threads); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& path, const std::string& text) {
  metrics::AtomicFile file(path);
  file.stream() << text;
  file.commit();
}

/// --page PAGE SCORECARD.json: regenerates the page's scorecard section.
int render_page(const fs::path& page, const fs::path& scorecard, std::ostream& out) {
  const auto card = reproduce::scorecard_from_json(config::read_json_document(scorecard.string()));
  const auto text = read_text(page);
  const auto updated = reproduce::replace_page_section(text, reproduce::page_section(card));
  if (updated != text) write_text(page, updated);
  out << page.string() << (updated == text ? ": unchanged\n" : ": updated\n");
  return kExitOk;
}

/// --merge OUT.json IN.json...: one scorecard of the families of several (of one size); a
/// family that appears again replaces the earlier one.
int merge_scorecards(const fs::path& target, const std::vector<std::string>& inputs,
                     std::ostream& out) {
  reproduce::Scorecard merged;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto card = reproduce::scorecard_from_json(config::read_json_document(inputs[i]));
    if (i > 0 && card.size != merged.size) {
      throw std::runtime_error(inputs[i] + ": a " + reproduce::to_string(card.size) +
                               "-size scorecard, the others are " +
                               reproduce::to_string(merged.size) + "-size");
    }
    merged.size = card.size;
    // A family run again replaces its earlier result in place (later scorecards win), so a
    // stored scorecard is refreshed one family at a time.
    for (auto& f : card.families) {
      const auto same = std::find_if(merged.families.begin(), merged.families.end(),
                                     [&](const auto& m) { return m.family == f.family; });
      if (same != merged.families.end()) {
        *same = std::move(f);
      } else {
        merged.families.push_back(std::move(f));
      }
    }
  }
  metrics::write_json_atomic(target, reproduce::to_json(merged));
  out << target.string() << ": " << merged.families.size() << " families\n";
  return kExitOk;
}

}  // namespace

int reproduce_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description options(
      "usage: dcsim reproduce FAMILY [--size ci|full] [-j N] [--out DIR] [--seed N] [--reuse]\n"
      "                              [--suggest]\n"
      "       dcsim reproduce --page docs/reproduction/README.md SCORECARD.json\n"
      "       dcsim reproduce --merge OUT.json SCORECARD.json...\n\n"
      "Runs the scenarios behind every claim of a paper (FAMILY: protean, flashpoint,\n"
      "harmonybatch, infless, queueing, or all), evaluates each claim of\n"
      "data/reproduction/FAMILY.json (the paper's value and where it is given, dcsim's value,\n"
      "the rule, and the verdict: holds, misses, or not comparable with the reason), prints\n"
      "the scorecard and writes DIR/scorecard.json and DIR/scorecard.md (runs under\n"
      "DIR/runs/). Exits 1 when a claim marked \"reproduced\": true does not hold. --seed N\n"
      "runs every scenario with seed N instead of its own (a seed study; the scorecard's\n"
      "verdicts are then those of seed N). --page\n"
      "rewrites the generated section of the reproduction summary from a scorecard; --merge\n"
      "joins the families of scorecards run separately.\n\noptions");
  options.add_options()("help,h", "show this help")(
      "size", po::value<std::string>()->default_value("ci"), "ci or full: which run variants")(
      "jobs,j", po::value<unsigned>()->default_value(1), "runs in parallel")(
      "out,o", po::value<std::string>()->default_value("out/reproduce"), "output directory")(
      "claims", po::value<std::string>(), "claim directory (default: DATA_DIR/reproduction)")(
      "seed", po::value<std::string>(),
      "master seed of every run (overrides each scenario's \"seed\", after the claim file's "
      "\"set\")")("reuse",
                  "reuse complete runs of the same resolved scenario found under DIR/runs/")(
      "suggest", "also list claims that hold but are not marked reproduced")(
      "page", po::value<std::string>(), "regenerate this page's scorecard section")(
      "merge", po::value<std::string>(), "write one scorecard of the given scorecards")(
      "inputs", po::value<std::vector<std::string>>(), "FAMILY, or SCORECARD.json with --page");
  if (wants_help(args)) {
    out << options << '\n';
    return kExitOk;
  }
  po::positional_options_description positional;
  positional.add("inputs", -1);
  const auto vm = parse_command_line(args, options, positional);
  const auto inputs = vm.count("inputs") != 0 ? vm["inputs"].as<std::vector<std::string>>()
                                              : std::vector<std::string>{};
  if (vm.count("page") != 0) {
    if (inputs.size() != 1) throw UsageError("--page takes exactly one SCORECARD.json");
    return render_page(vm["page"].as<std::string>(), inputs[0], out);
  }
  if (vm.count("merge") != 0) {
    if (inputs.empty()) throw UsageError("--merge needs at least one SCORECARD.json");
    return merge_scorecards(vm["merge"].as<std::string>(), inputs, out);
  }
  if (inputs.size() != 1) throw UsageError("expected one FAMILY");
  std::vector<std::string> families;
  if (inputs[0] == "all") {
    families = kFamilies;
  } else if (std::find(kFamilies.begin(), kFamilies.end(), inputs[0]) != kFamilies.end()) {
    families = {inputs[0]};
  } else {
    throw UsageError("unknown FAMILY \"" + inputs[0] +
                     "\"; expected protean, flashpoint, harmonybatch, infless, queueing or all");
  }
  const auto size_text = vm["size"].as<std::string>();
  if (size_text != "ci" && size_text != "full") {
    throw UsageError("--size: expected ci or full, found \"" + size_text + "\"");
  }
  const Size size = size_text == "ci" ? Size::kCi : Size::kFull;
  // Checked here, before any run (program_options would wrap "-1" to 2^64-1).
  std::vector<std::string> extra;
  if (vm.count("seed") != 0) {
    const auto text = vm["seed"].as<std::string>();
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      throw UsageError("--seed: expected an integer from 0 to 18446744073709551615, found \"" +
                       text + "\"");
    }
    extra.push_back("seed=" + std::to_string(seed));
  }
  const fs::path claims_dir = vm.count("claims") != 0 ? fs::path(vm["claims"].as<std::string>())
                                                      : data_dir() / "reproduction";
  const fs::path out_dir = vm["out"].as<std::string>();

  std::vector<reproduce::ClaimFile> files;
  for (const auto& f : families) {
    files.push_back(reproduce::load_claim_file(claims_dir / (f + ".json")));
  }
  // Only the runs some claim needs (a claim marked not comparable needs none).
  std::vector<Job> jobs;
  for (const auto& file : files) {
    for (const auto& spec : file.runs) {
      bool needed = false;
      for (const auto& c : file.claims) {
        for (const auto& t : c.terms)
          needed |= c.not_comparable.empty() && t.run == spec.id;
      }
      if (needed) jobs.push_back(Job{file.family, &spec, {}, 0.0});
    }
  }
  fs::create_directories(out_dir);
  const auto start = std::chrono::steady_clock::now();
  run_all(jobs, size, out_dir / "runs", extra, vm["jobs"].as<unsigned>(), vm.count("reuse") != 0,
          err);
  if (interrupt_requested()) return kExitInterrupted;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  reproduce::Scorecard card;
  card.size = size;
  for (const auto& file : files) {
    std::map<std::string, RunOutcome> outcomes;
    for (const auto& job : jobs) {
      if (job.family == file.family) outcomes[job.spec->id] = job.outcome;
    }
    reproduce::FamilyResult fr{file.family, file.paper, file.page, {}};
    for (const auto& claim : file.claims) {
      fr.claims.push_back(reproduce::evaluate_claim(claim, outcomes));
    }
    card.families.push_back(std::move(fr));
  }
  metrics::write_json_atomic(out_dir / "scorecard.json", reproduce::to_json(card));
  write_text(out_dir / "scorecard.md", reproduce::to_markdown(card));
  reproduce::print_table(card, out);
  out << fmt::format("{} runs in {:.1f} s wall; scorecard in {}\n", jobs.size(), wall,
                     (out_dir / "scorecard.json").string());
  if (vm.count("suggest") != 0) {
    const auto candidates = card.suggestions();
    out << (candidates.empty() ? "no claim holds without being marked reproduced\n"
                               : "hold but not marked \"reproduced\": true:\n");
    for (const auto* c : candidates)
      out << "  " << c->claim.id << '\n';
  }
  const auto regressions = card.regressions();
  for (const auto* c : regressions) {
    err << fmt::format("dcsim reproduce: {} is marked reproduced but {} ({})\n", c->claim.id,
                       to_string(c->verdict), c->reason);
  }
  return regressions.empty() ? kExitOk : kExitFailure;
}

}  // namespace sim::cli
