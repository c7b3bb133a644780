#include "sim/traces/workload_kinds.hpp"

#include <stdexcept>

#include "sim/config/schema.hpp"
#include "sim/traces/azure2019_reader.hpp"
#include "sim/traces/generators.hpp"
#include "sim/traces/rate_series_reader.hpp"
#include "sim/traces/series_arrival_source.hpp"
#include "sim/traces/series_transforms.hpp"
#include "sim/traces/split_source.hpp"
#include "sim/traces/text_reader.hpp"
#include "sim/traces/timestamp_reader.hpp"
#include "sim/traces/trace_path.hpp"
#include "sim/traces/workload_limits.hpp"

namespace sim::traces {

using config::ParamType;
using config::Schema;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Schemas

/// An object-valued key that may be absent (Schema::object defaults to {}).
config::Param& optional_object(Schema& s, const std::string& name,
                               std::shared_ptr<const Schema> nested) {
  config::Param& p = s.object(name, std::move(nested));
  p.default_value.reset();
  p.nullable_default = true;
  return p;
}

std::string positive_number(const json& v) {
  return v.get<double>() > 0 ? "" : "must be > 0";
}

std::shared_ptr<const Schema> window_schema() {
  auto s = std::make_shared<Schema>("window",
                                    "Keep the part of the trace in [start, start + duration).");
  s->add("start", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("window start on the trace's time axis");
  s->add("duration", ParamType::kDuration)
      .optional()
      .at_least(1e-9)
      .doc("window length; absent: to the end of the trace");
  s->add("rebase", ParamType::kBool).def(true).doc("make the window start time zero");
  return s;
}

std::shared_ptr<const Schema> rescale_schema() {
  auto s = std::make_shared<Schema>(
      "rescale",
      "Multiply all counts so that the mean or the peak rate reaches a target (a first pass over "
      "the trace measures it). Protean §5: Wikipedia to a mean of ~5000 rps, Twitter to a peak of "
      "~5000 rps, language models 128 rps.");
  s->add("mean", ParamType::kRate)
      .optional()
      .at_least(0)
      .at_most(kMaxGeneratedRate)
      .doc("target mean rate, e.g. \"5000/s\"");
  s->add("peak", ParamType::kRate)
      .optional()
      .at_least(0)
      .at_most(kMaxGeneratedRate)
      .doc("target peak rate, e.g. \"5000/s\"");
  s->add("peak_bin", ParamType::kDuration)
      .def("1s")
      .at_least(1e-9)
      .doc("bin over which the peak rate is measured (never shorter than the trace's interval)");
  return s;
}

std::shared_ptr<const Schema> compress_schema() {
  auto s = std::make_shared<Schema>(
      "compress", "Divide all times by `factor` (2 = twice as fast, rates double).");
  s->add("factor", ParamType::kNumber).validate(positive_number).doc("speed-up factor, > 0");
  return s;
}

std::shared_ptr<const Schema> ramp_schema() {
  auto s = std::make_shared<Schema>(
      "ramp",
      "Scale counts by t / duration for t < duration (a linear rise from zero), so that a "
      "warm-up brings the platform up to its operating point instead of a cold cluster taking "
      "the full load at once.");
  s->add("duration", ParamType::kDuration).at_least(1e-9).doc("length of the rise, > 0");
  return s;
}

std::shared_ptr<const Schema> prerun_schema() {
  auto s = std::make_shared<Schema>(
      "prerun",
      "Play the series' own first `duration` before it, then the whole series shifted by "
      "`duration`: a pre-run whose load builds the platform's start state (containers, "
      "geometries) with the scheme's own policies. Lengthen the run's duration and warm-up by "
      "`duration` so that its requests are not measured (docs/traces.md).");
  s->add("duration", ParamType::kDuration).at_least(1e-9).doc("length of the pre-run, > 0");
  return s;
}

std::shared_ptr<const Schema> share_schema() {
  auto s =
      std::make_shared<Schema>("share", "One part of a split; unset fields keep the arrival's.");
  s->add("share", ParamType::kNumber).validate(positive_number).doc("relative weight, > 0");
  s->add("function", ParamType::kString).optional().doc("function (model) of this share");
  s->list_of("functions", ParamType::kString)
      .optional()
      .doc("several functions to rotate between (needs rotate_every)");
  s->add("rotate_every", ParamType::kDuration)
      .optional()
      .at_least(1e-9)
      .doc("rotation period, e.g. \"20s\" (Protean §5)");
  s->add("rotation", ParamType::kChoice)
      .def("random")
      .one_of({"random", "cycle"})
      .doc("pick the function of each period at random or in turn");
  s->add("application", ParamType::kString).optional().doc("application of this share");
  s->add("class", ParamType::kChoice).optional().one_of({"strict", "best-effort"}).doc("SLO class");
  s->add("slo", ParamType::kDuration).optional().at_least(0).doc("latency objective");
  return s;
}

std::shared_ptr<const Schema> split_schema() {
  auto s = std::make_shared<Schema>(
      "split", "Assign each arrival to one of several shares (functions, applications, classes).");
  s->list_of("shares", share_schema()).at_least(1).doc("the shares, at least one");
  s->add("assign", ParamType::kChoice)
      .def("random")
      .one_of({"random", "round_robin"})
      .doc("independent draw per arrival, or deterministic smooth weighted round robin");
  return s;
}

std::shared_ptr<const Schema> transform_schema() {
  auto s = std::make_shared<Schema>(
      "transform", "One step: exactly one of window, rescale, compress, ramp, prerun, split.");
  optional_object(*s, "window", window_schema()).doc("time window");
  optional_object(*s, "rescale", rescale_schema())
      .doc("rescale to a mean or peak rate")
      .validate([](const json& v) {
        const bool mean = v.contains("mean") && !v["mean"].is_null();
        const bool peak = v.contains("peak") && !v["peak"].is_null();
        return mean != peak ? "" : "give exactly one of \"mean\" and \"peak\"";
      });
  optional_object(*s, "compress", compress_schema()).doc("time compression");
  optional_object(*s, "ramp", ramp_schema()).doc("linear rise of the load from zero");
  optional_object(*s, "prerun", prerun_schema()).doc("replay of the series' start before it");
  optional_object(*s, "split", split_schema())
      .doc("split by shares")
      .validate([](const json& v) -> std::string {
        if (!v.contains("shares") || !v["shares"].is_array()) return "";
        for (std::size_t i = 0; i < v["shares"].size(); ++i) {
          const json& sh = v["shares"][i];
          if (!sh.is_object()) continue;
          const bool one = sh.contains("function");
          const bool many = sh.contains("functions");
          if (one && many) {
            return "share " + std::to_string(i) + ": give \"function\" or \"functions\", not both";
          }
          if (many && sh["functions"].is_array() && sh["functions"].size() > 1 &&
              !sh.contains("rotate_every")) {
            return "share " + std::to_string(i) + ": several \"functions\" need \"rotate_every\"";
          }
          if (many && sh["functions"].is_array() && sh["functions"].empty()) {
            return "share " + std::to_string(i) + ": \"functions\" is empty";
          }
        }
        return "";
      });
  return s;
}

void add_common(Schema& s) {
  constexpr const char* kTransformDoc =
      "ordered steps: {\"window\": {...}}, {\"rescale\": {...}}, {\"compress\": {...}}, "
      "{\"ramp\": {...}}, {\"prerun\": {...}}, {\"split\": {...}}; "
      "window/rescale/compress/ramp/prerun act on counts in order, splits on arrivals";
  s.add("function", ParamType::kString).def("default").doc("function (model) of the requests");
  s.add("application", ParamType::kString).def("default").doc("application of the requests");
  s.add("class", ParamType::kChoice)
      .def("strict")
      .one_of({"strict", "best-effort"})
      .doc("SLO class of the requests");
  s.add("slo", ParamType::kDuration).optional().at_least(0).doc("end-to-end latency objective");
  auto ts = transform_schema();
  s.list_of("transforms", ts).def(json::array()).doc(kTransformDoc).validate([](const json& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_object()) continue;
      int n = 0;
      for (const char* k : {"window", "rescale", "compress", "ramp", "prerun", "split"}) {
        if (v[i].contains(k)) ++n;
      }
      if (n != 1) {
        return "step " + std::to_string(i) +
               ": expected exactly one of \"window\", \"rescale\", \"compress\", \"ramp\", "
               "\"prerun\", \"split\", "
               "found " +
               std::to_string(n);
      }
    }
    return std::string();
  });
}

