// `grade`: one grading. It reads the user's words, takes in a submission, builds each lab's grader
// (a lab that does not compile fails alone), audits each student object file, draws the seed, runs
// each lab's steps in one judge process (confined, limited, each step timed out; a new process after a
// step that crashes, hangs or breaks the CUDA context), takes back each step's rows only when they
// are its own, and writes the scorecard, results.json and JUnit.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/as_data.h"
#include "protocol/bars_profile.h"
#include "protocol/plan_findings.h"
#include "runner/build.h"
#include "runner/built.h"
#include "runner/collect.h"
#include "runner/commands.h"
#include "runner/process.h"

namespace workbook::runner {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxLoggedOutput = 8u << 20;  // of one step's output, into grade.log

// What `./workbook grade ...` asks for, read and checked before anything is built.
struct Request {
  std::vector<std::string> labs, steps;  // steps: ids, "04.1"; their labs are in labs
  std::string implementation = "starter", submission, points, seed, timeout_s = "300", sanitizer;
  std::string json, junit, results;
  // --data-key: the key a step's grade.log names, to draw that step's inputs again (with its --seed).
  std::string data_key;
  // grade-class's worker slot (--class-slot, one per GPU): a submission's build folder of its own,
  // so that students graded at once on several GPUs never build in the same folder.
  int class_slot = 0;
  // grade-class's (--as, --submission-results): the student's name in the class, unique there, and
  // the folder of the class's where their submission's results go.
  std::string as_name, submission_results;
  // grade-class --build-ahead's: take the submission and build it, and grade nothing (yet).
  bool build_only = false;
  // grade-class's (--judges-built): the labs' judges are built in the checkout's build already, once
  // for the class; a grading of one submission builds them there itself.
  bool judges_built = false;
  // Each step by the lab's judge, the file's host code in a planner of its own; --linked (the
  // reference solutions only) links the implementation into the lab's grader instead.
  bool judge = true;
  // ./workbook profile: the one step to profile under Nsight Compute, and the ncu that does it.
  std::string profile, ncu;
};

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// A file the grading will write: checked now, so that a grading whose results cannot be written is
// not run at all. The file is not emptied: every way out of a grading writes it whole.
std::string writable(const Checkout& checkout, const std::string& option, const std::string& path) {
  const std::string file = checkout.from_caller(path);
  if (file.empty() || !std::ofstream(file, std::ios::app)) throw Fatal(kExitUsage, option + ": cannot write " + file);
  return file;
}

}  // namespace

void check_points(const Checkout& checkout, const std::string& path) {
  Points points;
  try {
    points = read_points(path);
  } catch (const std::invalid_argument& error) {
    throw Fatal(kExitUsage, error.what());
  }
  for (const auto& [step, line] : points.line_of_step) {
    const std::string where = path + ":" + std::to_string(line) + ": ";
    std::string lab;
    for (const std::string& candidate : checkout.labs())
      if (lab_number(candidate) == lab_number(step)) lab = candidate;
    const std::vector<std::string> ids = lab.empty() ? std::vector<std::string>{} : checkout.step_ids(lab);
    if (std::find(ids.begin(), ids.end(), step) != ids.end()) continue;
    std::string known;
    for (const std::string& id : ids) known += " " + id;
    throw Fatal(kExitUsage, where + "there is no step " + step +
                                (lab.empty() ? " (no lab is numbered " + lab_number(step) + ")"
                                             : "; " + lab + "'s steps are" + known));
  }
}

