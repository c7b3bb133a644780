#include "sim/traces/workload_kinds.hpp"

#include <gtest/gtest.h>

#include "fixture.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/config/schema.hpp"
#include "sim/traces/merged_source.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {
namespace {

using nlohmann::json;
using testing::drain;
using testing::ScratchDir;

json resolve(const std::string& type, const json& entry,
             std::vector<std::string>* problems = nullptr) {
  static const auto kinds = builtin_workload_kinds();
  const WorkloadKind* k = find_workload_kind(kinds, type);
  EXPECT_NE(k, nullptr) << type;
  config::Diagnostics d("s.json");
  json out = k->schema->resolve(entry, "/workload/0", d);
  if (problems != nullptr) {
    for (const auto& p : d.problems())
      problems->push_back(p.render());
  } else {
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.problems()[0].render());
  }
  return out;
}

struct TestRun {
  RandomStreams random{1234};
  WorkloadLabels labels;
  WorkloadContext context() {
    WorkloadContext c;
    c.random = &random;
    c.stream_prefix = "workload/0";
    c.labels = &labels;
    c.trace_search_path = {};
    return c;
  }
};

TEST(WorkloadKinds, AllBuiltinsHaveSchemaAndFactory) {
  std::vector<std::string> names;
  for (const auto& k : builtin_workload_kinds()) {
    names.push_back(k.name);
    EXPECT_TRUE(k.schema);
    EXPECT_TRUE(k.make);
    for (const char* common : {"function", "application", "class", "slo", "transforms"})
      EXPECT_NE(k.schema->find(common), nullptr) << k.name << " lacks " << common;
  }
  const std::vector<std::string> expected = {"poisson",        "constant",  "mmpp",    "diurnal",
                                             "azure2019",      "azure2021", "twitter", "wikipedia",
                                             "csv_timestamps", "csv_rates"};
  EXPECT_EQ(names, expected);
}

TEST(WorkloadKinds, BadTransformStepsAreReportedWithTheirPath) {
  std::vector<std::string> problems;
  resolve(
      "poisson",
      json{{"rate", "10/s"},
           {"transforms", json::array({json{{"rescale", json{{"mean", "5/s"}, {"peak", "9/s"}}}},
                                       json{{"compress", json{{"factor", 0}}}}})}},
      &problems);
  const std::vector<std::string> expected = {
      "s.json: /workload/0/transforms/0/rescale: give exactly one of \"mean\" and \"peak\"",
      "s.json: /workload/0/transforms/1/compress/factor: must be > 0"};
  EXPECT_EQ(problems, expected);
  problems.clear();
  resolve("poisson",
          json{{"rate", "10/s"},
               {"transforms", json::array({json{{"window", json{{"duration", "1h"}}},
                                                {"compress", json{{"factor", 2}}}}})}},
          &problems);
  const std::vector<std::string> two = {
      "s.json: /workload/0/transforms: step 0: expected exactly one of \"window\", \"rescale\", "
      "\"compress\", \"ramp\", \"prerun\", \"split\", found 2"};
  EXPECT_EQ(problems, two);
}

// Generated and rescaled rates are limited to 1e8/s at the edge (1e12/s once ran for ever,
// growing by 1.7 GB per 30 s); the limit itself is accepted.
TEST(WorkloadKinds, GeneratedRatesAreLimited) {
  std::vector<std::string> problems;
  resolve("poisson", json{{"rate", "1e12/s"}}, &problems);
  resolve("constant", json{{"rate", "1e9/s"}}, &problems);
  resolve("diurnal", json{{"mean", "2e8/s"}}, &problems);
  resolve("mmpp", json{{"rate_low", "1/s"}, {"rate_high", "1e10/s"}}, &problems);
  resolve("poisson",
          json{{"rate", "10/s"},
               {"transforms", json::array({json{{"rescale", json{{"mean", "1e12/s"}}}}})}},
          &problems);
  ASSERT_EQ(problems.size(), 5u);
  EXPECT_EQ(problems[0],
            "s.json: /workload/0/rate: expected a value <= 100000000/s, found \"1e12/s\"");
  EXPECT_NE(problems[3].find("/workload/0/rate_high: expected a value <= 100000000/s"),
            std::string::npos)
      << problems[3];
  EXPECT_NE(problems[4].find("/workload/0/transforms/0/rescale/mean: expected a value <= "),
            std::string::npos)
      << problems[4];
  resolve("poisson", json{{"rate", "1e8/s"}});  // at the limit: accepted
}

