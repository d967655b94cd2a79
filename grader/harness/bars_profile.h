// Where a GPU's bars profile lives: classroom/bars/<its name in lower case, each run of other
// characters one '-'>.bars ("NVIDIA H200" -> nvidia-h200.bars). `./workbook calibrate` writes it;
// every grading on that GPU reads it, the runner's (--bars) and the test suite's (the grader finds
// it in its own checkout) alike.
#pragma once

#include <cctype>
#include <string>

namespace workbook {

inline std::string bars_profile_file(const std::string& gpu_name) {
  std::string slug;
  for (unsigned char c : gpu_name) {
    if (std::isalnum(c)) slug += static_cast<char>(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return (slug.empty() ? "unknown-gpu" : slug) + ".bars";
}

}  // namespace workbook
