#include "sim/traces/rate_series_reader.hpp"

#include <stdexcept>

#include "csv_columns.hpp"
#include "sim/traces/text_reader.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {

Duplicates parse_duplicates(const std::string& text) {
  if (text == "error") return Duplicates::kError;
  if (text == "first") return Duplicates::kFirst;
  if (text == "sum") return Duplicates::kSum;
  throw std::invalid_argument("unknown duplicates policy \"" + text +
                              "\" (expected error, first or sum)");
}

namespace {

/// Shared bookkeeping of lenient mode.
class Problems {
 public:
  Problems(const std::string& path, bool lenient, ReadReport& report)
      : path_(path), lenient_(lenient), report_(report) {}
  /// Throws in strict mode; records the problem otherwise.
  void fail(std::size_t line, const std::string& message) {
    if (!lenient_) throw TraceError(path_, line, message);
    if (report_.skipped_rows == 0) {
      report_.first_problem = path_ + ":" + std::to_string(line) + ": " + message;
    }
    ++report_.skipped_rows;
  }

 private:
  std::string path_;
  bool lenient_;
  ReadReport& report_;
};

/// One count per whitespace-separated token, intervals back to back from time zero. In lenient
/// mode a malformed value counts as zero requests: its time slot is kept so that later values
/// stay at their time.
class TokenSeries final : public CountSeries {
 public:
  TokenSeries(const std::string& path, const RateSeriesOptions& opt)
      : in_(path), opt_(opt), problems_(path, opt.reader.lenient, report_) {
    report_.file = path;
    if (!opt_.interval || *opt_.interval <= Time::zero()) {
      throw std::invalid_argument(path + ": a positive interval is needed for a count series");
    }
    labels_.push_back({});
  }

  bool next(CountBin& bin) override {
    if (!in_.next_token(token_)) {
      // Like the other readers: a file without a single count is an input error, not a
      // trace of zero requests.
      if (index_ == 0) throw TraceError(in_.path(), 0, "empty file: no counts");
      return false;
    }
    ++report_.rows;
    std::uint64_t count = 0;
    if (!parse_count(token_, count)) {
      problems_.fail(in_.line_number(), "value " + std::to_string(index_ + 1) +
                                            ": expected a non-negative integer count, found \"" +
                                            token_ + "\"");
      count = 0;
    } else if (static_cast<double>(count) > opt_.reader.max_count(opt_.interval->to_seconds())) {
      problems_.fail(in_.line_number(),
                     "value " + std::to_string(index_ + 1) + ": " +
                         absurd_count_message(static_cast<double>(count),
                                              opt_.interval->to_seconds(), opt_.reader));
      count = 0;
    }
    bin.start = *opt_.interval * static_cast<std::int64_t>(index_);
    bin.length = *opt_.interval;
    bin.counts.clear();
    if (count > 0) bin.counts.emplace_back(0, count);
    ++index_;
    return true;
  }
  [[nodiscard]] const std::vector<SubstreamLabel>& substreams() const override { return labels_; }
  [[nodiscard]] ReadReport report() const override { return report_; }

 private:
  TextReader in_;
  RateSeriesOptions opt_;
  ReadReport report_;
  Problems problems_;
  std::vector<SubstreamLabel> labels_;
  std::string token_;
  std::uint64_t index_ = 0;
};

class CsvRateSeries final : public CountSeries {
 public:
  CsvRateSeries(const std::string& path, const RateSeriesOptions& opt)
      : in_(path), opt_(opt), problems_(path, opt.reader.lenient, report_) {
    report_.file = path;
    if (opt_.interval && *opt_.interval <= Time::zero()) {
      throw std::invalid_argument(path + ": interval must be positive");
    }
    detail::CsvColumns columns(in_, opt_.delimiter, opt_.header, opt_.time_column, opt_.unit,
                               fields_, pending_first_);
    first_line_ = in_.line_number();
    time_col_ = columns.index(opt_.time_column);
    value_col_ = columns.index(opt_.value_column);
    labels_.push_back({});
  }