namespace {

// What grade and profile both check of a request: its timeout, and --solution and --submission
// (`doing`: "grades a student's files") where they cannot be.
void check_request(const Checkout& checkout, const Request& r, const std::string& doing) {
  if (!std::regex_match(r.timeout_s, std::regex("[1-9][0-9]{0,5}")))
    throw Fatal(kExitUsage, "--timeout takes a whole number of seconds (1 to 999999), not '" + r.timeout_s + "'");
  if (r.implementation == "solution" && !fs::is_directory(checkout.root + "/solutions"))
    throw Fatal(kExitUsage, "--solution: this copy of the workbook has no solutions/");
  if (!r.submission.empty() && r.implementation == "solution")
    throw Fatal(kExitUsage, "--submission " + doing + ": it cannot be combined with --solution");
}

Request read_request(const Checkout& checkout, Words words) {
  Request r;
  r.results = checkout.results;
  std::vector<std::string> whole;  // labs named whole: every step of theirs, whatever ids are named too
  static const std::regex step_id("[0-9]{2}\\.[0-9]+"), step_like("[0-9]{2}\\..*");
  for (std::string word; words.next(word);) {
    if (word == "--submission") r.submission = checkout.from_caller(words.value("a folder or an archive"));
    else if (word == "--points") r.points = checkout.from_caller(words.value("a file"));
    else if (word == "--seed") r.seed = checked_seed(words.value("a value"));
    else if (word == "--data-key") r.data_key = checked_seed(words.value("a value"), "--data-key");
    else if (word == "--solution") r.implementation = "solution";
    else if (word == "--sanitize") r.sanitizer = "compute-sanitizer";
    else if (word == "--no-device-trace") throw Fatal(kExitUsage, kNoDeviceTraceAnyMore);
    else if (word == "--linked") r.judge = false;
    else if (word == "--json") r.json = writable(checkout, "--json", words.value("a file"));
    else if (word == "--junit") r.junit = writable(checkout, "--junit", words.value("a file"));
    else if (word == "--timeout") r.timeout_s = words.value("seconds");
    else if (word == "--build-only") r.build_only = true;                  // grade-class --build-ahead's
    else if (word == "--judges-built") r.judges_built = true;              // grade-class's
    else if (word == "--as") r.as_name = words.value("a student's name");  // grade-class's
    else if (word == "--submission-results") r.submission_results = words.value("a folder");  // grade-class's
    else if (word == "--class-slot") {  // grade-class's, for the build folder of the GPU it grades on
      const std::string slot = words.value("a number");
      if (!std::regex_match(slot, std::regex("[0-9]{1,3}")))
        throw Fatal(kExitUsage, "--class-slot takes a number from 0 to 999, not '" + slot + "'");
      r.class_slot = std::stoi(slot);
    } else if (word.starts_with("-")) throw unknown_option(checkout, "grade", word);
    else if (std::regex_match(word, step_id)) {  // one step: its lab, and the id, checked below
      add_once(r.labs, checkout.lab_named(lab_number(word)));
      add_once(r.steps, word);
    } else if (std::regex_match(word, step_like)) {
      throw Fatal(kExitUsage, "a step is named by its id, like 04.1, not '" + word + "'");
    } else {
      add_once(r.labs, checkout.lab_named(word));
      add_once(whole, checkout.lab_named(word));
    }
  }
  // The seed is drawn now, so that the lab's judge is asked once (its answer kept) for the steps, to
  // check each id named, and for the sizes the seed draws (lab 04's judge takes 0.08 s to start).
  if (r.seed.empty()) r.seed = drawn_seed();
  for (const std::string& id : r.steps) lab_of_step(checkout, id, {"--seed=" + r.seed});
  std::erase_if(r.steps, [&](const std::string& id) {
    return std::any_of(whole.begin(), whole.end(),
                       [&](const std::string& lab) { return lab_number(lab) == lab_number(id); });
  });
  check_request(checkout, r, "grades a student's files");
  // grade-class's options name a folder it empties: only one of the results' own, for a student's name.
  if (!r.as_name.empty() &&
      (r.as_name.front() == '.' || r.as_name.find('/') != std::string::npos || line_as_data(r.as_name) != r.as_name))
    throw Fatal(kExitUsage,
                "--as takes a student's name as grade-class gives one (no '/', not starting with '.'), not '" +
                    line_as_data(r.as_name) + "'");
  if (!r.submission_results.empty()) {
    const fs::path results = fs::weakly_canonical(fs::absolute(checkout.results));
    const fs::path asked = fs::weakly_canonical(fs::absolute(r.submission_results));
    const auto [ends, inside] = std::mismatch(results.begin(), results.end(), asked.begin(), asked.end());
    if (ends != results.end() || inside == asked.end())
      throw Fatal(kExitUsage, "--submission-results is grade-class's: a folder inside " +
                                  checkout.shown(checkout.results) + ", not " + line_as_data(r.submission_results));
  }
  // A student's host code never runs in the process that judges it (docs/integrity.md, part 1).
  if (!r.judge && r.implementation != "solution")
    throw Fatal(kExitUsage,
                "--linked runs the graded file's host code inside its grader, so it grades only the reference "
                "solutions (with --solution); a student's file is always judged");
  if (!r.points.empty() && !std::ifstream(r.points)) throw Fatal(kExitUsage, "--points: cannot read " + r.points);
  if (r.points.empty() && std::ifstream(checkout.root + "/classroom/points.conf"))
    r.points = checkout.root + "/classroom/points.conf";
  if (!r.points.empty())
    check_points(checkout, r.points);  // a points file with a mistake is refused before anything runs
  if (!r.sanitizer.empty()) {
    r.sanitizer = toolkit_tool("compute-sanitizer");
    if (r.sanitizer.empty())
      throw Fatal(kExitMissingTools,
                  "--sanitize needs compute-sanitizer (part of the CUDA toolkit), which is not here");
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Confinement: as root, each step process (a lab's steps in one judge) runs as an unprivileged user
// of its own, in a working folder of its own. Its user is a number of a range no account uses (no
// name, no home, no files but the process's scratch folder): steps graded at once for other students
// (grade-class on several GPUs, Slurm tasks on one node) can neither write each other's folders nor
// trace each other's processes, and a process leaves nothing a later one's user owns.

// The first id of the range: 2,100,000,000, far above the ids of accounts and of the ranges that
// container runtimes give out (100,000 up); WORKBOOK_GRADING_IDS moves it. A grading in class
// slot k (--class-slot) takes ids first + k * kIdsPerSlot onward, one per step.
constexpr unsigned long kFirstGradingId = 2'100'000'000, kIdsPerSlot = 4096;

struct Confinement {
  // One named user for every step (WORKBOOK_GRADING_USER), or none: then `first_id`.
  std::optional<std::pair<uid_t, gid_t>> ids;
  std::optional<unsigned long> first_id;  // this grading's first step user
  std::string why_not;
  // The user and group of the `step`th step this grading runs (0 on), when confined.
  std::optional<std::pair<uid_t, gid_t>> step_ids(unsigned long step) const {
    if (ids) return ids;
    if (!first_id) return std::nullopt;
    const auto id = static_cast<uid_t>(*first_id + step % kIdsPerSlot);
    return std::pair<uid_t, gid_t>{id, static_cast<gid_t>(id)};
  }
  std::string described() const {
    if (ids) {
      const passwd* user = getpwuid(ids->first);
      return "the unprivileged user " + std::string(user != nullptr ? user->pw_name : std::to_string(ids->first)) +
             " (WORKBOOK_GRADING_USER)";
    }
    return "an unprivileged user of its own (ids " + std::to_string(*first_id) + " on, which no account uses)";
  }
};

// `grader`: a program the steps run, which the unprivileged users must reach; `class_slot`: which
// share of the id range this grading takes.
Confinement settle_confinement(const std::string& grader, int class_slot) {
  Confinement c;
  const char* user = std::getenv("WORKBOOK_GRADING_USER");
  const bool named = user != nullptr && *user != '\0';
  const std::string name = named ? user : "";
  if (geteuid() != 0) {
    const passwd* me = getpwuid(geteuid());
    c.why_not = "not running as root: steps run as " + std::string(me != nullptr ? me->pw_name : "this user") +
                ", who runs the grading";
    return c;
  }
  if (!on_path("setpriv")) return {{}, {}, "setpriv (util-linux) is not installed"};
  if (named) {
    const passwd* grading = getpwnam(name.c_str());
    if (grading == nullptr) return {{}, {}, "there is no user '" + name + "' (WORKBOOK_GRADING_USER)"};
    c.ids = {grading->pw_uid, grading->pw_gid};
  } else {
    unsigned long first = kFirstGradingId;
    if (const char* moved = std::getenv("WORKBOOK_GRADING_IDS"); moved != nullptr && *moved != '\0') {
      if (!std::regex_match(moved, std::regex("[1-9][0-9]{3,9}")) ||
          std::stoul(moved) + 1000 * kIdsPerSlot > 4'000'000'000ul)
        throw Fatal(kExitUsage,
                    "WORKBOOK_GRADING_IDS is the first user id of the range steps run as (1000 or more, "
                    "the range 4,096,000 ids long), not '" +
                        std::string(moved) + "'");
      first = std::stoul(moved);
    }
    c.first_id = first + static_cast<unsigned long>(class_slot) * kIdsPerSlot;
  }
  const auto [uid, gid] = *c.step_ids(0);
  const Outcome reach = run({{"setpriv", "--reuid=" + std::to_string(uid), "--regid=" + std::to_string(gid),
                              "--clear-groups", "--", "test", "-x", grader}});
  if (reach.status != 0)
    return {{},
            {},
            "the unprivileged user " + std::to_string(uid) + " cannot reach " + grader +
                " (a folder on its path is private): move the checkout, or open its path to others"};
  return c;
}

// ---------------------------------------------------------------------------------------------
// One grading: `grade`.

// The lab's judge, as built in `judge_dir`, with `implementation`'s planner and the files of its GPU
// code (grader/judge/judge.h), as built in `build_dir`: what grades, or profiles, one step without
// running any of its host code. A submission's folder builds only its files; its judge is the
// checkout's, built once for every student (Build::judges()).
std::vector<std::string> judged_program(const std::string& judge_dir, const std::string& build_dir,
                                        const std::string& lab, const std::string& implementation) {
  const Built made = built(build_dir, lab, implementation);
  std::vector<std::string> program = {Checkout::judge(judge_dir, lab), "--planner=" + made.planner};
  // Each file's SASS dump after it, where the build wrote one: the machine-code checks read it.
  const auto add = [&program](const std::string& file, const std::string& sass) {
    program.push_back("--device-code=" + file);
    if (!sass.empty()) program.push_back("--sass=" + sass);
  };
  add(made.device_code, made.device_code_sass);
  if (!made.given_code.empty()) add(made.given_code, made.given_code_sass);
  return program;
}

struct Grading {
  explicit Grading(const Checkout& c) : checkout(c) {}
  const Checkout& checkout;
  std::string build_dir, results, implementation, seed, timeout_s, sanitizer;
  std::string data_key;  // "" unless --data-key: then every step draws its inputs from it
  // What a step's process draws from: the seed (its sizes), and the data key where one was given.
  std::vector<std::string> drawing_arguments() const {
    std::vector<std::string> words = {"--seed=" + seed};
    if (!data_key.empty()) words.push_back("--data-key=" + data_key);
    return words;
  }
  std::string judge_dir;  // where the labs' judges are built: the checkout's build
  bool judge = true;
  // What no planner may read, where it lies inside a folder planners may (judge/planner_process.h):
  // the checkout, the results, and the folder a submission came from (a class's). And whether the
  // file graded is someone else's (a submission): then a judge that cannot confine its planner's
  // reads refuses to grade.
  std::vector<std::string> private_folders;
  bool someone_elses_file = false;
  std::vector<std::string> labs, broken, missing, only_steps;
  std::map<std::string, std::string> refusals;     // lab -> the include check's findings
  std::map<std::string, std::string> copied;       // lab -> the instructor's solution its file copies
  std::map<std::string, std::string> miscompiled;  // lab -> why its GPU code is not the build's
  std::string rows_path, log_path, json, junit, points;
  std::string bars;  // which bars graded: this GPU's profile or the built-in ones, named under the scorecard
  Confinement confinement;
  unsigned long steps_run = 0;  // how many step processes this grading has started: each its own user
  int class_slot = 0;
  // grade.log: the steps' output (what the students' code printed among it) beside the grader's
  // own lines, written as data whatever path writes it, so that `cat grade.log` shows it as it was.
  AsDataFile log;
  std::vector<StepRow> rows;

  std::string grader(const std::string& lab, const std::string& kind) const {
    return Checkout::grader(build_dir, lab, kind);
  }
  // What grades one step of `lab`: the lab's judge, given the implementation's planner and the files
  // of its GPU code (grader/judge/judge.h), so that none of the implementation's host code runs in
  // the step's process; or with --linked (solutions only) its grader, which links the implementation.
  std::vector<std::string> step_program(const std::string& lab) const {
    if (!judge) return {grader(lab, implementation)};
    return judged_program(judge_dir, build_dir, lab, implementation);
  }
  // A lab's steps are listed by its judge, which links no implementation (so a file that does not
  // compile still has its steps), or where there is none by the checkout's starter: nothing of the
  // student's runs.
  std::string lister(const std::string& lab) const {
    const std::string judge_of_lab = Checkout::judge(judge_dir, lab);
    if (access(judge_of_lab.c_str(), X_OK) == 0) return judge_of_lab;
    return grader(lab, implementation == "submission" ? "starter" : implementation);
  }
  // The lab as its lister describes it (asked once a command: describe_lab()): its steps, the sizes
  // this grading's seed draws, its profile's metrics.
  const LabDescription& described(const std::string& lab) const {
    std::vector<std::string> arguments = {"--seed=" + seed};
    if (!sanitizer.empty()) arguments.push_back("--correctness-only");
    return describe_lab(lister(lab), arguments);
  }
  // The lab's steps asked for: those named by id, or all of them when none of its steps was.
  std::vector<StepInfo> chosen_steps(const std::string& lab) {
    const bool some = std::any_of(only_steps.begin(), only_steps.end(),
                                  [&](const std::string& id) { return lab_number(id) == lab_number(lab); });
    std::vector<StepInfo> steps;
    for (const StepInfo& s : described(lab).steps)
      if (!some || std::find(only_steps.begin(), only_steps.end(), s.id) != only_steps.end()) steps.push_back(s);
    return steps;
  }
  void fail(const LabStep& step, const std::string& reason) { rows.push_back(failed_row(step, reason)); }
  std::string results_shown() const { return checkout.shown(results); }
};

// The reason every step of a refused lab fails with: its first finding, and how many more.
std::string refusal_reason(const std::string& findings, const std::string& results) {
  const std::vector<std::string> lines = lines_of(findings);
  if (lines.size() <= 1) return lines.empty() ? "" : lines.front();
  return lines.front() + " (and " + std::to_string(lines.size() - 1) + " more findings: " + results + "/grade.log)";
}

// A process that grades `steps` steps (one, or a lab's in one judge), confined and limited, in a
// fresh working folder of its own, results/steps/<name>: its command line, and the file its rows go to.
struct StepProcess {
  Command command;
  std::string work, rows_file;
};
// `rows`: whether the process grades, and so takes where its rows go (a profile's run writes none,
// and the judge refuses --rows-fd outside a grading).
StepProcess step_process(Grading& g, const std::string& name, std::vector<std::string> command, std::size_t steps,
                         bool rows = true) {
  StepProcess p{Command({}), g.results + "/steps/" + name, ""};
  fs::remove_all(p.work);
  fs::create_directories(p.work + "/scratch");
  p.rows_file = p.work + "/rows.tsv";
  std::ofstream(p.rows_file).close();
  // A judge writes its rows on descriptor 3, which the runner opens: the file stays the runner's,
  // out of reach of the planner, which runs as the step's user.
  if (rows) command.push_back(g.judge ? "--rows-fd=3" : "--rows=" + p.rows_file);
  std::vector<std::string> argv = {g.checkout.root + "/grader/runner/limited.sh", "step"};
  argv.insert(argv.end(), command.begin(), command.end());
  if (const auto step_ids = g.confinement.step_ids(g.steps_run++)) {
    // The folder is root's: the step may write its rows file and its scratch folder, and nothing
    // else of the checkout, results/ or solutions/; it cannot put a link where its rows are read.
    const auto [uid, gid] = *step_ids;
    if ((!g.judge && chown(p.rows_file.c_str(), uid, gid) != 0) ||
        chown((p.work + "/scratch").c_str(), uid, gid) != 0 || chmod((p.work + "/scratch").c_str(), 0700) != 0)
      throw Fatal(kExitFailed, "cannot hand " + p.work + " to the unprivileged user");
    argv.insert(argv.begin(), {"setpriv", "--reuid=" + std::to_string(uid), "--regid=" + std::to_string(gid),
                               "--clear-groups", "--no-new-privs", "--"});
  }
  // limited.sh's time limits are the process's, so many times a step's for several steps (the runner
  // holds each step to its own time itself).
  std::string private_folders;
  for (const std::string& folder : g.private_folders) private_folders += (private_folders.empty() ? "" : ":") + folder;
  p.command = Command(argv,
                      {{"HOME", p.work + "/scratch"},
                       {"TMPDIR", p.work + "/scratch"},
                       {"WORKBOOK_STEP_SECONDS", g.timeout_s},
                       {"WORKBOOK_STEPS_IN_PROCESS", std::to_string(steps)},
                       {"WORKBOOK_PRIVATE_FOLDERS", private_folders},
                       {"WORKBOOK_CONFINEMENT_REQUIRED", g.someone_elses_file ? "1" : "0"}},
                      p.work + "/scratch", p.work + "/output.log");
  if (g.judge) p.command.appended_on_3 = p.rows_file;
  return p;
}

// Runs one step's process confined and limited; its output goes to grade.log and its rows, once
// believed, to the grading's. Returns its exit status.
int run_step(Grading& g, const std::string& lab, const StepInfo& step, std::vector<std::string> command,
             std::string* output_copy = nullptr, bool rows = true) {
  const StepProcess p = step_process(g, lab + "-" + step.id, std::move(command), 1, rows);
  const auto began = std::chrono::steady_clock::now();
  const Outcome outcome = run(p.command);
  const std::string output = read_text(p.work + "/output.log");
  if (output_copy != nullptr) *output_copy = output;
  g.log << output.substr(0, kMaxLoggedOutput);
  g.log << "[workbook] " << lab << ' ' << step.name() << ": " << std::fixed << std::setprecision(2)
        << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()
        << " s, the step's process from start to end\n"
        << std::defaultfloat;
  g.log.flush();
  if (outcome.status == 0 || outcome.status == exit_code::kStepFailed || outcome.status == exit_code::kSkipped)
    for (StepRow& row : collect_rows(p.rows_file, step)) g.rows.push_back(row);
  fs::remove_all(p.work);
  return outcome.status;
}

// How a step's process ended, read from its exit status in this one place, for the three ways a
// step runs (a process of its own, a lab's steps in one judge, under compute-sanitizer).
enum class Ending {
  kGraded,          // its rows say its verdict (0: passed, 1: failed)
  kNotApplicable,   // 77: every step it ran needs a newer GPU
  kNotGraded,       // 2: it ran no test case (a usage error of ours, or a step it could not start)
  kContextLost,     // a judge stopped after a step that left the CUDA context unusable
  kSanitizerFound,  // compute-sanitizer found errors
  kHung,            // over its time limit
  kCrashed,         // anything else: a signal, an exit of its own
};
Ending ending_of(int status, bool under_sanitizer = false) {
  switch (status) {
    case 0:
    case exit_code::kStepFailed: return Ending::kGraded;
    case exit_code::kSkipped: return Ending::kNotApplicable;
    case exit_code::kUsage: return Ending::kNotGraded;
    case exit_code::kContextLost: return Ending::kContextLost;
    case exit_code::kTimedOut:
    case exit_code::kKilled: return Ending::kHung;
    case exit_code::kSanitizerFoundErrors: return under_sanitizer ? Ending::kSanitizerFound : Ending::kCrashed;
    default: return Ending::kCrashed;
  }
}

// Why a step failed without rows of its own, as its failed row says it, and the console's word for
// it: one process per step (grade_step), a lab's steps in one judge (grade_in_one_judge) and a
// compute-sanitizer tool's run (sanitize_step, `tool` named) alike.
constexpr const char* kSaidNotApplicable = "n/a (needs a newer GPU: see the verdicts)";
std::string not_graded_reason(const Grading& g) {
  return "the grader ran no test case for this step; see " + g.results_shown() + "/grade.log";
}
std::string hung_reason(const Grading& g, const std::string& tool = "") {
  if (!tool.empty())
    return "did not finish within " + g.timeout_s + " s under " + tool + " (--timeout raises the limit)";
  return "did not finish within " + g.timeout_s + " s: a hang or an endless loop (--timeout raises the limit)";
}
std::string crashed_reason(const Grading& g, int status, const std::string& tool = "") {
  const std::string how =
      status > 128 ? "signal " + std::to_string(status - 128) : "exit code " + std::to_string(status);
  if (!tool.empty()) return "the grader died (" + how + ") under " + tool + "; see " + g.results_shown() + "/grade.log";
  return "the grader process died (" + how + ") while running this step; see " + g.results_shown() + "/grade.log";
}

// What the console says of a step's process that ended so, and the row of a step that failed
// without rows of its own: a step alone, or a compute-sanitizer tool's run of it (`tool`: "memcheck").
void say_ending(Grading& g, const std::string& lab, const StepInfo& step, int status, const std::string& tool = "") {
  const bool under_tool = !tool.empty();
  Ending ending = ending_of(status, under_tool);
  if (under_tool && ending == Ending::kNotGraded) ending = Ending::kCrashed;  // the tool's run ran nothing
  std::string said, reason;
  switch (ending) {
    case Ending::kGraded: said = status == 0 ? (under_tool ? "clean" : "pass") : "FAIL"; break;
    case Ending::kNotApplicable: said = under_tool ? "n/a (needs a newer GPU)" : kSaidNotApplicable; break;
    case Ending::kNotGraded:
      said = "FAIL (not graded)";
      reason = not_graded_reason(g);
      break;
    case Ending::kSanitizerFound:
      said = "FAIL (" + tool + " found errors)";
      reason = "compute-sanitizer's " + tool + " reported errors in this step's kernels; see " + g.results_shown() +
               "/grade.log";
      break;
    case Ending::kHung:
      said = "FAIL (hung)";
      reason = hung_reason(g, tool);
      break;
    case Ending::kContextLost:
    case Ending::kCrashed:
      said = "FAIL (crashed)";
      reason = crashed_reason(g, status, tool);
      break;
  }
  std::cout << said << '\n';
  if (!reason.empty()) g.fail(step, reason);
}

void grade_step(Grading& g, const std::string& lab, const StepInfo& step, const std::vector<std::string>& bars) {
  std::cout << "[workbook] " << lab << ' ' << step.name() << " ... " << std::flush;
  std::vector<std::string> command = g.step_program(lab);
  command.push_back("--step=" + step.id);
  for (const std::string& word : g.drawing_arguments()) command.push_back(word);
  command.insert(command.end(), bars.begin(), bars.end());
  say_ending(g, lab, step, run_step(g, lab, step, command));
}

// What the console says of a step once its rows are in, as grade_step() says it from the exit status.
std::string said_of(const std::vector<StepRow>& rows) {
  const std::vector<StepVerdict> verdict = verdicts(rows);
  if (!verdict.empty() && !verdict.front().applicable) return kSaidNotApplicable;
  return !verdict.empty() && verdict.front().passed ? "pass" : "FAIL";
}

// What a judge process that ended with `status` accounted for of its `steps`: their rows, or
// every step failed with why the process stopped (hung, crashed) or why its rows are not to be
// believed; `console`: the verdict the console shows for steps without rows of their own.
Accounted steps_accounted_for(Grading& g, const StepProcess& p, const std::vector<LabStep>& steps, int status,
                              bool over_time, std::string& console) {
  std::string stopped_why;
  if (over_time || ending_of(status) == Ending::kHung) {
    stopped_why = hung_reason(g);
    console = "FAIL (hung)";
  } else if (ending_of(status) == Ending::kCrashed) {
    stopped_why = crashed_reason(g, status);
    console = "FAIL (crashed)";
  }
  Accounted accounted;
  try {
    accounted = account_for_steps(rows_of_steps(p.rows_file, steps), steps, status, stopped_why, not_graded_reason(g));
  } catch (const std::exception& error) {  // not to be believed: every step of the process fails
    for (const LabStep& step : steps)
      accounted.rows.push_back(
          failed_row(step, std::string("the step's process gave no result to believe: ") + error.what()));
    accounted.steps_done = steps.size();
    console = "FAIL";
  }
  return accounted;
}

// Grades `steps` of `lab` in one judge process: its start, its CUDA context and its first launches
// are paid once, not once a step (docs/guide.md, "What the flow's choices save"). Each step is still
// held to its own time limit, and fails alone: a step in which the process hangs or dies fails, and
// the steps after it are left to a new process, as are those after a step that left the CUDA
// context unusable.
// Returns how many of `steps` it accounted for (at least one).
std::size_t grade_in_one_judge(Grading& g, const std::string& lab, const std::vector<StepInfo>& steps,
                               const std::vector<std::string>& bars) {
  std::vector<std::string> command = g.step_program(lab);
  const std::vector<LabStep> graded(steps.begin(), steps.end());
  std::string ids;
  for (const StepInfo& step : steps) ids += (ids.empty() ? "" : ",") + step.id;
  command.push_back("--step=" + ids);
  for (const std::string& word : g.drawing_arguments()) command.push_back(word);
  command.insert(command.end(), bars.begin(), bars.end());
  const StepProcess p = step_process(g, lab + "-" + steps.front().id, command, steps.size());
  const double limit_s = std::stod(g.timeout_s);
  const auto seconds_since = [](std::chrono::steady_clock::time_point then) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - then).count();
  };
  const auto began = std::chrono::steady_clock::now();
  auto step_began = began;
  std::size_t said = 0;      // steps[0, said) have reported, and the console has their verdicts
  std::ostringstream times;  // each step's time in the process, for grade.log
  const auto say_reported = [&] {
    std::vector<std::vector<StepRow>> rows;
    try {
      rows = rows_of_steps(p.rows_file, graded);
    } catch (const std::exception&) {
      return;  // said once the process has ended, as every step's failure
    }
    std::size_t last = 0;  // one past the last step that reported
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (!rows[k].empty()) last = k + 1;
    for (; said < last; ++said) {
      std::cout << said_of(rows[said]) << '\n';
      times << "[workbook] " << lab << ' ' << steps[said].name() << ": " << std::fixed << std::setprecision(2)
            << seconds_since(step_began) << " s in its lab's judge process\n";
      step_began = std::chrono::steady_clock::now();
      if (said + 1 < steps.size())
        std::cout << "[workbook] " << lab << ' ' << steps[said + 1].name() << " ... " << std::flush;
    }
  };
  std::cout << "[workbook] " << lab << ' ' << steps.front().name() << " ... " << std::flush;
  bool over_time = false;
  const int status = run_watched(p.command, std::chrono::milliseconds(100), [&] {
    say_reported();
    over_time = seconds_since(step_began) > limit_s;
    return !over_time;
  });
  say_reported();
  const std::string output = read_text(p.work + "/output.log");
  g.log << output.substr(0, kMaxLoggedOutput) << times.str();
  g.log << "[workbook] " << lab << ": " << steps.size() << " steps (" << ids << ") in one judge process, " << std::fixed
        << std::setprecision(2) << seconds_since(began) << " s from start to end\n"
        << std::defaultfloat;
  g.log.flush();

  std::string console;
  const Accounted accounted = steps_accounted_for(g, p, graded, status, over_time, console);
  // The console's verdicts of the steps accounted for but not yet said: failed without rows of their own.
  for (; said < accounted.steps_done; ++said) {
    std::cout << (console.empty() ? "FAIL (not graded)" : console) << '\n';
    if (said + 1 < accounted.steps_done)
      std::cout << "[workbook] " << lab << ' ' << steps[said + 1].name() << " ... " << std::flush;
  }
  if (accounted.steps_done < steps.size())  // after a step that left the context unusable: its next is begun again
    std::cout << "graded in a new process (the step before left the CUDA context unusable)\n";
  for (const StepRow& row : accounted.rows) g.rows.push_back(row);
  fs::remove_all(p.work);
  return accounted.steps_done;
}

// One step's correctness half under each compute-sanitizer tool, on exact-size arrays (so that
// memcheck sees an access one past an array) and small shapes (the tools slow kernels a hundredfold).
void sanitize_step(Grading& g, const std::string& lab, const StepInfo& step) {
  for (const std::string tool : {"memcheck", "racecheck", "synccheck"}) {
    std::cout << "[workbook] " << lab << ' ' << step.name() << ", " << tool << " ... " << std::flush;
    g.log << "=== compute-sanitizer --tool " << tool << ": " << lab << ' ' << step.name() << '\n';
    std::vector<std::string> command = {
        g.sanitizer,     "--tool", tool, "--error-exitcode", std::to_string(exit_code::kSanitizerFoundErrors),
        "--print-limit", "20"};
    // A judge finds how many parameters a kernel takes by asking the driver one past the last
    // (replay.h), an API error by design; the student's own API calls run in the planner.
    if (g.judge) command.insert(command.end(), {"--report-api-errors", "no"});
    for (const std::string& word : g.step_program(lab)) command.push_back(word);
    command.insert(command.end(), {"--step=" + step.id, "--correctness-only", "--exact-allocations"});
    for (const std::string& word : g.drawing_arguments()) command.push_back(word);
    say_ending(g, lab, step, run_step(g, lab, step, command), tool);
  }
}

// ./workbook profile: the step's kernels under Nsight Compute, run as grading runs them (the judge,
// the planner, the same confinement), then the table of its lab's counters, the reference solution's
// beside them (run the same way, where solutions/ is here) or the values recorded on a GPU. Nothing
// of it writes a row. Returns the exit code.
int profile_step(Grading& g, const std::string& lab, const StepInfo& step, const std::string& ncu,
                 const std::vector<std::string>& reference_program) {
  const std::string metrics = g.described(lab).metrics;
  const auto under_ncu = [&](const std::vector<std::string>& program) {
    std::vector<std::string> command = {
        ncu,    "--target-processes", "all",  "--profile-from-start", "off", "--csv", "--page", "raw", "--print-units",
        "base", "--metrics",          metrics};
    command.insert(command.end(), program.begin(), program.end());
    command.push_back("--profile=" + step.id);
    for (const std::string& word : g.drawing_arguments()) command.push_back(word);
    return command;
  };
  const std::string folder = g.results;
  // What the judge said of a step it could not run (a TODO, a crash): its "[workbook] profile:" lines.
  const auto judge_said = [&](const std::string& output) {
    std::string said;
    for (const std::string& line : lines_of(output))
      if (line.starts_with("[workbook] profile: ") && !line.starts_with("[workbook] profile: " + step.id + " at "))
        said += line + '\n';
    return said;
  };
  // "starter" is the build's name for the file in labs/, which is the student's own work by now.
  const std::string whose_file = g.implementation == "starter" ? "your labs/" + lab + " file" : g.implementation;
  say("profiling " + lab + " " + step.name() + " (" + whose_file +
      ") under Nsight Compute: each of its kernels, "
      "one launch, at its bar's shape");
  std::string output;
  const int status = run_step(g, lab, step, under_ncu(g.step_program(lab)), &output, /*rows=*/false);
  const std::string whose = g.implementation == "solution" ? "solution" : "yours";
  const std::string output_file = folder + "/" + step.id + "-" + whose + ".ncu.txt";
  std::ofstream(output_file) << output;
  if (const std::string said = judge_said(output); status != 0 && !said.empty()) {
    std::cout << said;
    return kExitFailed;
  }
  if (ending_of(status) == Ending::kHung) {
    say("profile: " + step.id + " did not finish within " + g.timeout_s +
        " s under Nsight Compute, which replays each "
        "kernel several times: a hang, or a kernel slow enough that --timeout should be raised");
    return kExitFailed;
  }
  std::vector<std::string> report = {g.lister(lab), "--profile-report=" + step.id, "--ncu-output=" + output_file,
                                     "--heading=" + whose};
  if (!reference_program.empty()) {
    say("profiling the reference solution's " + step.id + " the same way, for the comparison");
    std::string theirs;
    run_step(g, lab, step, under_ncu(reference_program), &theirs, /*rows=*/false);
    const std::string theirs_file = folder + "/" + step.id + "-solution.ncu.txt";
    std::ofstream(theirs_file) << theirs;
    report.push_back("--reference-output=" + theirs_file);
  } else if (g.implementation != "solution") {
    // No solutions/ here: the solution's values as recorded on this GPU, or else on an H100.
    std::string recorded = g.checkout.root + "/classroom/profiles/" + gpu_file_name(gpu_name()) + ".tsv";
    if (!fs::exists(recorded)) recorded = g.checkout.root + "/classroom/profiles/nvidia-h100-80gb-hbm3.tsv";
    if (fs::exists(recorded)) report.push_back("--recorded=" + recorded);
  }
  const Outcome table = run({report});
  std::cout << '\n' << table.output;
  g.log << table.output;
  std::cout << "(ncu's whole output: " << g.checkout.shown(output_file) << ")\n";
  return table.status == 0 ? 0 : kExitFailed;
}

}  // namespace

int summarize(const std::vector<StepRow>& rows, const std::string& json, const std::string& junit,
              const std::string& points_path, bool quiet, const std::string& bars, const std::string& seed,
              const std::string& log) {
  Points points;
  if (!points_path.empty()) points = read_points(points_path);
  if (!quiet) {
    std::cout << '\n';
    print_table(std::cout, rows, Table::kCompact);
    if (!bars.empty()) std::cout << "bars: " << bars << '\n';
    if (!log.empty()) std::cout << "(every column, the bars included, for each step: " << log << ")\n";
  }
  bool written = true;
  const auto write = [&](const std::string& path, auto&& how) {
    std::ofstream out(path);
    if (out) how(out);
    if (out) out.close();
    if (!out) {
      std::cerr << "[workbook] error: cannot write " << path << '\n';
      written = false;
    }
  };
  if (!json.empty()) write(json, [&](std::ostream& out) { write_gradescope_json(out, rows, points, seed); });
  if (!junit.empty()) write(junit, [&](std::ostream& out) { write_junit(out, rows); });
  if (!written) return kExitFailed;
  for (const StepVerdict& v : verdicts(rows))
    if (v.applicable && !v.passed) return kExitFailed;
  return 0;
}

namespace {

// What a grading built, and when: the build's own record says where its time went.
struct Built {
  std::optional<Build> build;
  LabsBuilt labs;
  std::map<std::string, std::string> copied;  // labs not built: the submission's file is the instructor's
  std::chrono::steady_clock::time_point began, ended;
};

// The graders of what the request grades, built: a submission's files taken in and built in a
// folder of their own (its slot's, in a class), graded by the checkout's judges.
Built build_for(const Checkout& checkout, Request& r) {
  Built built;
  if (!r.submission.empty()) {
    const Submission taken = take_submission(checkout, r.submission, r.as_name, r.submission_results);
    if (r.labs.empty()) {
      r.labs = taken.labs;
      if (r.labs.empty())
        throw Fatal(kExitUsage, "submission " + taken.name +
                                    " holds no lab file: expected labs/NN_topic/<topic>.cu, e.g. " +
                                    checkout.topic_file(checkout.labs().front()));
    }
    r.results = taken.results;
    for (const auto& [lab, solution] : taken.copied)  // of the labs this grading grades
      if (std::find(r.labs.begin(), r.labs.end(), lab) != r.labs.end()) built.copied[lab] = solution;
  }
  if (r.labs.empty()) r.labs = checkout.labs();
  const bool submission = !r.submission.empty();
  std::string submissions_build = checkout.root + "/build/submissions-" + checkout.preset;
  if (r.class_slot > 0) submissions_build += "-slot" + std::to_string(r.class_slot);
  built.began = std::chrono::steady_clock::now();
  const Build& build = built.build.emplace(checkout, submission ? submissions_build : checkout.build_dir, r.results);
  // A submission is graded by the checkout's judges: built here, or by grade-class before its students.
  if (submission && !r.judges_built) Build(checkout, checkout.build_dir, r.results).judges(r.labs);
  for (const std::string& lab : submission ? r.labs : std::vector<std::string>{})
    if (access(Checkout::judge(checkout.build_dir, lab).c_str(), X_OK) != 0)
      throw Fatal(kExitFailed, "the judge of " + lab + " is not built in " + checkout.shown(checkout.build_dir) +
                                   " (grade-class builds every lab's judge there before its students)");
  if (submission) build.configure({"-DWORKBOOK_SUBMISSION=" + r.results + "/taken"});
  std::vector<std::string> to_build;
  for (const std::string& lab : r.labs)
    if (!built.copied.contains(lab)) to_build.push_back(lab);
  built.labs = build.graders(to_build, submission ? "submission" : r.implementation, r.results + "/taken", r.judge);
  built.ended = std::chrono::steady_clock::now();
  return built;
}

// The grading of what was built, its log opened.
void start_grading(Grading& g, const Request& r, const Built& built) {
  const bool submission = !r.submission.empty();
  g.build_dir = built.build->folder();
  g.judge_dir = g.checkout.build_dir;
  g.results = r.results;
  g.implementation = submission ? "submission" : r.implementation;
  g.seed = r.seed.empty() ? drawn_seed() : r.seed;
  g.data_key = r.data_key;
  g.timeout_s = r.timeout_s;
  g.sanitizer = r.sanitizer;
  g.judge = r.judge;
  g.class_slot = r.class_slot;
  g.private_folders = {g.checkout.root, fs::absolute(g.results).string()};
  if (submission) g.private_folders.push_back(fs::absolute(r.submission).parent_path().string());
  g.someone_elses_file = submission;
  g.labs = built.labs.built;
  g.broken = built.labs.broken;
  g.missing = built.labs.missing;
  g.refusals = built.labs.refused;
  g.copied = built.copied;
  g.miscompiled = built.labs.miscompiled;
  g.only_steps = r.steps;
  g.json = r.json;
  g.junit = r.junit;
  g.points = r.points;
  fs::create_directories(g.results);
  g.rows_path = g.results + "/grade-rows.tsv";
  g.log_path = g.results + "/grade.log";
  g.log.open(g.log_path, std::ios::trunc);
  if (!g.log) throw Fatal(kExitUsage, "cannot write " + g.log_path);
  // Where compiling a student's file went, pass by pass, as nvcc timed it, for each of its compiles
  // (named by its target: its GPU half and its host half, side by side): most of a student's wait for
  // a step after editing lab 04's file. Said only for a file this build compiled.
  for (const auto& [lab, tables] : built.labs.nvcc_passes)
    for (const std::string& table : tables)
      if (const std::string passes = nvcc_passes(table); !passes.empty()) {
        const std::string compile = fs::path(table).filename().string();
        g.log << "[workbook] nvcc's passes on " << g.checkout.topic_file(lab) << ", compiled for this grading ("
              << compile.substr(0, compile.find(".nvcc_passes")) << "): " << passes << '\n';
      }
  std::ofstream(g.rows_path, std::ios::trunc).close();
}

// The labs that are not graded (they did not compile, are missing from the submission, were refused,
// or carry other GPU code than the build's) fail step by step, one row each, as a graded lab's steps
// do: their score is out of the same points whatever went wrong.
void fail_labs_not_graded(Grading& g, const LabsBuilt& built) {
  const auto fail_every_step = [&](const std::string& lab, const std::string& said, const std::string& reason) {
    for (const StepInfo& step : g.chosen_steps(lab)) {
      say(lab + " " + step.name() + " ... FAIL (" + said + ")");
      g.fail(step, reason);
    }
  };
  // The compiler's first error is the reason (a student reads it in results.json, never on the
  // grading machine); every error is in the build's log, for whoever grades.
  const std::string build_log = g.results_shown() + "/build.log";
  for (const std::string& lab : g.broken) {
    const auto error = built.first_error.find(lab);
    const std::string first = error == built.first_error.end() || error->second.empty() ? "" : ": " + error->second;
    fail_every_step(lab, "does not compile", lab + " does not compile" + first + " (every error: " + build_log + ")");
  }
  for (const std::string& lab : g.missing)
    fail_every_step(lab, "not in the submission",
                    lab + " is not in the submission: it holds no " + g.checkout.topic_file(lab) +
                        " (a plain file: an empty archive, a folder or a link in its place is not one)");
  for (const auto& [lab, findings] : g.refusals) {  // refused before compiling
    g.log << findings;
    fail_every_step(lab, "refused by the include check", refusal_reason(findings, g.results_shown()));
  }
  // The instructor's own solution handed in: the instructor reads which file it copies on the console,
  // in grade.log and in the class's summary; the student's results say only that it was not graded.
  for (const auto& [lab, solution] : g.copied) {
    const std::string instructor_reason = lab + " is a copy of the instructor's " + solution + ": not graded";
    g.log << instructor_reason << '\n';
    std::ofstream(g.results + "/copied.txt", std::ios::app) << instructor_reason << '\n';
    fail_every_step(lab, "a copy of the instructor's " + solution, kNotTheStudentsWork);
  }
  // Built, but for other GPU code than the build's: its kernels would run as code nobody graded.
  for (const auto& [lab, finding] : g.miscompiled) {
    g.log << finding;
    fail_every_step(lab, "not compiled to this build's GPU code", lines_of(finding).front());
  }
}

// The lines of a student's file that launch a kernel past workbook::launch (`<<<...>>>`, or the
// runtime's or driver's launch functions named), comments and strings left out: on a GPU, the
// planner refuses each such launch and every step that makes one fails. Said without a GPU too.
std::vector<std::string> launches_past_workbook_launch(const std::string& file, const std::string& shown) {
  std::vector<std::string> found;
  std::ifstream in(file);
  static const std::regex launch(
      R"(<<<|\b(cudaLaunchKernel(Ex|ExC)?|cudaLaunchCooperativeKernel|cuLaunchKernel(Ex)?|cudaGraphLaunch)\b)");
  bool in_comment = false;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::string code;  // the line without its comments and string literals
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (in_comment) {
        if (line.compare(i, 2, "*/") == 0) in_comment = false, ++i;
      } else if (line.compare(i, 2, "/*") == 0) {
        in_comment = true, ++i;
      } else if (line.compare(i, 2, "//") == 0) {
        break;
      } else if (line[i] == '"') {
        for (++i; i < line.size() && line[i] != '"'; ++i)
          if (line[i] == '\\') ++i;
      } else {
        code += line[i];
      }
    }
    if (std::regex_search(code, launch))
      found.push_back(
          shown + "(" + std::to_string(number) +
          "): launches past workbook::launch; on a GPU every step that makes this "
          "launch fails: launch with workbook::launch(kernel, grid, block, shared_bytes, stream, arguments...)");
  }
  return found;
}

// What a machine without a GPU can still say of a lab's file: its steps' plans, made by its planner
// and checked as the judge checks them before it runs anything, against a described H100 (the
// judge's --plan-check, grader/harness/plan_check.h). Run as a step is, confined and limited.
void say_what_the_plans_show(Grading& g, const std::string& lab) {
  const std::vector<std::string> command = {Checkout::judge(g.judge_dir, lab), "--plan-check",
                                            "--planner=" + built(g.build_dir, lab, g.implementation).planner,
                                            "--seed=" + g.seed};
  const StepProcess p = step_process(g, lab + "-plans", command, 1, /*rows=*/false);
  const Outcome outcome = run(p.command);
  const std::string output = read_text(p.work + "/output.log");
  g.log << output.substr(0, kMaxLoggedOutput);
  fs::remove_all(p.work);
  // The findings of the steps asked for (all of the lab's, where none of its steps was named).
  std::set<std::string> chosen;
  for (const StepInfo& step : g.chosen_steps(lab)) chosen.insert(step.id);
  bool found = false;
  for (const std::string& line : lines_of(output))
    if (const std::optional<PlanFinding> finding = plan_finding_from_line(line)) {
      std::string steps;
      for (const std::string& id : finding->steps)
        if (chosen.contains(id)) steps += (steps.empty() ? "" : ", ") + id;
      if (steps.empty()) continue;
      say("warning: " + lab + " without a GPU: " + steps + ": " + finding->what);
      found = true;
    }
  if (outcome.status != 0) say("note: " + lab + "'s plans could not be checked without a GPU (grade.log says why)");
  else if (!found)
    say(lab +
        ": every step's launches, planned for its correctness cases, pass the checks a GPU's grading makes "
        "before it runs them (an H100's limits; a kernel's own resources are checked on a GPU)");
}

// No GPU here: what is known without one is said (launches past workbook::launch, what the plans
// show) and written (the labs that failed already, or results files that say why), and the exit
// status says which.
int stop_without_gpu(Grading& g, const Request& r) {
  for (const std::string& lab : g.implementation == "solution" ? std::vector<std::string>{} : g.labs) {
    const std::string file = g.implementation == "submission" ? g.results + "/taken/" + g.checkout.topic_file(lab)
                                                              : g.checkout.root + "/" + g.checkout.topic_file(lab);
    for (const std::string& finding : launches_past_workbook_launch(file, g.checkout.topic_file(lab)))
      say("warning: " + finding);
  }
  if (g.judge && !g.labs.empty()) {
    g.confinement = settle_confinement(g.step_program(g.labs.front()).front(), g.class_slot);
    for (const std::string& lab : g.labs) say_what_the_plans_show(g, lab);
  }
  // A lab that did not compile (or was refused) has failed whether or not a GPU is here: its steps'
  // rows are the scorecard, and the exit status is a failure's.
  const bool failed_already = !g.rows.empty();
  // A results file that says why is better than none (Gradescope would report a missing file).
  if (!g.json.empty() || !g.junit.empty())
    for (const std::string& lab : g.labs)
      for (const StepInfo& step : g.chosen_steps(lab)) g.fail(step, kNoGpuReason);
  append_rows(g.rows_path, g.rows);
  if (failed_already || !g.json.empty() || !g.junit.empty())
    summarize(g.rows, g.json, g.junit, g.points, /*quiet=*/!failed_already, "", g.seed,
              g.results_shown() + "/grade.log");
  const std::string built_labs = failed_already ? "the labs that compiled are built" : "everything is built";
  say(built_labs + ", but " + (r.profile.empty() ? "grading" : "profile") +
      " needs a CUDA GPU and none is visible here.");
  say("run the same command on a machine with an NVIDIA GPU (compute capability 8.0 or newer).");
  return failed_already ? kExitFailed : kExitNoGpu;
}

// ./workbook profile's one step, with the reference solution's beside it where solutions/ is here
// (built in the checkout's own build folder and profiled as the student's file is).
int profile_request(Grading& g, const Request& r) {
  const std::string& lab = g.labs.front();
  g.confinement = settle_confinement(g.step_program(lab).front(), g.class_slot);
  if (!g.confinement.step_ids(0)) say("note: the step is not confined (" + g.confinement.why_not + ")");
  std::vector<std::string> reference;
  if (g.implementation != "solution" && fs::is_directory(g.checkout.root + "/solutions")) {
    const Build reference_build(g.checkout, g.checkout.build_dir, r.results);
    if (!reference_build.graders({lab}, "solution", "", true).built.empty())
      reference = judged_program(g.checkout.build_dir, g.checkout.build_dir, lab, "solution");
  }
  return profile_step(g, lab, g.chosen_steps(lab).front(), r.ncu, reference);
}

// Says how the labs built are graded: whose files, the seed, the bars, the confinement, the judge,
// and each lab's sizes drawn from the seed. Returns the graders' --bars arguments.
std::vector<std::string> say_how_graded(Grading& g, const Request& r) {
  std::string labs_text;
  for (const std::string& lab : g.labs) labs_text += (labs_text.empty() ? "" : " ") + lab;
  // Whose files are graded, in the student's words: "starter" is only the build's name for the files
  // in labs/, which are the student's own work by now.
  const std::string whose = g.implementation == "starter"      ? "your files in labs/"
                            : g.implementation == "submission" ? "the submission " + g.checkout.shown(r.submission)
                                                               : "the reference solutions";
  say("grading " + labs_text + " (" + whose + "), seed " + g.seed + "; replay with --seed " + g.seed +
      "; full log in " + g.results_shown() + "/grade.log");
  // The bars: this GPU's calibrated profile when there is one, else the built-in ones (the H100's).
  const GpuBars chosen = bars_of_this_gpu(g.checkout);
  g.bars = chosen.description;
  say("bars: " + (chosen.note.empty() ? g.bars : chosen.note));
  g.confinement = settle_confinement(g.step_program(g.labs.front()).front(), g.class_slot);
  if (g.confinement.step_ids(0)) {
    say("each step runs as " + g.confinement.described() + ", in a folder of its own");
  } else {
    say("note: steps are not confined (" + g.confinement.why_not + ")");
  }
  if (!g.sanitizer.empty()) say("under compute-sanitizer only the correctness halves run, nothing is timed");
  if (g.judge)
    say("each step is graded by its lab's judge, which runs none of the graded file's host code: that runs in a "
        "planner of its own, whose launches the judge checks and replays (docs/integrity.md, part 1)");
  else say("--linked: each solution is linked into its lab's grader, host code and all (for comparing with the judge)");
  // Each lab's correctness cases include sizes drawn from the seed: shown, so that a failure at one
  // can be replayed (--seed) and read.
  for (const std::string& lab : g.labs) {
    const std::string line = lab + ": " + g.described(lab).sizes;
    g.log << "sizes drawn from the seed: " << line << '\n';
    say("sizes drawn from the seed: " + line);
  }
  return chosen.arguments;
}

// Every step of the labs built, lab by lab. Returns the seconds spent in the steps' processes.
double grade_labs(Grading& g, const std::vector<std::string>& bars) {
  double steps_seconds = 0;
  for (const std::string& lab : g.labs) {
    const auto lab_began = std::chrono::steady_clock::now();
    const std::vector<StepInfo> steps = g.chosen_steps(lab);
    if (g.judge && g.sanitizer.empty()) {  // a lab's steps in one judge process, a new one only where one must be
      for (std::size_t done = 0; done < steps.size();)
        done += grade_in_one_judge(
            g, lab, std::vector<StepInfo>(steps.begin() + static_cast<std::ptrdiff_t>(done), steps.end()), bars);
    } else {  // a linked grader, or compute-sanitizer: a process for each step
      for (const StepInfo& step : steps)
        if (g.sanitizer.empty()) grade_step(g, lab, step, bars);
        else sanitize_step(g, lab, step);
    }
    steps_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - lab_began).count();
  }
  return steps_seconds;
}

