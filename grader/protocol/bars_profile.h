// A GPU's bars profile, read and written here only: where it lives, classroom/bars/<its name in
// lower case, each run of other characters one '-'>.bars ("NVIDIA H200" -> nvidia-h200.bars), and
// its lines. `./workbook calibrate` writes it (the grader's --calibrate, lab by lab); every grading
// on that GPU reads it, the runner's (--bars) and the test suite's (the grader finds it in its own
// checkout) alike. Its lines, each with an optional '#' comment:
//   STEP INDEX MIN_SPEEDUP MIN_PERCENT_OF_REFERENCE   the INDEXth requirement of STEP's bar (from 1)
//   reference KEY VALUE                               what a measurement step is compared with
//   # NN_topic                                        the start of a lab's lines
#pragma once

#include <cctype>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace workbook {

// One requirement of a step's bar as this GPU's profile sets it, in place of the built-in (H100) one.
struct CalibratedBar {
  double min_speedup = 0;
  double min_percent_of_reference = 0;
};

struct BarsProfile {
  std::map<std::string, std::vector<CalibratedBar>> bars;  // per step id, per requirement in order
  std::map<std::string, double> reference_values;          // per key ("01.1" ...)
};

// The profile at `path`; throws std::invalid_argument on a file it cannot read or a malformed line,
// naming the file and the line.
BarsProfile read_bars_profile(const std::string& path);

// The lines calibration writes, without their comments: "02.4 1 14.93 82.01", "reference 01.1 4.07".
std::string bar_line(const std::string& step, std::size_t requirement_number, const CalibratedBar& bar);
std::string reference_line(const std::string& key, double value);

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

// Whether a profile's line begins a lab's lines: "# 01_latency" (a step's comment is "# 01.4: ...").
inline bool begins_lab(const std::string& line) {
  return line.size() > 5 && line.rfind("# ", 0) == 0 && std::isdigit(static_cast<unsigned char>(line[2])) &&
         std::isdigit(static_cast<unsigned char>(line[3])) && line[4] == '_';
}

// A profile's text with its labs' lines in lab order after the lines before the first lab (the
// header): calibrating some labs appends theirs after the ones kept, and an instructor reads the
// profile in the order ./workbook list shows.
inline std::string in_lab_order(const std::string& profile) {
  std::string header;
  std::map<std::string, std::string> labs;  // "01_latency" < "02_memory" < ...
  std::string* into = &header;
  std::istringstream lines(profile);
  for (std::string line; std::getline(lines, line);) {
    if (begins_lab(line)) into = &labs[line.substr(2)];
    *into += line + '\n';
  }
  for (const auto& [lab, its_lines] : labs) header += its_lines;
  return header;
}

}  // namespace workbook
