#pragma once
/// Reading text files line by line without trusting them: `std::getline` grows its string until
/// it meets a newline, so a file without one (`/dev/zero`, a binary file given by mistake) makes
/// it read and hold the whole input. Every line-oriented reader of a user's file uses this
/// instead and rejects a line longer than its own limit.

#include <cstddef>
#include <istream>
#include <string>

namespace sim::config {

/// Reads up to the next '\n' (not stored) into `line`, but stops after `limit` + 1 characters,
/// so `line.size() > limit` tells the caller the line was too long; the rest of that line is not
/// read. Returns false only when nothing was read (end of input).
bool read_bounded_line(std::istream& in, std::string& line, std::size_t limit);

}  // namespace sim::config
