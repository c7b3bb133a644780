#include "sim/config/json_text.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "sim/config/diagnostics.hpp"

namespace sim::config {

using json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& file, std::string location, std::string message) {
  throw ConfigError({Problem{file, std::move(location), std::move(message), {}}});
}

/// nlohmann's messages read "[json.exception.parse_error.101] parse error at line 1, column 3:
/// syntax error while parsing value - ...": keep the explanation, since the location is
/// reported separately.
std::string explanation(const std::string& what) {
  std::string s = what;
  if (const auto bracket = s.find("] ");
      s.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos) {
    s = s.substr(bracket + 2);
  }
  if (s.rfind("parse error", 0) == 0) {
    if (const auto colon = s.find(": "); colon != std::string::npos) s = s.substr(colon + 2);
  }
  return s;
}

/// Builds the document like nlohmann's own DOM parser, but keeps the path to the current value
/// so that duplicate keys and excessive nesting can be reported where they are. `Json` is
/// nlohmann::json or nlohmann::ordered_json (the model catalog keeps its files' key order).
template <class Json>
class StrictDomBuilder {
 public:
  using json = Json;
  using number_integer_t = typename json::number_integer_t;
  using number_unsigned_t = typename json::number_unsigned_t;
  using number_float_t = typename json::number_float_t;
  using string_t = typename json::string_t;
  using binary_t = typename json::binary_t;

  StrictDomBuilder(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(number_integer_t v) { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) { return put(json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return put(json(v)); }
  bool string(string_t& v) { return put(json(std::move(v))); }
  bool binary(binary_t& v) { return put(json::binary(std::move(v))); }

  bool start_object(std::size_t /*elements*/) { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& k) {
    Frame& f = stack_.back();
    if (f.value->contains(k)) {
      fail(file_, pointer(/*with_next=*/false),
           fmt::format("the key \"{}\" appears twice in this object; each key may appear once",
                       k.size() > 80 ? k.substr(0, 77) + "..." : k));
    }
    f.key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const typename json::exception& ex) {
    const auto [line, column] = line_and_column(text_, position == 0 ? 0 : position - 1);
    fail(file_, fmt::format("line {}, column {}", line, column),
         "invalid JSON: " + explanation(ex.what()));
  }

  json take() { return std::move(root_); }

 private:
  struct Frame {
    json* value = nullptr;
    std::string key;  // objects: the key whose value comes next
  };

  json* place(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = stack_.back();
    if (f.value->is_array()) {
      f.value->push_back(std::move(v));
      return &f.value->back();
    }
    json& slot = (*f.value)[f.key];
    slot = std::move(v);
    return &slot;
  }

  bool put(json&& v) {
    place(std::move(v));
    return true;
  }

  bool open(json&& container) {
    if (stack_.size() >= kMaxJsonDepth) {
      fail(file_, pointer(/*with_next=*/true),
           fmt::format("arrays and objects are nested more than {} levels deep here; dcsim "
                       "accepts at most {} levels",
                       kMaxJsonDepth, kMaxJsonDepth));
    }
    stack_.push_back(Frame{place(std::move(container)), {}});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  /// RFC 6901 pointer to the innermost container, and with `with_next` to the value about to
  /// be read in it; long paths keep their first levels only.
  [[nodiscard]] std::string pointer(bool with_next) const {
    constexpr std::size_t kShownLevels = 12;
    std::string p;
    for (std::size_t i = 0; i < stack_.size() && i < kShownLevels; ++i) {
      const Frame& f = stack_[i];
      const bool top = i + 1 == stack_.size();
      if (top && !with_next) break;
      if (f.value->is_array()) {
        // Inner frames' current element is the last one placed; at the top, the next one.
        p += fmt::format("/{}", top ? f.value->size() : f.value->size() - 1);
      } else {
        p += fmt::format("/{}", escape(f.key));
      }
    }
    if (stack_.size() > kShownLevels) p += fmt::format("/... ({} levels)", stack_.size());
    return p.empty() ? "/" : p;
  }

  static std::string escape(const std::string& key) {
    std::string token;
    for (const char c : key.size() > 80 ? key.substr(0, 77) + "..." : key) {
      if (c == '~') {
        token += "~0";
      } else if (c == '/') {
        token += "~1";
      } else {
        token += c;
      }
    }
    return token;
  }

  std::string_view text_;
  const std::string& file_;
  json root_;
  std::vector<Frame> stack_;
};

}  // namespace

std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

namespace {

template <class Json>
Json parse_strict(std::string_view text, const std::string& file) {
  // nlohmann stops at a NUL byte as if the input ended there; JSON text never contains one
  // (inside strings it is written \u0000).
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    const auto [line, column] = line_and_column(text, nul);
    fail(file, fmt::format("line {}, column {}", line, column),
         "invalid JSON: a NUL byte; a JSON file is text and may contain none");
  }
  StrictDomBuilder<Json> builder(text, file);
  Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                  /*strict=*/true);
  return builder.take();
}

}  // namespace

json parse_json_text(std::string_view text, const std::string& file) {
  return parse_strict<json>(text, file);
}

nlohmann::ordered_json parse_ordered_json_text(std::string_view text, const std::string& file) {
  return parse_strict<nlohmann::ordered_json>(text, file);
}

json read_json_document(const std::string& path, std::size_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail(path, "", "cannot read: no such file");
  if (fs::is_directory(status)) fail(path, "", "cannot read: this is a directory, not a file");
  if (fs::is_regular_file(status)) {
    const auto size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) {
      fail(path, "",
           fmt::format("cannot read: the file has {} bytes, more than the {} MiB a JSON input "
                       "may have",
                       size, max_bytes >> 20));
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "", "cannot open for reading");
  // Read in chunks and stop past max_bytes, so that a device or a pipe (/dev/zero) cannot make
  // the reader grow without bound.
  // The chunk is not zeroed (read writes what append copies): 16 page faults fewer.
  std::string text;
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const auto chunk = std::make_unique_for_overwrite<char[]>(kChunk);
  while (in) {
    in.read(chunk.get(), static_cast<std::streamsize>(kChunk));
    text.append(chunk.get(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      fail(path, "",
           fmt::format("cannot read: more than the {} MiB a JSON input may have", max_bytes >> 20));
    }
  }
  if (in.bad()) fail(path, "", "read error");
  return parse_json_text(text, path);
}

}  // namespace sim::config
