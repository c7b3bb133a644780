// The generated scorecard section of docs/reproduction/README.md.

#include "sim/reproduce/generated_page.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace sim::reproduce {

std::string page_section(const Scorecard& card) {
  std::string out = fmt::format(
      "\nGenerated from `docs/reproduction/scorecard.json`, the {}-size scorecard "
      "(`dcsim reproduce all --size {}`). A claim marked *ratcheted* has `\"reproduced\": true` "
      "in `data/reproduction/<paper>.json`: CI fails when it stops holding at CI size.\n\n",
      to_string(card.size), to_string(card.size));
  out += to_markdown(card, 3);
  return out;
}

std::string replace_page_section(const std::string& page, const std::string& section) {
  const auto begin = page.find(kBeginMarker);
  const auto end = page.find(kEndMarker);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    throw std::runtime_error(
        fmt::format("the page has no \"{}\" ... \"{}\" section", kBeginMarker, kEndMarker));
  }
  const auto after_begin = begin + std::string(kBeginMarker).size();
  return page.substr(0, after_begin) + "\n" + section + page.substr(end);
}

}  // namespace sim::reproduce
