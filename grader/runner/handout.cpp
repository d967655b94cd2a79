// `handout DEST`: the student's copy of the workbook, written as a plain folder with no history and
// without the instructor tree (solutions/: the reference solutions, the witnesses, the mutants,
// the NOTES), then checked before it is called done: it holds no file of the instructor tree (by
// path or by content), it configures and builds from scratch with none of it, its build holds the
// starters' graders and no other, and on a GPU every step of every lab fails with a TODO.
//
// Why not a clone with solutions/ deleted: git's history still holds every file that was ever
// committed (`git show HEAD~1:solutions/...`), and so does the .git folder a clone comes with.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "process.h"

namespace workbook::runner {

namespace {

namespace fs = std::filesystem;

// The folders of a checkout that are not the course: what the instructor keeps, and what a build
// or a grading wrote. Anything else at the top whose name starts with '.' is a tool's (.git,
// .scratch), except the CI script a student's copy runs too.
const std::set<std::string> kNotHandedOut = {"solutions", "build", "results"};

bool handed_out(const fs::path& relative) {
  const std::string top = relative.begin()->string();
  if (kNotHandedOut.contains(top)) return false;
  return top.front() != '.' || top == ".ci" || top == ".gitignore";
}

// The course's files, relative to the root: where the checkout is a clone, the files git tracks or
// would (none that .gitignore names: no build output), else every plain file.
std::vector<fs::path> course_files(const std::string& root) {
  std::vector<fs::path> files;
  if (fs::exists(root + "/.git") && on_path("git")) {
    const Outcome listed = run({{"git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"}});
    if (listed.status != 0) throw Fatal(kExitFailed, "git ls-files failed in " + root + ": " + listed.output);
    for (const std::string& line : lines_of(listed.output))
      if (fs::symlink_status(root + "/" + line).type() == fs::file_type::regular) files.emplace_back(line);
  } else {
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
      if (it->symlink_status().type() == fs::file_type::regular) files.push_back(fs::relative(it->path(), root));
  }
  std::erase_if(files, [](const fs::path& file) { return !handed_out(file); });
  std::sort(files.begin(), files.end());
  return files;
}

// Every file of the instructor tree by its content: a copy of one outside solutions/ is found too.
std::map<std::string, std::string> instructor_files_by_content(const std::string& root) {
  std::map<std::string, std::string> by_content;
  if (!fs::is_directory(root + "/solutions")) return by_content;
  for (auto it = fs::recursive_directory_iterator(root + "/solutions"); it != fs::recursive_directory_iterator(); ++it)
    if (it->symlink_status().type() == fs::file_type::regular && it->file_size() > 0)
      by_content.emplace(read_text(it->path().string()), fs::relative(it->path(), root).string());
  return by_content;
}

void fail(const std::string& destination, const std::string& why) {
  throw Fatal(kExitFailed, "the handout in " + destination + " is not fit to hand out: " + why);
}

}  // namespace

int handout(const Checkout& checkout, Words words) {
  std::string destination;
  for (std::string word; words.next(word);) {
    if (word.starts_with("-")) throw Fatal(kExitUsage, "handout: unknown option " + word);
    if (!destination.empty()) throw Fatal(kExitUsage, "handout takes one folder to write the student's copy into");
    destination = checkout.from_caller(word);
  }
  if (destination.empty()) throw Fatal(kExitUsage, "handout needs a folder to write the student's copy into, e.g. ./workbook handout ../course-2027");
  destination = fs::weakly_canonical(destination).string();
  const std::string root = fs::weakly_canonical(checkout.root).string();
  if (destination == root || destination.starts_with(root + "/"))
    throw Fatal(kExitUsage, "handout: " + destination + " is inside this checkout; write the student's copy somewhere else");
  if (fs::exists(destination) && !(fs::is_directory(destination) && fs::is_empty(destination)))
    throw Fatal(kExitUsage, "handout: " + destination + " exists and is not an empty folder");

  // The copy: the course's files, with their modes (./workbook and the scripts stay executable).
  const std::vector<fs::path> files = course_files(checkout.root);
  say("handout: writing " + std::to_string(files.size()) + " files into " + destination + " (no solutions/, no history)");
  for (const fs::path& file : files) {
    const fs::path to = fs::path(destination) / file;
    fs::create_directories(to.parent_path());
    fs::copy_file(fs::path(checkout.root) / file, to);
  }

  // Nothing of the instructor tree, by path or by content (a witness copied into grader/ would be).
  const std::map<std::string, std::string> instructor = instructor_files_by_content(checkout.root);
  for (auto it = fs::recursive_directory_iterator(destination); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), destination);
    if (!handed_out(relative)) fail(destination, relative.string() + " is not part of a student's copy");
    if (it->symlink_status().type() != fs::file_type::regular) continue;
    if (const auto same = instructor.find(read_text(it->path().string())); same != instructor.end())
      fail(destination, relative.string() + " is a copy of the instructor's " + same->second);
  }

  // It builds from scratch, without the instructor tree, in a build folder of its own; its build
  // holds the starters' graders and no other.
  const std::string log = checkout.results + "/handout.log";
  say("handout: building it from scratch, as a student would (./workbook setup there; log: " + checkout.shown(log) + ")");
  const std::vector<std::pair<std::string, std::string>> preset = {{"WORKBOOK_PRESET", checkout.preset}};
  if (run({{destination + "/workbook", "setup"}, preset, destination, log}).status != 0)
    fail(destination, "it does not build: see " + checkout.shown(log));
  const std::string build = destination + "/build/" + checkout.preset;
  std::vector<std::string> graders, others;
  for (const std::string& lab : checkout.labs()) {
    for (const fs::directory_entry& entry : fs::directory_iterator(build + "/labs/" + lab)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("grade_") || !entry.is_regular_file() || (entry.status().permissions() & fs::perms::owner_exec) == fs::perms::none) continue;
      (name == "grade_" + lab + "_starter" ? graders : others).push_back(name);
    }
  }
  if (!others.empty()) fail(destination, "its build holds graders beyond the starters': " + others.front());
  if (graders.size() != checkout.labs().size())
    fail(destination, "its build holds " + std::to_string(graders.size()) + " starters' graders for " + std::to_string(checkout.labs().size()) + " labs");
  say("handout: it builds, with the " + std::to_string(graders.size()) + " starters' graders and no other");

  // On a GPU, every step of every lab fails, each with a TODO of its lab.
  const Outcome graded = run({{destination + "/workbook", "grade"}, preset, destination});
  std::ofstream(log, std::ios::app) << graded.output;
  if (graded.status == kExitNoGpu) {
    say("handout: no GPU here, so its steps were not graded; on a GPU machine ./workbook grade in the copy fails every step with a TODO");
  } else {
    std::size_t steps = 0;
    for (const std::string& lab : checkout.labs()) steps += checkout.step_ids(lab).size();
    if (graded.status != kExitFailed || graded.output.find("\n0 of " + std::to_string(steps) + " steps pass") == std::string::npos)
      fail(destination, "./workbook grade there did not fail every one of its " + std::to_string(steps) + " steps (exit " +
                            std::to_string(graded.status) + "; see " + checkout.shown(log) + ")");
    // Each step's line on the scorecard: "FAIL  06.2 sequential addressing: TODO(06.1) not implemented: ..."
    // (a step may stop at an earlier step's TODO it needs first: 06.2 at 06.1's workspace query).
    const std::vector<std::string> lines = lines_of(graded.output);
    for (const std::string& lab : checkout.labs())
      for (const std::string& id : checkout.step_ids(lab)) {
        const auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with("FAIL  " + id + " "); });
        if (line == lines.end() || line->find(": TODO(" + id.substr(0, 3)) == std::string::npos || line->find(") not implemented") == std::string::npos)
          fail(destination, "step " + id + " of the untouched starter does not fail with a TODO of its lab (see " + checkout.shown(log) + ")");
      }
    say("handout: graded on this GPU, every one of its " + std::to_string(steps) + " steps fails with a TODO of its lab");
  }
  fs::remove_all(destination + "/build");
  fs::remove_all(destination + "/results");
  say("handout: " + destination + " is the student's copy. Hand it out as it is, or make it a repository of its own "
      "(git init; git add -A; git commit): it holds no history and none of solutions/");
  return 0;
}

}  // namespace workbook::runner