void add_placement(Schema& s) {
  s.add("placement", ParamType::kChoice)
      .def("poisson")
      .one_of({"poisson", "uniform", "even"})
      .doc(
          "where an interval's requests fall inside it: sorted uniform positions (Poisson "
          "conditioned on the count), one per equal slot, or evenly spaced");
}

void add_reader_common(Schema& s, const std::string& default_file) {
  config::Param& f = s.add("file", ParamType::kString)
                         .doc(
                             "trace file, absolute or relative to a trace directory "
                             "(DCSIM_TRACE_PATH, ../shared/traces, ./traces)");
  if (!default_file.empty()) f.def(default_file);
  s.add("lenient", ParamType::kBool)
      .def(false)
      .doc("skip malformed rows and report how many, instead of stopping");
  s.add("max_rate", ParamType::kRate)
      .def("100000/s")
      .at_least(1e-9)
      .doc("a count above max_rate x interval is an input error (absurd value)");
  s.add("rebase", ParamType::kBool).def(true).doc("start the trace at time zero");
}

void add_csv_common(Schema& s) {
  s.add("delimiter", ParamType::kString)
      .def(",")
      .validate([](const json& v) {
        return v.get<std::string>().size() == 1 ? "" : "expected one character";
      })
      .doc("field separator");
  s.add("header", ParamType::kChoice)
      .def("auto")
      .one_of({"auto", "yes", "no"})
      .doc("auto: the first row is a header when its time field is not a number");
  s.add("time_column", ParamType::kString).def("0").doc("header name or 0-based index");
  s.add("time_unit", ParamType::kChoice)
      .def("s")
      .one_of({"s", "ms", "us", "ns", "datetime"})
      .doc("unit of the time column; datetime: \"YYYY-MM-DD HH:MM:SS\" (UTC)");
}

