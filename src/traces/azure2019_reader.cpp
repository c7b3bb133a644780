#include "sim/traces/azure2019_reader.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "sim/traces/text_reader.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {

namespace {

struct Layout {
  std::size_t fields = 0;
  std::size_t function_col = 0;
  std::optional<std::size_t> app_col;
  std::size_t first_minute_col = 0;  ///< index of the first minute column
  std::size_t first_minute = 1;      ///< its 1-based minute of the day
  std::size_t minutes = 0;
};

std::optional<std::size_t> minute_number(const std::string& name) {
  std::string digits = name;
  if (digits.rfind("minute_", 0) == 0) digits = digits.substr(7);
  std::uint64_t v = 0;
  if (!parse_count(digits, v) || v == 0 || v > 100000) return std::nullopt;
  return static_cast<std::size_t>(v);
}

Layout parse_header(TextReader& in, std::vector<std::string>& fields) {
  std::string line;
  if (!in.next_line(line)) throw TraceError(in.path(), 0, "empty file: expected a header line");
  split_fields(line, ',', fields);
  Layout l;
  l.fields = fields.size();
  std::optional<std::size_t> function_col;
  std::optional<std::size_t> previous_minute;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    if (f == "HashFunction") {
      function_col = i;
    } else if (f == "HashApp") {
      l.app_col = i;
    } else if (const auto m = minute_number(f)) {
      if (!previous_minute) {
        l.first_minute_col = i;
        l.first_minute = *m;
      } else if (*m != *previous_minute + 1 || i != l.first_minute_col + l.minutes) {
        throw TraceError(in.path(), 1,
                         "minute columns must be consecutive: expected minute " +
                             std::to_string(*previous_minute + 1) + " in column " +
                             std::to_string(i + 1) + ", found \"" + f + "\"");
      }
      previous_minute = m;
      ++l.minutes;
    } else if (previous_minute) {
      // Past the first minute column every column is a minute: a damaged name ("14x0") would
      // otherwise drop its column silently.
      throw TraceError(in.path(), 1,
                       "minute columns must be consecutive: expected minute " +
                           std::to_string(*previous_minute + 1) + " in column " +
                           std::to_string(i + 1) + ", found \"" + f + "\"");
    }
  }
  if (!function_col) {
    throw TraceError(in.path(), 1,
                     "missing column \"HashFunction\": expected the Azure Functions 2019 header "
                     "HashOwner,HashApp,HashFunction,Trigger,1,...,1440");
  }
  if (l.minutes == 0) {
    throw TraceError(in.path(), 1,
                     "no minute columns (\"1\"...\"1440\" or \"minute_1\"...): not an Azure "
                     "Functions 2019 invocation file");
  }
  l.function_col = *function_col;
  return l;
}

/// One data row, checked. Returns false (after recording the problem) for a row to skip.
class RowParser {
 public:
  RowParser(const Layout& layout, const ReaderOptions& opt, ReadReport& report)
      : layout_(layout), opt_(opt), report_(report) {}

  bool parse(const TextReader& in, const std::vector<std::string>& fields,
             std::vector<std::uint32_t>& counts) {
    if (fields.size() != layout_.fields) {
      return fail(in, "expected " + std::to_string(layout_.fields) +
                          " fields as in the header, found " + std::to_string(fields.size()));
    }
    if (fields[layout_.function_col].empty()) return fail(in, "empty HashFunction");
    counts.resize(layout_.minutes);
    for (std::size_t m = 0; m < layout_.minutes; ++m) {
      const std::string& f = fields[layout_.first_minute_col + m];
      std::uint64_t v = 0;
      if (!parse_count(f, v)) {
        return fail(in, "minute " + std::to_string(layout_.first_minute + m) +
                            ": expected a non-negative integer count, found \"" + f + "\"");
      }
      if (static_cast<double>(v) > opt_.max_count(60.0)) {
        return fail(in, "minute " + std::to_string(layout_.first_minute + m) + ": " +
                            absurd_count_message(static_cast<double>(v), 60.0, opt_));
      }
      counts[m] = static_cast<std::uint32_t>(v);
    }
    return true;
  }

 private:
  bool fail(const TextReader& in, const std::string& message) {
    if (!opt_.lenient) throw TraceError(in.path(), in.line_number(), message);
    if (report_.skipped_rows == 0) {
      report_.first_problem = in.path() + ":" + std::to_string(in.line_number()) + ": " + message;
    }
    ++report_.skipped_rows;
    return false;
  }
  const Layout& layout_;
  const ReaderOptions& opt_;
  ReadReport& report_;
};

class MinuteMatrixSeries final : public CountSeries {
 public:
  MinuteMatrixSeries(Time origin, std::size_t minutes, std::vector<std::size_t> offsets,
                     std::vector<std::pair<std::uint32_t, std::uint64_t>> cells,
                     std::vector<SubstreamLabel> labels, ReadReport report)
      : origin_(origin),
        minutes_(minutes),
        offsets_(std::move(offsets)),
        cells_(std::move(cells)),
        labels_(std::move(labels)),
        report_(std::move(report)) {}

  bool next(CountBin& bin) override {
    if (minute_ >= minutes_) return false;
    bin.start = origin_ + minutes(static_cast<double>(minute_));
    bin.length = minutes(1);
    bin.counts.assign(cells_.begin() + static_cast<std::ptrdiff_t>(offsets_[minute_]),
                      cells_.begin() + static_cast<std::ptrdiff_t>(offsets_[minute_ + 1]));
    ++minute_;
    return true;
  }
  [[nodiscard]] const std::vector<SubstreamLabel>& substreams() const override { return labels_; }
  [[nodiscard]] ReadReport report() const override { return report_; }