TEST(WorkloadKinds, PoissonWithProteanMixEndToEnd) {
  // 200/s for 60 s, split 50/50 strict (resnet50, SLO 100 ms) / best-effort rotating between
  // two models every 20 s, round robin: 6000 +- 5 sd (sqrt(12000) = 110) arrivals, half each.
  const json entry = {
      {"rate", "200/s"},
      {"duration", "60s"},
      {"transforms",
       json::array(
           {json{{"split", json{{"assign", "round_robin"},
                                {"shares", json::array({json{{"share", 1},
                                                             {"class", "strict"},
                                                             {"function", "resnet50"},
                                                             {"slo", "100ms"}},
                                                        json{{"share", 1},
                                                             {"class", "best-effort"},
                                                             {"functions", {"bert", "gpt2"}},
                                                             {"rotate_every", "20s"}}})}}}}})}};
  const json resolved = resolve("poisson", entry);
  const auto kinds = builtin_workload_kinds();
  TestRun run;
  auto src = find_workload_kind(kinds, "poisson")->make(resolved, run.context());
  const auto arrivals = drain(*src);
  ASSERT_NEAR(static_cast<double>(arrivals.size()), 12000.0, 5 * 110.0);
  std::size_t strict = 0;
  for (const auto& a : arrivals) {
    if (a.cls == RequestClass::kStrict) {
      ++strict;
      EXPECT_EQ(run.labels.functions().at(a.function), "resnet50");
      EXPECT_EQ(a.slo, ms(100));
    } else {
      const std::string& fn = run.labels.functions().at(a.function);
      EXPECT_TRUE(fn == "bert" || fn == "gpt2") << fn;
    }
  }
  EXPECT_LE(std::max(strict, arrivals.size() - strict) - std::min(strict, arrivals.size() - strict),
            1u);
  // Same seed, same stream.
  TestRun again;
  auto src2 = find_workload_kind(kinds, "poisson")->make(resolved, again.context());
  const auto arrivals2 = drain(*src2);
  ASSERT_EQ(arrivals.size(), arrivals2.size());
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    EXPECT_EQ(arrivals[i].time, arrivals2[i].time);
    EXPECT_EQ(arrivals[i].function, arrivals2[i].function);
  }
}

TEST(WorkloadKinds, ReaderWithWindowAndRescaleToMean) {
  // 100 s of per-second counts 1..100; window [10 s, 60 s) holds 11..60 (sum 1775, mean
  // 35.5/s); rescaled to a mean of 128/s (Protean's language-model rate): 6400 arrivals in 50 s.
  ScratchDir dir;
  std::string csv = "second,requests\n";
  for (int i = 0; i < 100; ++i)
    csv += std::to_string(i) + "," + std::to_string(i + 1) + "\n";
  const std::string path = dir.write("r.csv", csv);
  const json resolved = resolve(
      "csv_rates", json{{"file", path},
                        {"function", "llama"},
                        {"transforms",
                         json::array({json{{"window", json{{"start", "10s"}, {"duration", "50s"}}}},
                                      json{{"rescale", json{{"mean", "128/s"}}}}})}});
  TestRun run;
  const auto kinds = builtin_workload_kinds();
  auto src = find_workload_kind(kinds, "csv_rates")->make(resolved, run.context());
  const auto arrivals = drain(*src);
  EXPECT_NEAR(static_cast<double>(arrivals.size()), 6400.0, 1.0);
  EXPECT_LT(arrivals.back().time, seconds(50));
  EXPECT_EQ(run.labels.functions().at(arrivals[0].function), "llama");
}