void add_duration(Schema& s) {
  s.add("duration", ParamType::kDuration)
      .optional()
      .at_least(1e-9)
      .doc("how long to generate; absent: until the run's horizon");
}

// ---------------------------------------------------------------------------------------------
// Reading resolved values

std::string str(const json& o, const char* key) {
  return o.at(key).get<std::string>();
}

std::optional<std::string> opt_str(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::nullopt;
  return it->get<std::string>();
}

ReaderOptions reader_options(const json& o) {
  ReaderOptions r;
  r.lenient = o.at("lenient").get<bool>();
  r.max_rate_per_s = config::get_rate(o, "max_rate");
  r.rebase = o.at("rebase").get<bool>();
  return r;
}

RequestClass parse_class(const std::string& s) {
  return s == "best-effort" ? RequestClass::kBestEffort : RequestClass::kStrict;
}

std::string find_file(const json& o, const WorkloadContext& ctx) {
  return find_trace_file(str(o, "file"), ctx.trace_search_path);
}

RandomStream stream(const WorkloadContext& ctx, const std::string& purpose) {
  if (ctx.random == nullptr) {
    throw std::invalid_argument("workload " + ctx.stream_prefix +
                                ": WorkloadContext.random is not set");
  }
  return ctx.random->stream(ctx.stream_prefix, purpose);
}

Time generator_duration(const json& o, const WorkloadContext& ctx) {
  if (auto d = config::get_optional_duration(o, "duration")) return *d;
  return ctx.horizon;
}