// The grading's end: where its time went (for the instructor who plans a class, docs/instructors.md),
// its rows, and the scorecard and results files.
int finish_grading(Grading& g, const Built& built, double steps_seconds) {
  const auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
  const double total = seconds(built.began, std::chrono::steady_clock::now()),
               building = seconds(built.began, built.ended);
  std::ostringstream went;
  went << std::fixed << std::setprecision(1) << "this grading: " << total << " s, of which building " << building
       << " s, the steps' processes " << steps_seconds << " s, the rest " << total - building - steps_seconds << " s";
  g.log << "[workbook] " << went.str() << '\n';
  // And where the building went, by ninja's own record: the student's file's compile, first, is
  // most of it when that file changed.
  if (const std::string outputs = built.build->where_the_time_went(); !outputs.empty())
    g.log << "[workbook] this grading's build, its longest outputs: " << outputs << '\n';
  say(went.str());  // on the console too: grade-class keeps each student's (results/class/NAME/grade.txt)
  append_rows(g.rows_path, g.rows);
  return summarize(g.rows, g.json, g.junit, g.points, /*quiet=*/false, g.bars, g.seed,
                   g.results_shown() + "/grade.log");
}

// Whether a CUDA GPU can be used is asked of a lab's judge (`--gpu-check`), whose CUDA start takes
// a quarter of a second: where one is built already, before the build, so that it runs beside it.
// Which lab's judge does not matter; a judge that the build links again goes on running as it was.
std::optional<Background> gpu_check_beside_the_build(const Checkout& checkout, const Request& r) {
  if (r.build_only) return std::nullopt;
  for (const std::string& lab : r.labs.empty() ? checkout.labs() : r.labs) {
    const std::string judge = Checkout::judge(checkout.build_dir, lab);
    if (access(judge.c_str(), X_OK) == 0)
      return std::make_optional<Background>(Command({judge, "--gpu-check"}, {}, "", "/dev/null"));
  }
  return std::nullopt;
}

