// `handout DEST`: the student's copy of the workbook, written as a plain folder with no history and
// without the instructor tree (solutions/: the reference solutions, the witnesses, the mutants,
// the NOTES), of the files git tracks alone (an instructor's grades and past submissions sit in
// the checkout untracked: each is named, and left out), then checked before it is called done: it
// holds no file of the instructor tree (by path, by content, or edited), it configures and builds
// from scratch with none of it, its build holds the starters' graders and no other, and on a GPU
// every step of every lab fails with a TODO. A copy that fails a check is removed.
//
// Why not a clone with solutions/ deleted: git's history still holds every file that was ever
// committed (`git show HEAD~1:solutions/...`), and so does the .git folder a clone comes with.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "runner/built.h"
#include "runner/commands.h"
#include "runner/instructor_copy.h"
#include "runner/process.h"

namespace workbook::runner {

namespace {

namespace fs = std::filesystem;

// The folders of a checkout that are not the course: what the instructor keeps, and what a build
// or a grading wrote. Anything else at the top whose name starts with '.' is a tool's (.git, .ci,
// .scratch), except .gitignore and .clang-format (the layout the copy's own test holds grader/ to).
const std::set<std::string> kNotHandedOut = {"solutions", "build", "results"};

// The instructor's files outside solutions/: the instructors' guide and its picture, the design (a
// maintainer's page: the two trees, the proofs), and a script that needs solutions/. A page handed out leaves out its
// instructor spans too (student_text()).
const std::set<std::string> kInstructorOnly = {"docs/instructors.md", "docs/site-instructors.png", "docs/design.md",
                                               "scripts/edit_to_verdict.sh"};

bool handed_out(const fs::path& relative) {
  const std::string top = relative.begin()->string();
  if (kNotHandedOut.contains(top) || kInstructorOnly.contains(relative.generic_string())) return false;
  return top.front() != '.' || top == ".gitignore" || top == ".clang-format";
}

// A page of the course as a student's copy holds it: without the lines from each
// "<!-- instructors: begin" line to the next "<!-- instructors: end -->" line, both included.
constexpr std::string_view kInstructorsBegin = "<!-- instructors: begin", kInstructorsEnd = "<!-- instructors: end -->";
std::string student_text(const std::string& page) {
  std::istringstream in(page);
  std::string kept;
  bool instructors = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kInstructorsBegin)) instructors = true;
    else if (instructors && line.starts_with(kInstructorsEnd)) instructors = false;
    else if (!instructors) kept += line + "\n";
  }
  return kept;
}

// The course's files, relative to the root: those the workbook's repository tracks, and nothing
// else. An instructor's checkout is where grades and past submissions sit, untracked: each file
// found that git does not track is named in `left_out`, and stays behind.
std::vector<fs::path> course_files(const std::string& root, std::vector<std::string>& left_out) {
  if (!fs::exists(root + "/.git") || !on_path("git"))
    throw Fatal(
        kExitUsage,
        "handout copies the files the workbook's git repository tracks, and " + root +
            " is not a git checkout (or git is not installed): run it in a clone of the workbook, so that nothing "
            "else in your folder (grades, submissions) can go out with it");
  const auto listed = [&](const std::vector<std::string>& which) {
    std::vector<std::string> argv = {"git", "-C", root, "ls-files", "-z"};
    argv.insert(argv.end(), which.begin(), which.end());
    const Outcome outcome = run({argv});
    if (outcome.status != 0) throw Fatal(kExitFailed, "git ls-files failed in " + root + ": " + outcome.output);
    std::vector<std::string> names;
    std::stringstream in(outcome.output);
    for (std::string name; std::getline(in, name, '\0');)
      if (!name.empty()) names.push_back(name);
    return names;
  };
  std::vector<fs::path> files;
  for (const std::string& name : listed({"--cached"}))
    if (handed_out(name) && fs::symlink_status(root + "/" + name).type() == fs::file_type::regular)
      files.emplace_back(name);
  for (const std::string& name : listed({"--others", "--exclude-standard"}))
    if (handed_out(name)) left_out.push_back(name);
  std::sort(files.begin(), files.end());
  return files;
}

// The copy being written: removed whole, as if it had never been started, unless it is accepted:
// a refused handout leaves nothing in DEST that could be handed out by mistake.
class CopyInProgress {
 public:
  explicit CopyInProgress(std::string folder) : folder_(std::move(folder)), existed_(fs::exists(folder_)) {}
  ~CopyInProgress() {
    if (accepted_) return;
    std::error_code ignored;
    if (!existed_) {
      fs::remove_all(folder_, ignored);
      return;
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(folder_, ignored))
      fs::remove_all(entry.path(), ignored);
  }
  CopyInProgress(const CopyInProgress&) = delete;
  CopyInProgress& operator=(const CopyInProgress&) = delete;
  void accept() { accepted_ = true; }

 private:
  std::string folder_;
  bool existed_;
  bool accepted_ = false;
};

void fail(const std::string& destination, const std::string& why) {
  throw Fatal(kExitFailed, "the handout in " + destination + " is not fit to hand out, and was removed: " + why);
}

}  // namespace