/// The first line (up to 64 KiB) of a file, for format detection.
std::string first_line(const std::string& path) {
  TextReader in(path);
  std::string head = in.peek_prefix(std::size_t{1} << 16);
  const auto nl = head.find('\n');
  if (nl != std::string::npos) head.resize(nl);
  if (!head.empty() && head.back() == '\r') head.pop_back();
  return head;
}

RateSeriesOptions csv_rate_options(const json& o) {
  RateSeriesOptions r;
  r.layout = RateSeriesOptions::Layout::kCsv;
  r.delimiter = str(o, "delimiter")[0];
  r.header = parse_header_mode(str(o, "header"));
  r.time_column = str(o, "time_column");
  r.value_column = str(o, "value_column");
  r.unit = parse_time_unit(str(o, "time_unit"));
  r.value_is_rate = str(o, "value") == "rate";
  r.interval = config::get_optional_duration(o, "interval");
  r.duplicates = parse_duplicates(str(o, "duplicates"));
  r.reader = reader_options(o);
  return r;
}

/// Twitter and Wikipedia files come either as bare counts or as a `second,requests` CSV.
bool looks_like_csv(const std::string& line) {
  return line.find(',') != std::string::npos || line.find(';') != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Kinds

struct KindDef {
  std::string name;
  std::string description;
  std::shared_ptr<Schema> schema;
  std::function<SeriesFactory(const json&, const WorkloadContext&)> reader;
};

std::vector<KindDef> kind_defs() {
  std::vector<KindDef> defs;

  {
    auto s = std::make_shared<Schema>("poisson", "Poisson arrivals at a constant rate.");
    s->add("rate", ParamType::kRate)
        .at_least(kMinGeneratedRate)
        .at_most(kMaxGeneratedRate)
        .doc("mean arrival rate, e.g. \"50/s\"");
    add_duration(*s);
    defs.push_back({"poisson", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
                      const double rate = config::get_rate(o, "rate");
                      const Time d = generator_duration(o, ctx);
                      const RandomStream rng = stream(ctx, "arrivals");
                      return SeriesFactory([=] { return make_poisson(rate, d, rng); });
                    }});
  }
  {
    auto s = std::make_shared<Schema>("constant", "Evenly spaced arrivals, one every 1/rate.");
    s->add("rate", ParamType::kRate)
        .at_least(kMinGeneratedRate)
        .at_most(kMaxGeneratedRate)
        .doc("arrival rate, e.g. \"50/s\"");
    add_duration(*s);
    defs.push_back({"constant", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
                      const double rate = config::get_rate(o, "rate");
                      const Time d = generator_duration(o, ctx);
                      return SeriesFactory([=] { return make_constant(rate, d); });
                    }});
  }
  {
    auto s = std::make_shared<Schema>(
        "mmpp", "Bursty arrivals: a two-state Markov-modulated Poisson process.");
    s->add("rate_low", ParamType::kRate)
        .at_least(0)
        .at_most(kMaxGeneratedRate)
        .doc("rate in the calm state");
    s->add("rate_high", ParamType::kRate)
        .at_least(0)
        .at_most(kMaxGeneratedRate)
        .doc("rate in the burst state");
    s->add("mean_low", ParamType::kDuration).def("10s").at_least(1e-9).doc("mean calm period");
    s->add("mean_high", ParamType::kDuration).def("2s").at_least(1e-9).doc("mean burst period");
    add_duration(*s);
    defs.push_back({"mmpp", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
                      MmppParams p;
                      p.rate_low = config::get_rate(o, "rate_low");
                      p.rate_high = config::get_rate(o, "rate_high");
                      p.mean_low = config::get_duration(o, "mean_low");
                      p.mean_high = config::get_duration(o, "mean_high");
                      const Time d = generator_duration(o, ctx);
                      const RandomStream rng = stream(ctx, "arrivals");
                      return SeriesFactory([=] { return make_mmpp(p, d, rng); });
                    }});
  }
  {
    auto s = std::make_shared<Schema>(
        "diurnal", "Daily cycle: a cosine around a mean rate with lognormal noise per bin.");
    s->add("mean", ParamType::kRate)
        .at_least(kMinGeneratedRate)
        .at_most(kMaxGeneratedRate)
        .doc("mean rate, e.g. \"3000/s\"");
    s->add("amplitude", ParamType::kNumber)
        .def(0.5)
        .at_least(0)
        .at_most(1)
        .doc("relative swing: peak = mean * (1 + amplitude)");
    s->add("period", ParamType::kDuration).def("24h").at_least(1e-9).doc("cycle length");
    s->add("peak_at", ParamType::kDuration).def("14h").at_least(0).doc("time of the peak");
    s->add("noise", ParamType::kNumber).def(0.1).at_least(0).doc("relative spread of the noise");
    s->add("bin", ParamType::kDuration).def("1s").at_least(1e-9).doc("noise and count interval");
    add_placement(*s);
    add_duration(*s);
    defs.push_back({"diurnal", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
                      DiurnalParams p;
                      p.mean_rate = config::get_rate(o, "mean");
                      p.amplitude = o.at("amplitude").get<double>();
                      p.period = config::get_duration(o, "period");
                      p.peak_at = config::get_duration(o, "peak_at");
                      p.noise = o.at("noise").get<double>();
                      p.bin = config::get_duration(o, "bin");
                      const Time d = generator_duration(o, ctx);
                      const RandomStream rng = stream(ctx, "arrivals");
                      return SeriesFactory([=] { return make_diurnal(p, d, rng); });
                    }});
  }
  {
    auto s = std::make_shared<Schema>(
        "azure2019",
        "Azure Functions 2019 per-minute invocation counts "
        "(invocations_per_function_md.anon.dXX.csv and the In-Vitro subsets).");
    add_reader_common(*s, "azure-functions-2019/heavy10_fullday_invocations.csv");
    s->add("select", ParamType::kChoice)
        .def("all")
        .one_of({"all", "top", "hashes"})
        .doc("which functions: all, the busiest (top / skip), or by HashFunction");
    s->add("top", ParamType::kInteger).def(10).at_least(1).doc("select=top: how many");
    s->add("skip", ParamType::kInteger)
        .def(0)
        .at_least(0)
        .doc("select=top: leave out the busiest k");
    s->list_of("hashes", ParamType::kString)
        .def(json::array())
        .doc("select=hashes: HashFunction values or unique prefixes");
    s->add("per_function", ParamType::kBool)
        .def(false)
        .doc(
            "true: each function keeps its hash as function name and HashApp as application; "
            "false: all selected functions are summed under this entry's function");
    add_placement(*s);
    defs.push_back(
        {"azure2019", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
           Azure2019Options a;
           const std::string sel = str(o, "select");
           a.select = sel == "top"      ? Azure2019Options::Select::kTop
                      : sel == "hashes" ? Azure2019Options::Select::kHashes
                                        : Azure2019Options::Select::kAll;
           a.top = o.at("top").get<std::size_t>();
           a.skip = o.at("skip").get<std::size_t>();
           a.hashes = o.at("hashes").get<std::vector<std::string>>();
           if (a.select == Azure2019Options::Select::kHashes && a.hashes.empty()) {
             throw std::invalid_argument("azure2019: select=hashes needs \"hashes\"");
           }
           a.per_function = o.at("per_function").get<bool>();
           a.reader = reader_options(o);
           const std::string path = find_file(o, ctx);
           return SeriesFactory([=] { return open_azure2019(path, a); });
         }});
  }
  {
    auto s = std::make_shared<Schema>(
        "azure2021",
        "Azure Functions 2021 per-invocation trace (app,func,end_timestamp,duration); arrival = "
        "end_timestamp - duration.");
    add_reader_common(*s, "azure-functions-2021/Azure2021_first20min_13apps.csv");
    s->add("per_function", ParamType::kBool)
        .def(false)
        .doc("true: function = func, application = app of each row");
    s->add("reorder_window", ParamType::kDuration)
        .def("1h")
        .at_least(0)
        .doc("rows may be out of start-time order by up to this much (the file is sorted by end)");
    defs.push_back(
        {"azure2021", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
           const TimestampOptions t =
               azure2021_options(o.at("per_function").get<bool>(),
                                 config::get_duration(o, "reorder_window"), reader_options(o));
           const std::string path = find_file(o, ctx);
           return SeriesFactory([=] { return open_timestamps(path, t); });
         }});
  }
  {
    auto s = std::make_shared<Schema>(
        "twitter",
        "Twitter stream request rate: one line of per-second counts (as shipped), or a "
        "`second,requests` CSV.");
    add_reader_common(*s, "twitter/twitter_stream_rps_per_second.txt.gz");
    s->add("interval", ParamType::kDuration)
        .def("1s")
        .at_least(1e-9)
        .doc("length of one count (bare-count layout)");
    add_placement(*s);
    defs.push_back({"twitter", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
                      const std::string path = find_file(o, ctx);
                      RateSeriesOptions r;
                      r.reader = reader_options(o);
                      r.layout = looks_like_csv(first_line(path))
                                     ? RateSeriesOptions::Layout::kCsv
                                     : RateSeriesOptions::Layout::kTokens;
                      r.interval = config::get_duration(o, "interval");
                      return SeriesFactory([=] { return open_rate_series(path, r); });
                    }});
  }
  {
    auto s = std::make_shared<Schema>(
        "wikipedia",
        "Wikipedia request rates: WikiBench counts per 10 ms (one per line), a "
        "`second,requests` CSV, or hourly page views `YYYY-MM-DD HH:MM:SS;views`.");
    add_reader_common(*s, "wikipedia/wikibench_wiki.1190153705_counts_per_10ms.csv.gz");
    s->add("format", ParamType::kChoice)
        .def("auto")
        .one_of({"auto", "counts", "csv", "pageviews"})
        .doc("auto: from the first line");
    s->add("interval", ParamType::kDuration)
        .optional()
        .at_least(1e-9)
        .doc("length of one row; default 10ms (counts), 1h (pageviews), next row (csv)");
    s->add("duplicates", ParamType::kChoice)
        .def("first")
        .one_of({"error", "first", "sum"})
        .doc(
            "rows repeating the previous time (the page-view file has 7): keep the first, add "
            "them, or stop");
    add_placement(*s);
    defs.push_back(
        {"wikipedia", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
           const std::string path = find_file(o, ctx);
           std::string format = str(o, "format");
           if (format == "auto") {
             const std::string line = first_line(path);
             double t = 0;
             format = line.find(';') != std::string::npos &&
                              parse_datetime(line.substr(0, line.find(';')), t)
                          ? "pageviews"
                      : looks_like_csv(line) ? "csv"
                                             : "counts";
           }
           RateSeriesOptions r;
           r.reader = reader_options(o);
           r.duplicates = parse_duplicates(str(o, "duplicates"));
           r.interval = config::get_optional_duration(o, "interval");
           if (format == "counts") {
             r.layout = RateSeriesOptions::Layout::kTokens;
             if (!r.interval) r.interval = ms(10);
           } else {
             r.layout = RateSeriesOptions::Layout::kCsv;
             if (format == "pageviews") {
               r.delimiter = ';';
               r.header = HeaderMode::kNo;
               r.unit = TimeUnit::kDatetime;
               if (!r.interval) r.interval = hours(1);
             }
           }
           return SeriesFactory([=] { return open_rate_series(path, r); });
         }});
  }
  {
    auto s = std::make_shared<Schema>("csv_timestamps",
                                      "Generic CSV of request time stamps, one request per row.");
    add_reader_common(*s, "");
    add_csv_common(*s);
    s->add("function_column", ParamType::kString)
        .optional()
        .doc("column naming each request's function");
    s->add("application_column", ParamType::kString)
        .optional()
        .doc("column naming each request's application");
    s->add("reorder_window", ParamType::kDuration)
        .def("0s")
        .at_least(0)
        .doc("tolerated disorder of the rows; 0: time stamps must not decrease");
    defs.push_back(
        {"csv_timestamps", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
           TimestampOptions t;
           t.delimiter = str(o, "delimiter")[0];
           t.header = parse_header_mode(str(o, "header"));
           t.time_column = str(o, "time_column");
           t.function_column = opt_str(o, "function_column").value_or("");
           t.application_column = opt_str(o, "application_column").value_or("");
           t.unit = parse_time_unit(str(o, "time_unit"));
           t.reorder_window = config::get_duration(o, "reorder_window");
           t.reader = reader_options(o);
           const std::string path = find_file(o, ctx);
           return SeriesFactory([=] { return open_timestamps(path, t); });
         }});
  }
  {
    auto s = std::make_shared<Schema>(
        "csv_rates", "Generic CSV of (time, count per interval) or (time, rate per second).");
    add_reader_common(*s, "");
    add_csv_common(*s);
    s->add("value_column", ParamType::kString).def("1").doc("header name or 0-based index");
    s->add("value", ParamType::kChoice)
        .def("count")
        .one_of({"count", "rate"})
        .doc("count per row's interval, or rate per second");
    s->add("interval", ParamType::kDuration)
        .optional()
        .at_least(1e-9)
        .doc("length of each row; absent: until the next row's time");
    s->add("duplicates", ParamType::kChoice)
        .def("error")
        .one_of({"error", "first", "sum"})
        .doc("rows repeating the previous time");
    add_placement(*s);
    defs.push_back(
        {"csv_rates", s->description(), s, [](const json& o, const WorkloadContext& ctx) {
           const RateSeriesOptions r = csv_rate_options(o);
           const std::string path = find_file(o, ctx);
           return SeriesFactory([=] { return open_rate_series(path, r); });
         }});
  }
  for (auto& d : defs)
    add_common(*d.schema);
  return defs;
}

