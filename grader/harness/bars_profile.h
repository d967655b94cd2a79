// Where a GPU's bars profile lives: classroom/bars/<its name in lower case, each run of other
// characters one '-'>.bars ("NVIDIA H200" -> nvidia-h200.bars). `./workbook calibrate` writes it;
// every grading on that GPU reads it, the runner's (--bars) and the test suite's (the grader finds
// it in its own checkout) alike.
#pragma once

#include <cctype>
#include <string>

namespace workbook {

// A GPU's name as the files kept for it are named: "NVIDIA H200" -> "nvidia-h200" (the bars profile
// here; the solutions' profile counters, classroom/profiles/<it>.tsv, for ./workbook profile).
inline std::string gpu_file_name(const std::string& gpu_name) {
  std::string slug;
  for (unsigned char c : gpu_name) {
    if (std::isalnum(c)) slug += static_cast<char>(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

inline std::string bars_profile_file(const std::string& gpu_name) { return gpu_file_name(gpu_name) + ".bars"; }

}  // namespace workbook