namespace {

// How the copy's own ./workbook runs: the preset of this grading, the copy's own results/, and no
// Slurm required of its tests.
std::vector<std::pair<std::string, std::string>> student_preset(const Checkout& checkout) {
  return {{"WORKBOOK_PRESET", checkout.preset}, {"WORKBOOK_RESULTS", ""}, {"WORKBOOK_REQUIRE_SLURM", ""}};
}

// What `handout` is asked: the folder the student's copy goes to (one, given, outside this checkout,
// new or empty), and whether the build its check makes there is kept (--keep-build), so that the
// copy can be graded again without building it; a copy handed out has none.
struct HandoutRequest {
  std::string destination;
  bool keep_build = false;
};
HandoutRequest request_of(const Checkout& checkout, Words words) {
  HandoutRequest request;
  std::string& destination = request.destination;
  for (std::string word; words.next(word);) {
    if (word == "--keep-build") {
      request.keep_build = true;
      continue;
    }
    if (word.starts_with("-")) throw unknown_option(checkout, "handout", word);
    if (!destination.empty()) throw Fatal(kExitUsage, "handout takes one folder to write the student's copy into");
    destination = checkout.from_caller(word);
  }
  if (destination.empty())
    throw Fatal(kExitUsage,
                "handout needs a folder to write the student's copy into, e.g. ./workbook handout ../course-2027");
  destination = fs::weakly_canonical(destination).string();
  const std::string root = fs::weakly_canonical(checkout.root).string();
  if (destination == root || destination.starts_with(root + "/"))
    throw Fatal(kExitUsage,
                "handout: " + destination + " is inside this checkout; write the student's copy somewhere else");
  if (fs::exists(destination) && !(fs::is_directory(destination) && fs::is_empty(destination)))
    throw Fatal(kExitUsage, "handout: " + destination + " exists and is not an empty folder");
  return request;
}

// The copy: the course's files, with their modes (./workbook and the scripts stay executable), each
// page without its instructor spans.
void copy_the_course(const Checkout& checkout, const std::string& destination) {
  std::vector<std::string> left_out;
  const std::vector<fs::path> files = course_files(checkout.root, left_out);
  if (!left_out.empty()) {
    std::string named;
    for (std::size_t i = 0; i < left_out.size() && i < 10; ++i) named += (i == 0 ? "" : ", ") + left_out[i];
    if (left_out.size() > 10) named += " and " + std::to_string(left_out.size() - 10) + " more";
    say("handout: leaves out " + std::to_string(left_out.size()) +
        " files git does not track here (yours, not the course's): " + named);
  }
  say("handout: writing " + std::to_string(files.size()) + " files into " + destination +
      " (no solutions/, no history)");
  for (const fs::path& file : files) {
    const fs::path to = fs::path(destination) / file;
    fs::create_directories(to.parent_path());
    fs::copy_file(fs::path(checkout.root) / file, to);
    if (file.extension() == ".md")
      std::ofstream(to, std::ios::trunc) << student_text(read_text((fs::path(checkout.root) / file).string()));
  }
}

// Nothing of the instructor tree, by path or by content, even edited (a solution copied into labs/
// with a comment added would be); nothing that names this machine's folders, or is left of an
// instructor span.
void check_nothing_of_the_instructor(const Checkout& checkout, const std::string& destination) {
  const std::string root = fs::weakly_canonical(checkout.root).string();
  const std::vector<InstructorFile> instructor = instructor_files(checkout.root);
  for (auto it = fs::recursive_directory_iterator(destination); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), destination);
    if (!handed_out(relative)) fail(destination, relative.string() + " is not part of a student's copy");
    if (it->symlink_status().type() != fs::file_type::regular) continue;
    const std::string text = read_text(it->path().string());
    if (const std::string same = copy_of_instructor_file(text, instructor); !same.empty())
      fail(destination, relative.string() + " is a copy of the instructor's " + same);
    if (text.find(root + "/") != std::string::npos) fail(destination, relative.string() + " names the folder " + root);
    if (relative.extension() == ".md" && text.find(kInstructorsBegin) != std::string::npos)
      fail(destination, relative.string() + " still holds an instructor span");
  }
}