/// Split steps of a resolved entry, in order.
std::vector<SplitSpec> split_specs(const json& o) {
  std::vector<SplitSpec> out;
  for (const json& step : o.at("transforms")) {
    const auto it = step.find("split");
    if (it == step.end() || it->is_null()) continue;
    SplitSpec spec;
    spec.round_robin = it->at("assign").get<std::string>() == "round_robin";
    for (const json& sh : it->at("shares")) {
      Share share;
      share.weight = sh.at("share").get<double>();
      if (auto f = opt_str(sh, "function")) share.functions.push_back(*f);
      if (sh.contains("functions") && !sh["functions"].is_null()) {
        share.functions = sh["functions"].get<std::vector<std::string>>();
      }
      share.rotate_every = config::get_optional_duration(sh, "rotate_every");
      share.rotate_randomly = sh.at("rotation").get<std::string>() == "random";
      share.application = opt_str(sh, "application");
      if (auto c = opt_str(sh, "class")) share.cls = parse_class(*c);
      share.slo = config::get_optional_duration(sh, "slo");
      spec.shares.push_back(std::move(share));
    }
    out.push_back(std::move(spec));
  }
  return out;
}

const KindDef& find_def(const std::vector<KindDef>& defs, const std::string& kind) {
  for (const auto& d : defs) {
    if (d.name == kind) return d;
  }
  std::string known;
  for (const auto& d : defs)
    known += (known.empty() ? "" : ", ") + d.name;
  throw std::invalid_argument("unknown workload type \"" + kind + "\" (known: " + known + ")");
}

