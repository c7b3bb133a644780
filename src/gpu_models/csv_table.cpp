#include "csv_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/bounded_line.hpp"
#include "sim/config/utf8.hpp"

namespace sim::gpu::detail {

void Csv::fail(std::size_t line, const std::string& msg) const {
  throw std::runtime_error(fmt::format("{}:{}: {}", file, line, msg));
}
std::size_t Csv::column(const std::string& name, std::size_t header_line) const {
  auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) fail(header_line, "missing column '" + name + "'");
  return static_cast<std::size_t>(it - header.begin());
}
double Csv::number(const CsvRow& r, std::size_t col) const {
  const std::string& s = r.cells[col];
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) {
    fail(r.line, "column '" + header[col] + "': expected a number, found '" + s + "'");
  }
  return v;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep))
    out.push_back(trim(cell));
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

namespace {

// Measurement tables are small: a line or a file beyond these is not one (/dev/zero once made
// `dcsim fit` read gigabytes looking for a header).
constexpr std::size_t kMaxLineBytes = 1 << 16;
constexpr std::size_t kMaxRows = 1'000'000;

}  // namespace

Csv read_csv(const std::filesystem::path& path, const std::vector<std::string>& required,
             std::size_t* header_line) {
  if (std::filesystem::is_directory(path)) {
    throw std::runtime_error(path.string() + ": this is a directory, not a CSV file");
  }
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open");
  Csv csv;
  csv.file = path.string();
  std::string line;
  std::size_t n = 0;
  while (config::read_bounded_line(in, line, kMaxLineBytes)) {
    ++n;
    if (line.size() > kMaxLineBytes) {
      csv.fail(n, fmt::format("line longer than {} bytes: not a measurement table", kMaxLineBytes));
    }
    if (n > kMaxRows) csv.fail(n, fmt::format("more than {} lines", kMaxRows));
    // Cells become JSON keys and strings (dcsim fit prints a fragment), which must be UTF-8.
    if (const auto bad = config::first_invalid_utf8(line); bad != std::string_view::npos) {
      csv.fail(n, fmt::format("not UTF-8 text (byte 0x{:02X} at character {})",
                              static_cast<unsigned char>(line[bad]), bad + 1));
    }
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    auto cells = split(t, ',');
    if (csv.header.empty()) {
      csv.header = cells;
      *header_line = n;
      for (const auto& h : csv.header) {
        if (std::find(required.begin(), required.end(), h) == required.end()) {
          std::string list;
          for (const auto& r : required)
            list += (list.empty() ? "" : ", ") + r;
          csv.fail(n, "unknown column '" + h + "' (expected: " + list + ")");
        }
      }
      continue;
    }
    if (cells.size() != csv.header.size()) {
      csv.fail(n, fmt::format("expected {} columns, found {}", csv.header.size(), cells.size()));
    }
    csv.rows.push_back({n, std::move(cells)});
  }
  if (csv.header.empty()) throw std::runtime_error(csv.file + ": empty file (expected a header)");
  for (const auto& r : required)
    (void)csv.column(r, *header_line);
  if (csv.rows.empty()) csv.fail(n, "no data rows");
  return csv;
}

}  // namespace sim::gpu::detail
