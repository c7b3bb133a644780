#include "sim/scenario/overrides.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"
#include "sim/config/utf8.hpp"

namespace sim::scenario {

using nlohmann::json;

namespace {
[[noreturn]] void fail(const std::string& override_text, const std::string& location,
                       const std::string& message) {
  throw config::ConfigError({config::Problem{"--set " + override_text, location, message, ""}});
}

/// `text` with every byte that is not part of well-formed UTF-8 shown as \xNN: messages quote
/// the override, and a message must print and go into JSON (nlohmann refuses to dump invalid
/// UTF-8, which reached users as an unlocated library error).
std::string printable(std::string_view text) {
  std::string out;
  for (auto bad = config::first_invalid_utf8(text); bad != std::string_view::npos;
       bad = config::first_invalid_utf8(text)) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned char>(text[bad]));
    out.append(text.substr(0, bad)).append(escaped);
    text.remove_prefix(bad + 1);
  }
  return out.append(text);
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}
}  // namespace

std::string to_pointer(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path)
    out += "/" + p;
  return out.empty() ? "/" : out;
}

Override parse_override(const std::string& text) {
  if (const auto bad = config::first_invalid_utf8(text); bad != std::string::npos) {
    char found[64];
    std::snprintf(found, sizeof found, "the byte 0x%02X at byte %zu",
                  static_cast<unsigned char>(text[bad]), bad + 1);
    fail(printable(text), "", std::string("expected UTF-8 text, found ") + found);
  }
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    fail(text, "", "expected KEY.PATH=VALUE, for example duration=30s or workload.0.rate=80/s");
  }
  Override o;
  o.text = text;
  const std::string key = text.substr(0, eq);
  std::size_t start = 0;
  while (start <= key.size()) {
    const auto dot = key.find('.', start);
    const std::string segment =
        key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (segment.empty()) fail(text, "", "empty segment in key \"" + key + "\"");
    o.path.push_back(segment);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const std::string raw = text.substr(eq + 1);
  // JSON when it parses as JSON, a plain string otherwise ("30s" is not JSON, "7" is).
  // Text that is JSON goes through the strict reader, so that its limits (nesting, duplicate
  // keys) hold for --set values too.
  o.value = json::accept(raw) ? config::parse_json_text(raw, "--set " + text) : json(raw);
  return o;
}

void apply_override(json& document, const Override& o) {
  json* node = &document;
  for (std::size_t i = 0; i < o.path.size(); ++i) {
    const std::string& seg = o.path[i];
    const bool last = i + 1 == o.path.size();
    const std::vector<std::string> so_far(o.path.begin(),
                                          o.path.begin() + static_cast<long>(i) + 1);
    if (node->is_array()) {
      if (!is_index(seg)) {
        fail(o.text, to_pointer(so_far),
             "expected a list index (0, 1, ...), found \"" + seg + "\"");
      }
      const std::size_t idx = std::stoul(seg);
      if (idx >= node->size()) {
        fail(o.text, to_pointer(so_far),
             "index " + seg + " is past the end of a list of " + std::to_string(node->size()));
      }
      node = &(*node)[idx];
    } else if (node->is_object() || node->is_null()) {
      if (node->is_null()) *node = json::object();
      node = &(*node)[seg];
    } else {
      fail(o.text, to_pointer(so_far), "cannot descend into a " + std::string(node->type_name()));
    }
    if (last) *node = o.value;
  }
}

}  // namespace sim::scenario