std::unique_ptr<ArrivalSource> build_source(const std::string& kind, const json& o,
                                            const WorkloadContext& ctx) {
  if (ctx.labels == nullptr) {
    throw std::invalid_argument("workload " + ctx.stream_prefix +
                                ": WorkloadContext.labels is not set");
  }
  const SeriesFactory factory = make_series_factory(kind, o, ctx);
  RequestAttributes attr;
  attr.function = str(o, "function");
  attr.application = str(o, "application");
  attr.cls = parse_class(str(o, "class"));
  attr.slo = config::get_optional_duration(o, "slo").value_or(Time::zero());
  const Placement placement =
      o.contains("placement") ? parse_placement(str(o, "placement")) : Placement::kPoisson;
  auto source = std::make_unique<SeriesArrivalSource>(
      factory(), placement, stream(ctx, "placement"), attr, *ctx.labels, ctx.horizon);
  if (ctx.warn) source->set_warn(ctx.warn);
  std::unique_ptr<ArrivalSource> out = std::move(source);
  std::size_t i = 0;
  for (SplitSpec& spec : split_specs(o)) {
    const std::string tag = "split/" + std::to_string(i++);
    out = std::make_unique<SplitSource>(std::move(out), std::move(spec), stream(ctx, tag + "/pick"),
                                        stream(ctx, tag + "/rotate"), *ctx.labels);
  }
  return out;
}

}  // namespace

