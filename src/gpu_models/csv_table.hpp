#pragma once
// Measurement tables for `dcsim fit` (internal to sim_gpu_models): CSV with a header, any column
// order, '#' comment lines; errors name the file and line.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace sim::gpu::detail {

struct CsvRow {
  std::size_t line = 0;
  std::vector<std::string> cells;
};

struct Csv {
  std::string file;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  /// Throws std::runtime_error "file:line: msg".
  [[noreturn]] void fail(std::size_t line, const std::string& msg) const;
  [[nodiscard]] std::size_t column(const std::string& name, std::size_t header_line) const;
  [[nodiscard]] double number(const CsvRow& r, std::size_t col) const;
};

std::string trim(const std::string& s);
std::vector<std::string> split(const std::string& line, char sep);
/// Reads the table; every header cell must be one of `required`, and all of them present.
Csv read_csv(const std::filesystem::path& path, const std::vector<std::string>& required,
             std::size_t* header_line);

}  // namespace sim::gpu::detail
