#include "protocol/config_lines.h"

#include <fstream>
#include <stdexcept>

namespace workbook {

std::vector<std::pair<int, std::string>> config_lines(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the " + what + " " + path);
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.emplace_back(number, line);
  }
  return lines;
}

}  // namespace workbook
