#include "runner/instructor_copy.h"

#include <filesystem>
#include <sstream>

#include "runner/commands.h"

namespace workbook::runner {

namespace {

namespace fs = std::filesystem;

std::set<std::string> distinctive_lines(const std::string& text) {
  std::set<std::string> lines;
  if (text.find('\0') != std::string::npos) return lines;  // not text
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::stringstream words(line);
    std::string collapsed, characters;
    for (std::string word; words >> word;) {
      collapsed += (collapsed.empty() ? "" : " ") + word;
      characters += word;
    }
    if (characters.size() < 12 || collapsed.starts_with("//") || collapsed.starts_with("#") ||
        collapsed.starts_with("*") || collapsed.starts_with("/*"))
      continue;
    lines.insert(collapsed);
  }
  return lines;
}

// Half of an instructor file's distinctive lines in one file of the copy makes it that file's copy.
// Measured on the course as it is: no starter, grader or doc shares more than 38% of any file of
// solutions/ (lab 04's baseline with a mutant of 13 lines), and a solution shares all of its own.
constexpr double kCopiedShare = 0.5;
constexpr std::size_t kFewestLinesCompared = 10;  // a file with fewer is compared by its bytes alone

}  // namespace

std::vector<InstructorFile> instructor_files(const std::string& root, const std::string& folder) {
  std::vector<InstructorFile> files;
  if (!fs::is_directory(root + "/" + folder)) return files;
  for (auto it = fs::recursive_directory_iterator(root + "/" + folder); it != fs::recursive_directory_iterator(); ++it)
    if (it->symlink_status().type() == fs::file_type::regular && it->file_size() > 0) {
      std::string content = read_text(it->path().string());
      std::set<std::string> lines = distinctive_lines(content);
      files.push_back({fs::relative(it->path(), root).string(), std::move(content), std::move(lines)});
    }
  return files;
}

// The instructor file `content` is a copy of, with how much of it: "" when none.
std::string copy_of_instructor_file(const std::string& content, const std::vector<InstructorFile>& instructor) {
  const std::set<std::string> lines = distinctive_lines(content);
  for (const InstructorFile& file : instructor) {
    if (content == file.content) return file.path;
    if (file.lines.size() < kFewestLinesCompared) continue;
    std::size_t shared = 0;
    for (const std::string& line : file.lines) shared += lines.count(line);
    const double share = static_cast<double>(shared) / static_cast<double>(file.lines.size());
    if (share >= kCopiedShare)
      return file.path + " (" + std::to_string(static_cast<int>(share * 100)) + "% of its lines)";
  }
  return "";
}

}  // namespace workbook::runner