TEST(WorkloadKinds, PrerunReplaysTheRampedStartThenTheWholeSeries) {
  // Per-second counts 10, 20, ..., 100 (10 s). window [0, 10 s) -> prerun 4 s -> ramp 2 s:
  // the series becomes 10, 20, 30, 40 (the replay) then 10, 20, ..., 100 from 4 s on; the ramp
  // scales the first two seconds (midpoints 0.5, 1.5 s) by 1/4 and 3/4: 2.5 and 15 (2 or 3 by
  // error diffusion, 15), then 30, 40, and the unramped series: 17.5 + 70 + 550 = 637.5 in all.
  // The measured part (from 4 s) holds the series' counts at their offsets: 10 in [4 s, 5 s),
  // 100 in [13 s, 14 s).
  ScratchDir dir;
  std::string csv = "second,requests\n";
  for (int i = 0; i < 10; ++i)
    csv += std::to_string(i) + "," + std::to_string(10 * (i + 1)) + "\n";
  const std::string path = dir.write("r.csv", csv);
  const json resolved = resolve(
      "csv_rates", json{{"file", path},
                        {"function", "f"},
                        {"transforms", json::array({json{{"window", json{{"start", "0s"}}}},
                                                    json{{"prerun", json{{"duration", "4s"}}}},
                                                    json{{"ramp", json{{"duration", "2s"}}}}})}});
  TestRun run;
  const auto kinds = builtin_workload_kinds();
  auto src = find_workload_kind(kinds, "csv_rates")->make(resolved, run.context());
  const auto arrivals = drain(*src);
  std::vector<std::size_t> per_second(14, 0);
  for (const auto& a : arrivals) {
    ASSERT_LT(a.time, seconds(14));
    ++per_second[static_cast<std::size_t>(a.time.ns() / seconds(1).ns())];
  }
  EXPECT_NEAR(static_cast<double>(per_second[0]), 2.5, 0.5);
  // 2.5 + 15 = 17.5: the carry leaves 17 or 18.
  EXPECT_NEAR(static_cast<double>(per_second[0] + per_second[1]), 17.5, 0.5);
  EXPECT_EQ(per_second[2], 30u);
  EXPECT_EQ(per_second[3], 40u);
  for (std::size_t k = 4; k < 14; ++k)
    EXPECT_EQ(per_second[k], 10 * (k - 3)) << k;
  EXPECT_EQ(run.labels.functions().at(arrivals[0].function), "f");
  // A non-positive duration is rejected by the schema.
  std::vector<std::string> problems;
  resolve("poisson",
          json{{"rate", "10/s"},
               {"transforms", json::array({json{{"prerun", json{{"duration", "0s"}}}}})}},
          &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("/transforms/0/prerun/duration"), std::string::npos) << problems[0];
}

TEST(WorkloadKinds, MissingFileAndHorizon) {
  TestRun run;
  auto ctx = run.context();
  ctx.trace_search_path = {"/nonexistent-a", "/nonexistent-b"};
  const auto kinds = builtin_workload_kinds();
  const json resolved = resolve("twitter", json::object());
  try {
    find_workload_kind(kinds, "twitter")->make(resolved, ctx);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "twitter/twitter_stream_rps_per_second.txt.gz: trace file not found (searched "
                  "/nonexistent-a, /nonexistent-b"),
              std::string::npos)
        << e.what();
  }
  // An endless generator stops at the horizon.
  ctx.horizon = seconds(2);
  auto src =
      find_workload_kind(kinds, "constant")->make(resolve("constant", json{{"rate", "10/s"}}), ctx);
  // Without a duration the generator covers [0, horizon): 0.1 .. 1.9 s.
  EXPECT_EQ(drain(*src).size(), 19u);
}

TEST(WorkloadKinds, LenientReaderWarnsWithTheSkipCount) {
  ScratchDir dir;
  const std::string path = dir.write("t.csv", "1\nbad\n2\n");
  TestRun run;
  auto ctx = run.context();
  std::vector<std::string> notes;
  ctx.warn = [&](const std::string& n) { notes.push_back(n); };
  const auto kinds = builtin_workload_kinds();
  auto src = find_workload_kind(kinds, "csv_timestamps")
                 ->make(resolve("csv_timestamps", json{{"file", path}, {"lenient", true}}), ctx);
  EXPECT_EQ(drain(*src).size(), 2u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], path + ": skipped 1 of 3 rows (lenient mode; first: " + path +
                          ":2: expected a time stamp in column 1, found \"bad\")");
}

}  // namespace
}  // namespace sim::traces