  bool next(CountBin& bin) override {
    while (true) {
      Row r;
      if (!read_row(r)) {
        if (!pending_) return false;
        if (!last_length_) {
          throw TraceError(in_.path(), pending_->line,
                           "cannot infer the interval of the only row; set \"interval\"");
        }
        emit(*pending_, *last_length_, bin);
        pending_.reset();
        return true;
      }
      if (!pending_) {
        pending_ = r;
        continue;
      }
      if (r.time == pending_->time) {
        ++report_.duplicates;
        if (opt_.duplicates == Duplicates::kFirst) continue;
        if (opt_.duplicates == Duplicates::kSum) {
          pending_->value += r.value;
          continue;
        }
        problems_.fail(r.line, "duplicated time stamp \"" + r.text + "\" (same as line " +
                                   std::to_string(pending_->line) +
                                   "); set \"duplicates\" to \"first\" or \"sum\"");
        continue;
      }
      if (r.time < pending_->time) {
        problems_.fail(r.line, "time \"" + r.text + "\" is earlier than the previous row's (line " +
                                   std::to_string(pending_->line) +
                                   "): rows must be in time order");
        continue;
      }
      if (opt_.interval && r.time < pending_->time + *opt_.interval) {
        problems_.fail(r.line, "time \"" + r.text + "\" falls inside the interval of line " +
                                   std::to_string(pending_->line) + " (interval " +
                                   to_string(*opt_.interval) + ")");
        continue;
      }
      const Time length = opt_.interval ? *opt_.interval : r.time - pending_->time;
      last_length_ = length;
      emit(*pending_, length, bin);
      pending_ = r;
      return true;
    }
  }
  [[nodiscard]] const std::vector<SubstreamLabel>& substreams() const override { return labels_; }
  [[nodiscard]] ReadReport report() const override { return report_; }

 private:
  struct Row {
    Time time;
    double value = 0;
    std::size_t line = 0;
    std::string text;  ///< time field as written, for messages
  };

  bool read_row(Row& r) {
    while (true) {
      std::size_t line_no = 0;
      if (pending_first_) {
        pending_first_ = false;
        line_no = first_line_;
      } else {
        std::string line;
        bool got = false;
        while (in_.next_line(line)) {
          if (!line.empty()) {
            got = true;
            break;
          }
        }
        if (!got) return false;
        split_fields(line, opt_.delimiter, fields_);
        line_no = in_.line_number();
      }
      ++report_.rows;
      if (parse(line_no, r)) return true;
    }
  }

  bool parse(std::size_t line, Row& r) {
    const std::size_t needed = std::max(time_col_, value_col_) + 1;
    if (fields_.size() < needed) {
      problems_.fail(line, "expected at least " + std::to_string(needed) + " fields, found " +
                               std::to_string(fields_.size()));
      return false;
    }
    double t = 0;
    if (!detail::parse_time_field(fields_[time_col_], opt_.unit, t)) {
      problems_.fail(line, std::string("expected a ") +
                               (opt_.unit == TimeUnit::kDatetime ? "date and time" : "time") +
                               " in column " + std::to_string(time_col_ + 1) + ", found \"" +
                               fields_[time_col_] + "\"");
      return false;
    }
    if (t < 0 || t > 9.0e9) {
      problems_.fail(line, "time " + fields_[time_col_] + " is negative or out of range");
      return false;
    }
    const std::string& v = fields_[value_col_];
    if (opt_.value_is_rate) {
      if (!parse_real(v, r.value) || r.value < 0) {
        problems_.fail(line, "expected a non-negative rate in column " +
                                 std::to_string(value_col_ + 1) + ", found \"" + v + "\"");
        return false;
      }
    } else {
      std::uint64_t c = 0;
      if (!parse_count(v, c)) {
        problems_.fail(line, "expected a non-negative integer count in column " +
                                 std::to_string(value_col_ + 1) + ", found \"" + v + "\"");
        return false;
      }
      r.value = static_cast<double>(c);
    }
    r.time = seconds(t);
    r.line = line;
    r.text = fields_[time_col_];
    return true;
  }

  void emit(const Row& r, Time length, CountBin& bin) {
    if (!origin_) origin_ = opt_.reader.rebase ? r.time : Time::zero();
    double amount = r.value;
    if (opt_.value_is_rate) amount = r.value * length.to_seconds();
    if (amount > opt_.reader.max_count(length.to_seconds())) {
      // Strict mode throws here; lenient mode replays the interval as empty.
      problems_.fail(r.line, absurd_count_message(amount, length.to_seconds(), opt_.reader));
      amount = 0.0;
    }
    const std::uint64_t count = rounder_.round(amount);
    bin.start = r.time - *origin_;
    bin.length = length;
    bin.counts.clear();
    if (count > 0) bin.counts.emplace_back(0, count);
  }

  TextReader in_;
  RateSeriesOptions opt_;
  ReadReport report_;
  Problems problems_;
  std::vector<SubstreamLabel> labels_;
  std::vector<std::string> fields_;
  bool pending_first_ = false;
  std::size_t first_line_ = 1;
  std::size_t time_col_ = 0;
  std::size_t value_col_ = 1;
  std::optional<Row> pending_;
  std::optional<Time> last_length_;
  std::optional<Time> origin_;
  CarryRounder rounder_;
};

}  // namespace

std::unique_ptr<CountSeries> open_rate_series(const std::string& path,
                                              const RateSeriesOptions& opt) {
  if (opt.layout == RateSeriesOptions::Layout::kTokens) {
    return std::make_unique<TokenSeries>(path, opt);
  }
  return std::make_unique<CsvRateSeries>(path, opt);
}

}  // namespace sim::traces