SeriesFactory make_reader_factory(const std::string& kind, const json& resolved,
                                  const WorkloadContext& context) {
  const auto defs = kind_defs();
  return find_def(defs, kind).reader(resolved, context);
}

SeriesFactory make_series_factory(const std::string& kind, const json& resolved,
                                  const WorkloadContext& context) {
  SeriesFactory f = make_reader_factory(kind, resolved, context);
  for (const json& step : resolved.at("transforms")) {
    if (auto w = step.find("window"); w != step.end() && !w->is_null()) {
      const Time start = config::get_duration(*w, "start");
      const std::optional<Time> duration = config::get_optional_duration(*w, "duration");
      const bool rebase = w->at("rebase").get<bool>();
      f = [f, start, duration, rebase] { return make_window(f(), start, duration, rebase); };
    } else if (auto r = step.find("rescale"); r != step.end() && !r->is_null()) {
      RescaleTarget target;
      if (r->contains("mean") && !(*r)["mean"].is_null())
        target.mean_rate = config::get_rate(*r, "mean");
      if (r->contains("peak") && !(*r)["peak"].is_null())
        target.peak_rate = config::get_rate(*r, "peak");
      target.peak_bin = config::get_duration(*r, "peak_bin");
      f = [f, target] {
        // First pass: measure the series as it stands at this step; second: replay it scaled.
        const auto probe = f();
        const double factor = rescale_factor(*probe, target);
        return make_rescale(f(), factor);
      };
    } else if (auto c = step.find("compress"); c != step.end() && !c->is_null()) {
      const double factor = c->at("factor").get<double>();
      f = [f, factor] { return make_compress(f(), factor); };
    } else if (auto rp = step.find("ramp"); rp != step.end() && !rp->is_null()) {
      const Time duration = config::get_duration(*rp, "duration");
      f = [f, duration] { return make_ramp(f(), duration); };
    } else if (auto pr = step.find("prerun"); pr != step.end() && !pr->is_null()) {
      const Time duration = config::get_duration(*pr, "duration");
      // Two fresh copies of the series so far: the replay and the shifted series.
      f = [f, duration] { return make_prerun(f(), f(), duration); };
    }
  }
  return f;
}

std::vector<WorkloadKind> builtin_workload_kinds() {
  std::vector<WorkloadKind> kinds;
  for (auto& d : kind_defs()) {
    WorkloadKind k;
    k.name = d.name;
    k.description = d.description;
    k.schema = d.schema;
    const std::string name = d.name;
    k.make = [name](const json& resolved, const WorkloadContext& context) {
      return build_source(name, resolved, context);
    };
    kinds.push_back(std::move(k));
  }
  return kinds;
}

const WorkloadKind* find_workload_kind(const std::vector<WorkloadKind>& kinds,
                                       const std::string& name) {
  for (const auto& k : kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace sim::traces
