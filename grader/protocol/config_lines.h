// The instructor's small config files (a bars profile, a points file) share one line format: '#'
// starts a comment, blank lines are skipped, every other line is fields separated by spaces. This
// is their one reader; each format parses the fields of its own lines. Plain C++.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace workbook {

// The lines of `path`, each with '#' and what follows it removed, blank ones skipped, paired with its
// line number for messages. Throws std::invalid_argument("cannot read the <what> <path>") when the
// file cannot be read.
std::vector<std::pair<int, std::string>> config_lines(const std::string& path, const std::string& what);

}  // namespace workbook
