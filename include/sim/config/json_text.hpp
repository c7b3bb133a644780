#pragma once
/// The one JSON reader every input file goes through (scenarios, presets, `--set` values, the
/// model catalog, topologies, sweeps, golden files, summaries, planner inputs).
///
/// It is stricter than nlohmann's default parse, because each difference below once let a bad
/// file crash dcsim or be accepted with a silently wrong meaning:
/// - nesting deeper than kMaxJsonDepth is rejected (deep documents made recursive copies,
///   merges, dumps and destructors overflow the stack);
/// - a key repeated inside one object is rejected (nlohmann keeps the last one, so a catalog
///   with two "resnet-50" entries served the second profile under the first one's name);
/// - a NUL byte anywhere is rejected (nlohmann treats it as the end of the input and ignores
///   whatever follows it);
/// - every problem, a number too large for a double included, is reported with the file, the
///   line and column or the JSON path, what was expected and what was found.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sim::config {

/// Deepest nesting of arrays and objects accepted. Real inputs stay below 20 levels.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses one JSON document from `text`. `file` names the input in error messages (a path, or
/// e.g. "--set workload.0.rate=..."). Throws ConfigError, whose problem names the file and the
/// line and column (syntax) or the JSON path (duplicate keys, nesting).
nlohmann::json parse_json_text(std::string_view text, const std::string& file);

/// parse_json_text keeping the document's key order (nlohmann::ordered_json), for readers whose
/// meaning depends on it (the model catalog).
nlohmann::ordered_json parse_ordered_json_text(std::string_view text, const std::string& file);

/// Reads and parses a whole file with parse_json_text. Rejects a missing file, a directory and
/// a file larger than `max_bytes`, naming the file.
nlohmann::json read_json_document(const std::string& path, std::size_t max_bytes = 64u << 20);

/// 1-based line and column of byte `offset` in `text`.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset);

}  // namespace sim::config