 private:
  Time origin_;
  std::size_t minutes_;
  std::vector<std::size_t> offsets_;  ///< cells of minute m: [offsets_[m], offsets_[m + 1])
  std::vector<std::pair<std::uint32_t, std::uint64_t>> cells_;
  std::vector<SubstreamLabel> labels_;
  ReadReport report_;
  std::size_t minute_ = 0;
};

}  // namespace

std::unique_ptr<CountSeries> open_azure2019(const std::string& path, const Azure2019Options& opt) {
  std::vector<std::string> fields;
  std::vector<std::uint32_t> counts;
  std::string line;
  ReadReport report;
  report.file = path;

  // Pass 1 (only to rank by volume): the daily total of every valid row.
  std::vector<bool> take;  // per data row, in file order
  if (opt.select == Azure2019Options::Select::kTop) {
    TextReader in(path);
    const Layout layout = parse_header(in, fields);
    ReadReport scratch;
    RowParser parser(layout, opt.reader, scratch);
    std::vector<std::pair<std::uint64_t, std::size_t>> totals;  // (volume, row)
    std::size_t row = 0;
    while (in.next_line(line)) {
      if (line.empty()) continue;
      split_fields(line, ',', fields);
      if (parser.parse(in, fields, counts)) {
        totals.emplace_back(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), row);
      }
      ++row;
    }
    // Busiest first; equal volumes keep file order.
    std::stable_sort(totals.begin(), totals.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    take.assign(row, false);
    for (std::size_t r = opt.skip; r < std::min(totals.size(), opt.skip + opt.top); ++r) {
      take[totals[r].second] = true;
    }
    if (opt.skip >= totals.size()) {
      throw TraceError(path, 0,
                       "cannot skip the " + std::to_string(opt.skip) +
                           " busiest functions: the file has " + std::to_string(totals.size()));
    }
  }

  TextReader in(path);
  const Layout layout = parse_header(in, fields);
  RowParser parser(layout, opt.reader, report);
  std::vector<SubstreamLabel> labels;
  // (minute, substream, count) of the selected rows, nonzero only; rows come in file order, so
  // a stable counting sort by minute leaves sub-streams ascending within a minute.
  struct Cell {
    std::uint32_t minute;
    std::uint32_t substream;
    std::uint32_t count;
  };
  std::vector<Cell> cells;
  std::vector<std::uint64_t> aggregate(opt.per_function ? 0 : layout.minutes, 0);
  std::vector<std::size_t> hash_rows(opt.hashes.size(), 0);  // line that matched each hash
  std::size_t row = 0;
  bool any_selected = false;
  while (in.next_line(line)) {
    if (line.empty()) continue;
    split_fields(line, ',', fields);
    const std::size_t this_row = row++;
    if (!parser.parse(in, fields, counts)) continue;
    ++report.rows;
    bool selected = true;
    if (opt.select == Azure2019Options::Select::kTop) {
      selected = this_row < take.size() && take[this_row];
    } else if (opt.select == Azure2019Options::Select::kHashes) {
      selected = false;
      const std::string& fn = fields[layout.function_col];
      for (std::size_t h = 0; h < opt.hashes.size(); ++h) {
        if (fn.rfind(opt.hashes[h], 0) != 0) continue;
        if (hash_rows[h] != 0) {
          throw TraceError(path, in.line_number(),
                           "hash \"" + opt.hashes[h] + "\" matches several functions (lines " +
                               std::to_string(hash_rows[h]) + " and " +
                               std::to_string(in.line_number()) + "); give more characters");
        }
        hash_rows[h] = in.line_number();
        selected = true;
      }
    }
    if (!selected) continue;
    any_selected = true;
    if (!opt.per_function) {
      for (std::size_t m = 0; m < layout.minutes; ++m)
        aggregate[m] += counts[m];
      continue;
    }
    const auto substream = static_cast<std::uint32_t>(labels.size());
    labels.push_back({fields[layout.function_col],
                      layout.app_col ? fields[*layout.app_col] : fields[layout.function_col]});
    for (std::size_t m = 0; m < layout.minutes; ++m) {
      if (counts[m] > 0) cells.push_back({static_cast<std::uint32_t>(m), substream, counts[m]});
    }
  }
  for (std::size_t h = 0; h < opt.hashes.size(); ++h) {
    if (hash_rows[h] == 0) {
      throw TraceError(path, 0,
                       "no function whose HashFunction starts with \"" + opt.hashes[h] + "\"");
    }
  }
  if (!any_selected) throw TraceError(path, 0, "no function selected: the file has no valid rows");

  std::vector<std::size_t> offsets(layout.minutes + 1, 0);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  if (opt.per_function) {
    for (const Cell& c : cells)
      ++offsets[c.minute + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    out.resize(cells.size());
    std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
    for (const Cell& c : cells)
      out[fill[c.minute]++] = {c.substream, c.count};
  } else {
    labels.push_back({});
    for (std::size_t m = 0; m < layout.minutes; ++m) {
      offsets[m + 1] = offsets[m] + (aggregate[m] > 0 ? 1 : 0);
      if (aggregate[m] > 0) out.emplace_back(0, aggregate[m]);
    }
  }
  const Time origin =
      opt.reader.rebase ? Time::zero() : minutes(static_cast<double>(layout.first_minute - 1));
  return std::make_unique<MinuteMatrixSeries>(origin, layout.minutes, std::move(offsets),
                                              std::move(out), std::move(labels), std::move(report));
}

}  // namespace sim::traces