int grade_request(const Checkout& checkout, Request& r) {
  std::optional<Background> gpu_check = gpu_check_beside_the_build(checkout, r);
  const Built built = build_for(checkout, r);
  if (r.build_only) {  // the grading that follows builds again, and finds it done
    say("built ahead in " + checkout.shown(built.build->folder()) + ", " + std::to_string(built.labs.built.size()) +
        " of " + std::to_string(r.labs.size()) + " labs; graded later");
    return 0;
  }
  Grading g(checkout);
  start_grading(g, r, built);
  // Said for each lab built, so that a compile check without a GPU says what it did. No audit of the
  // file's host code follows: it runs only in its planner, on nothing the judge measures, and
  // ordinary C++ (streams, printf, malloc, static locals) is the student's to use.
  if (g.judge)
    for (const std::string& lab : g.labs) {
      // The file that was built: the reference solution's, the submission's, or the student's own.
      const std::string file = g.implementation == "solution"
                                   ? "solutions/" + lab + "/" + checkout.topic_of(lab) + ".cu"
                               : g.implementation == "submission" ? "the submission's " + checkout.topic_file(lab)
                                                                  : checkout.topic_file(lab);
      say(lab + ": " + file + " built: its host code will run only in its planner, its kernels in the judge");
    }
  fail_labs_not_graded(g, built.labs);
  // What is left was built for the build's GPU code, and is graded.
  if (!r.profile.empty() && g.labs.empty()) return kExitFailed;  // said above: it did not build
  if (g.labs.empty()) return finish_grading(g, built, 0);        // the verdicts are known without a GPU
  // Asked again after the build where the judge asked before could not answer (127: it did not run).
  int gpu = gpu_check ? gpu_check->wait() : 127;
  if (gpu == 127) gpu = run({{g.lister(g.labs.front()), "--gpu-check"}}).status;
  if (gpu != 0) return stop_without_gpu(g, r);
  if (!r.profile.empty()) return profile_request(g, r);
  const std::vector<std::string> bars = say_how_graded(g, r);
  return finish_grading(g, built, grade_labs(g, bars));
}

