// Every trace reader: Azure Functions 2019 (per-minute counts) and 2021 (invocations), the
// Twitter / WikiBench count streams, the generic time-stamp and rate CSVs. The first input byte
// picks the reader and its options; the rest is the file. Readers reject bad input with
// TraceError (FILE:LINE) or, for option problems, std::invalid_argument.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "scratch_file.hpp"
#include "sim/traces/azure2019_reader.hpp"
#include "sim/traces/rate_series_reader.hpp"
#include "sim/traces/timestamp_reader.hpp"
#include "sim/traces/trace_error.hpp"

namespace {

using namespace sim;
using namespace sim::traces;

std::unique_ptr<CountSeries> open(std::uint8_t selector, const std::string& path) {
  ReaderOptions reader;
  reader.lenient = (selector & 0x80) != 0;
  switch (selector % 6) {
    case 0: {
      Azure2019Options o;
      o.per_function = (selector & 0x40) != 0;
      o.reader = reader;
      return open_azure2019(path, o);
    }
    case 1:
      return open_timestamps(path,
                             azure2021_options((selector & 0x40) != 0, seconds(3600), reader));
    case 2: {
      TimestampOptions o;
      o.function_column = (selector & 0x40) != 0 ? "1" : "";
      o.reorder_window = (selector & 0x20) != 0 ? seconds(10) : Time::zero();
      o.reader = reader;
      return open_timestamps(path, o);
    }
    case 3: {
      RateSeriesOptions o;  // Twitter: whitespace-separated counts per second
      o.interval = seconds(1);
      o.reader = reader;
      return open_rate_series(path, o);
    }
    case 4: {
      RateSeriesOptions o;  // WikiBench: counts per 10 ms
      o.interval = ms(10);
      o.reader = reader;
      return open_rate_series(path, o);
    }
    default: {
      RateSeriesOptions o;  // generic CSV of (time, count or rate)
      o.layout = RateSeriesOptions::Layout::kCsv;
      o.value_is_rate = (selector & 0x40) != 0;
      o.duplicates = (selector & 0x20) != 0 ? Duplicates::kSum : Duplicates::kError;
      o.reader = reader;
      return open_rate_series(path, o);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = sim::fuzz::write_scratch("trace.csv", data + 1, size - 1);
  try {
    auto series = open(data[0], path);
    CountBin bin;
    // Bounded: a reader serves at most a few bins per input byte (one per row or token; the
    // Azure 2019 layout 1,440 minutes per row).
    std::size_t bins = 0;
    while (series->next(bin)) {
      if (++bins > 1440 * (size + 1)) __builtin_trap();
    }
    (void)series->report();
  } catch (const TraceError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