// It builds from scratch, without the instructor tree, in a build folder of its own, and its own
// test suite passes there, as a student runs it (the README's second command). The copy keeps its
// results in its own results/, and its tests install nothing a student's would not (no Slurm). Its
// build's progress goes to the console, as the student would see it: minutes of compiling.
void build_and_test_the_copy(const Checkout& checkout, const std::string& destination, const std::string& log) {
  say("handout: building it from scratch and running its tests, as a student would (about 13 minutes on 2 cores; "
      "./workbook test there; log: " +
      checkout.shown(log) + ")");
  std::ofstream build_log(log, std::ios::trunc);
  static const std::regex test_verdict(R"(^tests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$)"),
      test_done(R"(^ *([0-9]+)/([0-9]+) Test +#.*)");  // ctest's "  12/150 Test  #12: ... Passed"
  std::string verdict;
  int tenths_said = 0;
  const int tested = run_lines(
      {{destination + "/workbook", "test"}, student_preset(checkout), destination}, [&](const std::string& line) {
        build_log << line << '\n';
        std::smatch m;
        if (line.starts_with("[workbook] ")) {
          say("handout: the copy: " + line.substr(11));
        } else if (std::regex_match(line, m, test_done) && std::stoi(m[1]) * 10 / std::stoi(m[2]) > tenths_said) {
          tenths_said = std::stoi(m[1]) * 10 / std::stoi(m[2]);
          say("handout: the copy's tests: " + std::string(m[1]) + " of " + std::string(m[2]) + " done");
        }
        if (std::regex_match(line, test_verdict)) verdict = line;
      });
  build_log.close();
  if (verdict.empty())
    fail(destination, "it does not build (exit " + std::to_string(tested) + "): see " + checkout.shown(log));
  if (tested != 0)
    fail(destination,
         "its own test suite fails there (" + verdict + "), as it would for a student: see " + checkout.shown(log));
  say("handout: the copy's own test suite passes (" + verdict + ")");
}

// Its build holds the starters' graders, one a lab, and no other.
void check_only_the_starters_graders(const Checkout& checkout, const std::string& destination) {
  const std::string build = destination + "/build/" + checkout.preset;
  std::vector<std::string> graders, others;
  for (const std::string& lab : checkout.labs()) {
    for (const fs::directory_entry& entry : fs::directory_iterator(build + "/labs/" + lab)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("grade_") || !entry.is_regular_file() ||
          (entry.status().permissions() & fs::perms::owner_exec) == fs::perms::none)
        continue;
      (name == fs::path(built(build, lab, "starter").grader).filename() ? graders : others).push_back(name);
    }
  }
  if (!others.empty()) fail(destination, "its build holds graders beyond the starters': " + others.front());
  if (graders.size() != checkout.labs().size())
    fail(destination, "its build holds " + std::to_string(graders.size()) + " starters' graders for " +
                          std::to_string(checkout.labs().size()) + " labs");
  say("handout: it builds, with the " + std::to_string(graders.size()) + " starters' graders and no other");
}

// On a GPU, every step of every lab fails, each with a TODO of its lab (a step may stop at an
// earlier step's TODO it needs first: 06.2 at 06.1's workspace query).
void check_every_step_fails_with_a_todo(const Checkout& checkout, const std::string& destination,
                                        const std::string& log) {
  const Outcome graded = run({{destination + "/workbook", "grade"}, student_preset(checkout), destination});
  std::ofstream(log, std::ios::app) << graded.output;
  if (graded.status == kExitNoGpu) {
    say("handout: no GPU here, so its steps were not graded; on a GPU machine ./workbook grade in the copy fails every "
        "step with a TODO");
    return;
  }
  std::size_t steps = 0;
  for (const std::string& lab : checkout.labs()) steps += checkout.step_ids(lab).size();
  if (graded.status != kExitFailed ||
      graded.output.find("\n0 of " + std::to_string(steps) + " steps pass") == std::string::npos)
    fail(destination, "./workbook grade there did not fail every one of its " + std::to_string(steps) +
                          " steps (exit " + std::to_string(graded.status) + "; see " + checkout.shown(log) + ")");
  // Each step's line on the scorecard: "FAIL  06.2 sequential addressing: TODO(06.1) not implemented: ..."
  const std::vector<std::string> lines = lines_of(graded.output);
  for (const std::string& lab : checkout.labs())
    for (const std::string& id : checkout.step_ids(lab)) {
      const auto line = std::find_if(lines.begin(), lines.end(),
                                     [&](const std::string& l) { return l.starts_with("FAIL  " + id + " "); });
      if (line == lines.end() || line->find(": TODO(" + id.substr(0, 3)) == std::string::npos ||
          line->find(") not implemented") == std::string::npos)
        fail(destination, "step " + id + " of the untouched starter does not fail with a TODO of its lab (see " +
                              checkout.shown(log) + ")");
    }
  say("handout: graded on this GPU, every one of its " + std::to_string(steps) + " steps fails with a TODO of its lab");
}

}  // namespace

int handout(const Checkout& checkout, Words words) {
  const HandoutRequest request = request_of(checkout, words);
  const std::string& destination = request.destination;
  CopyInProgress copy(destination);
  copy_the_course(checkout, destination);
  check_nothing_of_the_instructor(checkout, destination);
  fs::create_directories(checkout.results);
  const std::string log = checkout.results + "/handout.log";
  build_and_test_the_copy(checkout, destination, log);
  check_only_the_starters_graders(checkout, destination);
  check_every_step_fails_with_a_todo(checkout, destination, log);
  if (!request.keep_build) fs::remove_all(destination + "/build");
  fs::remove_all(destination + "/results");
  copy.accept();
  if (request.keep_build) {
    say("handout: " + destination +
        "/build is the build its check made (--keep-build): remove it before handing the "
        "copy out");
    return 0;
  }
  say("handout: " + destination +
      " is the student's copy. Hand it out as it is, or make it a repository of its own "
      "(git init; git add -A; git commit): it holds no history and none of solutions/");
  return 0;
}

}  // namespace workbook::runner