// Nsight Compute's command line: WORKBOOK_NCU, else ncu on PATH, else beside nvcc (the toolkit's).
std::string find_ncu() {
  if (const char* chosen = std::getenv("WORKBOOK_NCU"); chosen != nullptr && *chosen != '\0') {
    if (access(chosen, X_OK) != 0)
      throw Fatal(kExitMissingTools, std::string("WORKBOOK_NCU names ") + chosen +
                                         ", which is not a program here: "
                                         "point it at Nsight Compute's ncu, or unset it to use the toolkit's");
    return chosen;
  }
  if (const std::string found = toolkit_tool("ncu"); !found.empty()) return found;
  throw Fatal(kExitMissingTools,
              "profile runs your kernels under Nsight Compute's ncu, which comes with the CUDA toolkit "
              "and is not here (neither on PATH nor beside nvcc): install the toolkit's Nsight Compute "
              "(nsight-compute), or set WORKBOOK_NCU to its ncu. Grading does not need it");
}

}  // namespace

int profile(const Checkout& checkout, Words words) {
  Request r;
  r.results = checkout.results + "/profile";
  static const std::regex step_id("[0-9]{2}\\.[0-9]+");
  for (std::string word; words.next(word);) {
    if (word == "--solution") r.implementation = "solution";
    else if (word == "--submission") r.submission = checkout.from_caller(words.value("a folder or an archive"));
    else if (word == "--seed") r.seed = checked_seed(words.value("a value"));
    else if (word == "--timeout") r.timeout_s = words.value("seconds");
    else if (word.starts_with("-")) throw unknown_option(checkout, "profile", word);
    else if (!r.profile.empty())
      throw Fatal(kExitUsage, "profile takes one step, like 03.2, not '" + r.profile + "' and '" + word + "'");
    else if (!std::regex_match(word, step_id))
      throw Fatal(kExitUsage, "profile takes a step's id, like 03.2 (./workbook list shows them), not '" + word + "'");
    else r.profile = word;
  }
  if (r.profile.empty()) throw Fatal(kExitUsage, "profile takes a step's id, like 03.2: ./workbook profile 03.2");
  r.labs = {lab_of_step(checkout, r.profile)};
  r.steps = {r.profile};
  check_request(checkout, r, "profiles a student's file");
  r.ncu = find_ncu();  // before building: a missing tool is said at once
  return grade_request(checkout, r);
}

int grade(const Checkout& checkout, Words words) {
  Request request = read_request(checkout, std::move(words));
  // Said before minutes of building, not after them: without a GPU nothing will be graded.
  if (!on_path("nvidia-smi") || gpu_name().empty())
    say("no CUDA GPU is visible here: the labs will be built and audited (a compile check), and nothing graded");
  try {
    return grade_request(checkout, request);
  } catch (const Fatal& error) {
    // Gradescope reads results.json whatever happened: one that says why is better than none.
    if (!request.json.empty() && error.code != kExitNoGpu)
      write_not_graded_json(checkout, request.labs, request.points, request.seed, request.json, error.what());
    throw;
  }
}

}  // namespace workbook::runner
