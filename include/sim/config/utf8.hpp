#pragma once
/// UTF-8 validation for text that ends up in JSON output: nlohmann::json refuses to dump a
/// string that is not UTF-8 (type_error 316), which reached users as an unlocated library
/// message. Readers check their text cells with this and report file and line instead.

#include <cstddef>
#include <string_view>

namespace sim::config {

/// The offset of the first byte that does not belong to a well-formed UTF-8 sequence
/// (overlong forms, surrogates and code points above U+10FFFF included), or npos when the
/// whole text is UTF-8.
std::size_t first_invalid_utf8(std::string_view text);

}  // namespace sim::config
