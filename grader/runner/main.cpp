// workbook_runner: the grading flow, from built graders to every report. ./workbook installs,
// configures and builds, then hands grading to this program, which links no student code (the trust
// boundary, docs/integrity.md): it lists each lab's steps, audits each student object file, runs
// each step in a process of its own (confined, limited, timed out), takes back that step's rows
// only when they are its own, and writes the scorecard, results.json, JUnit and the class files.
//
//   workbook_runner take --root=DIR --submission=PATH --answer=FILE [--json=FILE]
//                         unpack a submission into results/submissions/NAME and take its lab files
//   workbook_runner grade --root=DIR --build-dir=DIR --results=DIR --implementation=KIND
//                         --lab=LAB... [--broken=LAB...] [--missing=LAB...] [--refused=LAB:FILE...]
//                         [--step=ID...] [--seed=N] --timeout=S [--sanitizer=PATH] [--no-device-trace]
//                         [--gpu=NAME --profile=FILE] [--json=FILE] [--junit=FILE] [--points=FILE]
//   workbook_runner class --root=DIR --dir=DIR --results=DIR [--lab=LAB...] [--points=FILE]
//                         [--pass=ARG...]
//   workbook_runner calibrate --root=DIR --build-dir=DIR --lab=LAB... [--seed=N] --gpu=NAME --profile=FILE
//   workbook_runner summarize --rows=FILE [--json=FILE] [--junit=FILE] [--points=FILE]
// Exit codes as ./workbook documents them: 0 all passed, 1 something failed, 2 bad usage, 77 no GPU.
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "collect.h"
#include "process.h"
#include "report.h"

namespace {

using namespace workbook;
using namespace workbook::runner;
namespace fs = std::filesystem;

constexpr int kExitFailed = 1, kExitUsage = 2, kExitNoGpu = 77;
constexpr std::size_t kMaxLoggedOutput = 8u << 20;  // of one step's output, into grade.log

void say(const std::string& text) { std::cout << "[workbook] " << text << std::endl; }

// An error that ends the run with `code`, said as the front door says its errors.
struct Fatal : std::runtime_error {
  int code;
  Fatal(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// --flag=value arguments, a flag given more than once keeping every value in order.
using Flags = std::map<std::string, std::vector<std::string>>;

Flags parse_flags(int argc, char** argv, int first) {
  Flags flags;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) throw Fatal(kExitUsage, "workbook_runner takes --flag[=value] arguments, not '" + a + "'");
    const std::size_t equals = a.find('=');
    flags[a.substr(2, equals == std::string::npos ? std::string::npos : equals - 2)].push_back(
        equals == std::string::npos ? "" : a.substr(equals + 1));
  }
  return flags;
}

std::string one(const Flags& flags, const std::string& name, const std::string& fallback = "") {
  const auto found = flags.find(name);
  return found == flags.end() || found->second.empty() ? fallback : found->second.back();
}
std::vector<std::string> all(const Flags& flags, const std::string& name) {
  const auto found = flags.find(name);
  return found == flags.end() ? std::vector<std::string>{} : found->second;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// "results/grade.log" for a path under the checkout, as messages show it.
std::string shown(const std::string& path, const std::string& root) {
  return path.rfind(root + "/", 0) == 0 ? path.substr(root.size() + 1) : path;
}

// The run's seed: the one given (a whole number from 0 to 2^64 - 1), or one drawn from the machine.
std::string seed_of(const Flags& flags) {
  if (!flags.contains("seed")) {
    std::ifstream entropy("/dev/urandom", std::ios::binary);
    std::uint32_t drawn = 0;
    entropy.read(reinterpret_cast<char*>(&drawn), sizeof drawn);
    return std::to_string(drawn);
  }
  const std::string text = one(flags, "seed");
  std::size_t used = 0;
  try {
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw Fatal(kExitUsage, "--seed takes a whole number from 0 to 18446744073709551615, not '" + text + "'");
  return std::to_string(std::stoull(text));
}

// ---------------------------------------------------------------------------------------------
// A lab's steps, as its grader lists them from the steps table without touching the GPU.

struct StepInfo {
  std::string id, name;  // "04.1", "04.1 coalesced thread arrangement"
};

std::vector<StepInfo> list_steps(const std::string& grader) {
  const Outcome listed = run({{grader, "--list-steps"}});
  if (listed.status != 0) throw Fatal(kExitFailed, grader + " could not list its steps: " + listed.output);
  std::vector<StepInfo> steps;
  for (const std::string& line : lines_of(listed.output)) {
    std::istringstream fields(line);
    std::string id, title;
    std::getline(fields, id, '\t');
    std::getline(fields, title, '\t');
    steps.push_back({id, id + " " + title});
  }
  return steps;
}

// The lab's topic (labs/NN_topic/<topic>.cu) from its add_lab() call.
std::string topic_of(const std::string& root, const std::string& lab) {
  std::istringstream words(read_text(root + "/labs/" + lab + "/CMakeLists.txt"));
  for (std::string word; words >> word;)
    if (word == "TOPIC" && words >> word) return word;
  throw Fatal(kExitFailed, "labs/" + lab + "/CMakeLists.txt names no TOPIC");
}

// ---------------------------------------------------------------------------------------------
// Confinement: as root, each step runs as an unprivileged user, in a working folder of its own.

struct Confinement {
  std::optional<std::pair<uid_t, gid_t>> ids;  // the user steps run as, when they can be confined
  std::string why_not;
};

Confinement settle_confinement(const std::string& build_dir) {
  Confinement c;
  const char* user = std::getenv("WORKBOOK_GRADING_USER");
  const std::string name = user != nullptr && *user != '\0' ? user : "nobody";
  if (geteuid() != 0) {
    const passwd* me = getpwuid(geteuid());
    c.why_not = "not running as root: steps run as " + std::string(me != nullptr ? me->pw_name : "this user") +
                ", who runs the grading";
    return c;
  }
  if (!on_path("setpriv")) return {{}, "setpriv (util-linux) is not installed"};
  const passwd* grading = getpwnam(name.c_str());
  if (grading == nullptr) return {{}, "there is no user '" + name + "'"};
  const Outcome reach = run({{"setpriv", "--reuid=" + std::to_string(grading->pw_uid), "--regid=" + std::to_string(grading->pw_gid),
                              "--clear-groups", "--", "test", "-x", build_dir + "/grader/workbook_runner"}});
  if (reach.status != 0)
    return {{}, "the user " + name + " cannot reach " + build_dir + " (a folder on its path is private): move the checkout, or open its path to others"};
  c.ids = {grading->pw_uid, grading->pw_gid};
  return c;
}

// ---------------------------------------------------------------------------------------------
// One grading: `grade`.

struct Grading {
  std::string root, build_dir, results, implementation, seed, timeout_s, sanitizer;
  bool trace = true;
  std::vector<std::string> labs, broken, missing, only_steps;
  std::map<std::string, std::string> refusals;  // lab -> the audit's findings
  std::string rows_path, log_path, json, junit, points;
  Confinement confinement;
  std::ofstream log;
  std::vector<StepRow> rows;

  std::string grader(const std::string& lab, const std::string& kind) const {
    const std::string path = build_dir + "/labs/" + lab + "/grade_" + lab + "_" + kind;
    if (access(path.c_str(), X_OK) != 0) throw Fatal(kExitFailed, "the grader " + path + " was not built");
    return path;
  }
  // A submission's steps are listed by the checkout's starter: nothing of the student's runs.
  std::string lister(const std::string& lab) const {
    return grader(lab, implementation == "submission" ? "starter" : implementation);
  }
  std::vector<StepInfo> chosen_steps(const std::string& lab) const {
    std::vector<StepInfo> steps;
    for (const StepInfo& s : list_steps(lister(lab)))
      if (only_steps.empty() || std::find(only_steps.begin(), only_steps.end(), s.id) != only_steps.end())
        steps.push_back(s);
    return steps;
  }
  void fail(const std::string& lab, const std::string& step, const std::string& reason) {
    rows.push_back(failed_row(lab, step, reason));
  }
  std::string results_shown() const { return shown(results, root); }
};

// The reason every step of a refused lab fails with: its first finding, and how many more.
std::string refusal_reason(const std::string& findings, const std::string& results) {
  const std::vector<std::string> lines = lines_of(findings);
  if (lines.size() <= 1) return lines.empty() ? "" : lines.front();
  return lines.front() + " (and " + std::to_string(lines.size() - 1) + " more findings: " + results + "/grade.log)";
}

// Runs one step's process confined and limited; its output goes to grade.log and its rows, once
// believed, to the grading's. Returns its exit status.
int run_step(Grading& g, const std::string& lab, const StepInfo& step, std::vector<std::string> command) {
  const std::string work = g.results + "/steps/" + lab + "-" + step.id;
  fs::remove_all(work);
  fs::create_directories(work + "/scratch");
  const std::string rows_file = work + "/rows.tsv";
  std::ofstream(rows_file).close();
  command.push_back("--rows=" + rows_file);
  std::vector<std::string> argv = {g.root + "/grader/harness/limited.sh", "step"};
  argv.insert(argv.end(), command.begin(), command.end());
  if (g.confinement.ids) {
    // The folder is root's: the step may write its rows file and its scratch folder, and nothing
    // else of the checkout, results/ or solutions/; it cannot put a link where its rows are read.
    const auto [uid, gid] = *g.confinement.ids;
    if (chown(rows_file.c_str(), uid, gid) != 0 || chown((work + "/scratch").c_str(), uid, gid) != 0 ||
        chmod((work + "/scratch").c_str(), 0700) != 0)
      throw Fatal(kExitFailed, "cannot hand " + work + " to the unprivileged user");
    argv.insert(argv.begin(), {"setpriv", "--reuid=" + std::to_string(uid), "--regid=" + std::to_string(gid),
                               "--clear-groups", "--no-new-privs", "--"});
  }
  const auto began = std::chrono::steady_clock::now();
  const Outcome outcome = run({argv,
                               {{"HOME", work + "/scratch"}, {"TMPDIR", work + "/scratch"}, {"WORKBOOK_STEP_SECONDS", g.timeout_s}},
                               work + "/scratch",
                               work + "/output.log"});
  const std::string output = read_text(work + "/output.log");
  g.log << output.substr(0, kMaxLoggedOutput);
  g.log << "[workbook] " << lab << ' ' << step.name << ": "
        << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began).count() << " s\n";
  g.log.flush();
  if (outcome.status == 0 || outcome.status == 1 || outcome.status == 77)
    for (StepRow& row : collect_rows(rows_file, lab, step.name)) g.rows.push_back(row);
  fs::remove_all(work);
  return outcome.status;
}

void grade_step(Grading& g, const std::string& lab, const StepInfo& step, const std::vector<std::string>& bars) {
  std::cout << "[workbook] " << lab << ' ' << step.name << " ... " << std::flush;
  std::vector<std::string> command = {g.grader(lab, g.implementation), "--step=" + step.id, "--seed=" + g.seed};
  command.insert(command.end(), bars.begin(), bars.end());
  if (!g.trace) command.push_back("--no-device-trace");
  const int status = run_step(g, lab, step, command);
  const std::string log = g.results_shown() + "/grade.log";
  switch (status) {
    case 0: std::cout << "pass\n"; break;
    case 1: std::cout << "FAIL\n"; break;
    case 77: std::cout << "n/a (needs a newer GPU: see the verdicts)\n"; break;
    case 2:
      std::cout << "FAIL (not graded)\n";
      g.fail(lab, step.name, "the grader ran no test case for this step; see " + log);
      break;
    case 124: case 137:
      std::cout << "FAIL (hung)\n";
      g.fail(lab, step.name, "did not finish within " + g.timeout_s + " s: a hang or an endless loop (--timeout raises the limit)");
      break;
    default: {
      const std::string how = status > 128 ? "signal " + std::to_string(status - 128) : "exit code " + std::to_string(status);
      std::cout << "FAIL (crashed)\n";
      g.fail(lab, step.name, "the grader process died (" + how + ") while running this step; see " + log);
    }
  }
}

// One step's correctness half under each compute-sanitizer tool, on exact-size arrays (so that
// memcheck sees an access one past an array) and small shapes (the tools slow kernels a hundredfold).
void sanitize_step(Grading& g, const std::string& lab, const StepInfo& step) {
  const std::string log = g.results_shown() + "/grade.log";
  for (const std::string tool : {"memcheck", "racecheck", "synccheck"}) {
    std::cout << "[workbook] " << lab << ' ' << step.name << ", " << tool << " ... " << std::flush;
    g.log << "=== compute-sanitizer --tool " << tool << ": " << lab << ' ' << step.name << '\n';
    const int status = run_step(g, lab, step,
                                {g.sanitizer, "--tool", tool, "--error-exitcode", "86", "--print-limit", "20",
                                 g.grader(lab, g.implementation), "--step=" + step.id, "--seed=" + g.seed,
                                 "--correctness-only", "--exact-allocations", "--no-device-trace"});
    switch (status) {
      case 0: std::cout << "clean\n"; break;
      case 1: std::cout << "FAIL\n"; break;
      case 77: std::cout << "n/a (needs a newer GPU)\n"; break;
      case 86:
        std::cout << "FAIL (" << tool << " found errors)\n";
        g.fail(lab, step.name, "compute-sanitizer's " + tool + " reported errors in this step's kernels; see " + log);
        break;
      case 124: case 137:
        std::cout << "FAIL (hung)\n";
        g.fail(lab, step.name, "did not finish within " + g.timeout_s + " s under " + tool + " (--timeout raises the limit)");
        break;
      default:
        std::cout << "FAIL (crashed)\n";
        g.fail(lab, step.name, "the grader died (exit code " + std::to_string(status) + ") under " + tool + "; see " + log);
    }
  }
}

// The scorecard and the reports asked for. Returns the exit code: 0 when every applicable step
// passed, 1 when one failed or a report could not be written.
int summarize(const std::vector<StepRow>& rows, const std::string& json, const std::string& junit,
              const std::string& points_path, bool quiet = false) {
  Points points;
  if (!points_path.empty()) points = read_points(points_path);
  if (!quiet) {
    std::cout << '\n';
    print_table(std::cout, rows, Table::kCompact);
    std::cout << "(every column, the bars included, for each step: results/grade.log)\n";
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
  if (!json.empty()) write(json, [&](std::ostream& out) { write_gradescope_json(out, rows, points); });
  if (!junit.empty()) write(junit, [&](std::ostream& out) { write_junit(out, rows); });
  if (!written) return kExitFailed;
  for (const StepVerdict& v : verdicts(rows))
    if (v.applicable && !v.passed) return kExitFailed;
  return 0;
}

int grade(const Flags& flags) {
  Grading g;
  g.root = one(flags, "root");
  g.build_dir = one(flags, "build-dir");
  g.results = one(flags, "results");
  g.implementation = one(flags, "implementation", "starter");
  g.seed = seed_of(flags);
  g.timeout_s = one(flags, "timeout", "300");
  g.sanitizer = one(flags, "sanitizer");
  g.trace = !flags.contains("no-device-trace");
  g.labs = all(flags, "lab");
  g.broken = all(flags, "broken");
  g.missing = all(flags, "missing");
  g.only_steps = all(flags, "step");
  g.json = one(flags, "json");
  g.junit = one(flags, "junit");
  g.points = one(flags, "points");
  if (g.root.empty() || g.build_dir.empty() || g.results.empty())
    throw Fatal(kExitUsage, "grade needs --root, --build-dir and --results");
  for (const std::string& refused : all(flags, "refused")) {
    const std::size_t colon = refused.find(':');
    g.refusals[refused.substr(0, colon)] = read_text(refused.substr(colon + 1));
  }
  if (!g.points.empty()) read_points(g.points);  // a malformed points file is refused before anything runs

  // Every step id asked for must exist (its lab compiled; one that did not fails as a whole).
  for (const std::string& id : g.only_steps) {
    for (const std::string& lab : g.labs) {
      if (lab.substr(0, 2) != id.substr(0, 2)) continue;
      std::string known;
      bool found = false;
      for (const StepInfo& s : list_steps(g.lister(lab))) {
        known += s.id + " ";
        found = found || s.id == id;
      }
      if (!found) throw Fatal(kExitUsage, lab + " has no step " + id + "; its steps are: " + known);
    }
  }
  fs::create_directories(g.results);
  g.rows_path = g.results + "/grade-rows.tsv";
  g.log_path = g.results + "/grade.log";
  g.log.open(g.log_path, std::ios::trunc);
  if (!g.log) throw Fatal(kExitUsage, "cannot write " + g.log_path);

  // The host-code audit, after compiling: a lab whose object file is refused runs none of its steps.
  for (const std::string& lab : g.labs) {
    const std::string topic = topic_of(g.root, lab);
    const Outcome audit = run({{g.build_dir + "/grader/workbook_audit", "object",
                                "--object=" + g.build_dir + "/labs/" + lab + "/liblab" + lab + "_" + g.implementation + ".a",
                                "--topic=" + topic, "--allowance=" + g.root + "/grader/labs/" + lab + "/host_code.allowed",
                                "--binary=" + g.grader(lab, g.implementation)}});
    if (audit.status == 0) continue;
    if (audit.output.empty()) throw Fatal(kExitFailed, "the host-code audit of " + lab + " could not read its object file");
    g.refusals[lab] = audit.output;
    std::cerr << audit.output;
    g.log << audit.output;
  }
  const std::string build_log = g.results_shown() + "/build.log";
  for (const std::string& lab : g.broken)
    g.fail(lab, lab + " does not compile",
           "the compiler's errors are in " + build_log + " (./workbook grade " + lab.substr(0, 2) + " shows them)");
  for (const std::string& lab : g.missing)
    g.fail(lab, lab + " is not in the submission",
           "the submission holds no labs/" + lab + "/" + topic_of(g.root, lab) + ".cu (a plain file: links are not taken)");
  std::vector<std::string> graded_labs;
  for (const auto& [lab, findings] : g.refusals)
    if (std::find(g.labs.begin(), g.labs.end(), lab) == g.labs.end()) {  // refused before compiling
      g.log << findings;
      g.fail(lab, lab + " is refused by the host-code audit", refusal_reason(findings, g.results_shown()));
    }
  for (const std::string& lab : g.labs) {
    if (!g.refusals.contains(lab)) {
      graded_labs.push_back(lab);
      continue;
    }
    for (const StepInfo& step : g.chosen_steps(lab)) {
      say(lab + " " + step.name + " ... FAIL (refused by the host-code audit)");
      g.fail(lab, step.name, refusal_reason(g.refusals[lab], g.results_shown()));
    }
  }
  const auto finish = [&] {
    append_rows(g.rows_path, g.rows);
    return summarize(g.rows, g.json, g.junit, g.points);
  };
  std::ofstream(g.rows_path, std::ios::trunc).close();
  if (graded_labs.empty()) return finish();  // nothing left to run: the verdicts are known without a GPU

  if (run({{g.lister(graded_labs.front()), "--gpu-check"}}).status != 0) {
    // A results file that says why is better than none (Gradescope would report a missing file).
    if (!g.json.empty() || !g.junit.empty()) {
      for (const std::string& lab : graded_labs)
        for (const StepInfo& step : g.chosen_steps(lab)) g.fail(lab, step.name, "not graded: no CUDA GPU is visible on this machine");
      append_rows(g.rows_path, g.rows);
      summarize(g.rows, g.json, g.junit, g.points, /*quiet=*/true);
    }
    say("everything is built, but grading needs a CUDA GPU and none is visible here.");
    say("run the same command on a machine with an NVIDIA GPU (compute capability 8.0 or newer).");
    return kExitNoGpu;
  }

  std::string labs_text;
  for (const std::string& lab : graded_labs) labs_text += (labs_text.empty() ? "" : " ") + lab;
  say("grading " + labs_text + " (" + g.implementation + "), seed " + g.seed + "; replay with --seed " + g.seed +
      "; full log in " + g.results_shown() + "/grade.log");
  // The bars: this GPU's calibrated profile when there is one, else the built-in ones (the H100's).
  std::vector<std::string> bars;
  const std::string gpu = one(flags, "gpu"), profile = one(flags, "profile");
  if (!profile.empty() && fs::exists(profile)) {
    bars = {"--bars=" + profile};
    say("bars: this GPU's profile, " + shown(profile, g.root) + " (./workbook calibrate wrote it)");
  } else if (gpu.find("H100") != std::string::npos) {
    say("bars: the built-in ones, set on an H100");
  } else {
    say("bars: no profile for " + gpu + " in classroom/bars/: grading against the H100's bars (./workbook calibrate writes one)");
  }
  g.confinement = settle_confinement(g.build_dir);
  if (g.confinement.ids) {
    const passwd* user = getpwuid(g.confinement.ids->first);
    say("each step runs as the unprivileged user " + std::string(user != nullptr ? user->pw_name : "?") + ", in a folder of its own");
  } else {
    say("note: steps are not confined (" + g.confinement.why_not + ")");
  }
  if (!g.sanitizer.empty())
    say("the device trace is off under compute-sanitizer, which holds CUPTI itself: only the correctness halves run, nothing is timed");
  else if (!g.trace)
    say("--no-device-trace: what the GPU runs is not traced (work on other streams, kernels not launched through "
        "workbook::launch or not in the student's file go unseen); every verdict says so");
  // Each lab's correctness cases include sizes drawn from the seed: shown, so that a failure at one
  // can be replayed (--seed) and read.
  for (const std::string& lab : graded_labs) {
    std::vector<std::string> ask = {g.lister(lab), "--drawn-sizes", "--seed=" + g.seed};
    if (!g.sanitizer.empty()) ask.push_back("--correctness-only");
    for (const std::string& line : lines_of(run({ask}).output)) {
      g.log << "sizes drawn from the seed: " << line << '\n';
      say("sizes drawn from the seed: " + line);
    }
  }
  for (const std::string& lab : graded_labs)
    for (const StepInfo& step : g.chosen_steps(lab)) {
      if (g.sanitizer.empty()) grade_step(g, lab, step, bars);
      else sanitize_step(g, lab, step);
    }
  return finish();
}

// ---------------------------------------------------------------------------------------------
// A class: `class` grades every submission in a folder in turn, each in a grading of its own, so
// that one that does not compile, crashes or hangs gets its reason and the next one runs.

// The name a submission's results are kept under: its archive's or folder's name without the
// extension; nullopt when that gives no student (empty, hidden, a control character).
std::optional<std::string> submission_name(const std::string& entry) {
  std::string name = fs::path(entry).filename().string();
  for (const std::string extension : {".zip", ".tgz", ".tar.gz", ".tar"})
    if (name.size() >= extension.size() && name.compare(name.size() - extension.size(), extension.size(), extension) == 0) {
      name.resize(name.size() - extension.size());
      break;
    }
  if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos) return std::nullopt;
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return std::nullopt;
  return name;
}

bool is_submission(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  const auto ends = [&](const std::string& e) { return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0; };
  return entry.is_directory() || ends(".tar") || ends(".tar.gz") || ends(".tgz") || ends(".zip") || name == ".zip" ||
         name == ".tar" || name == ".tgz";
}

std::string first_error(const std::string& console) {
  for (const std::string& line : lines_of(console))
    if (line.rfind("[workbook] error: ", 0) == 0) return line.substr(18);
  return "";
}

int grade_class(const Flags& flags) {
  const std::string root = one(flags, "root"), dir = one(flags, "dir"), results = one(flags, "results");
  const std::string points_path = one(flags, "points");
  Points points;
  if (!points_path.empty()) points = read_points(points_path);
  std::vector<std::string> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (is_submission(entry)) entries.push_back(entry.path().string());
  std::sort(entries.begin(), entries.end());
  if (entries.empty()) throw Fatal(kExitUsage, "grade-class: " + dir + " holds no submission (a folder or an archive each)");
  const std::string class_dir = results + "/class";
  fs::remove_all(class_dir);
  fs::create_directories(class_dir);
  const std::string csv = class_dir + "/class.csv";
  std::ofstream summary(class_dir + "/summary.txt");
  const auto line_out = [&](const std::string& line) {
    std::cout << line << std::endl;
    summary << line << '\n';
  };
  say("grading " + std::to_string(entries.size()) + " submissions from " + dir + "; each one's log in results/class/NAME/");
  bool no_gpu = false;
  for (const std::string& entry : entries) {
    const std::optional<std::string> name = submission_name(entry);
    if (!name) {  // its results could not be kept apart from the others'
      std::ostringstream text;
      text << std::left << std::setw(24) << ("'" + fs::path(entry).filename().string() + "'")
           << " not graded: its name gives no student to keep the results under (empty, or starting with a dot)";
      line_out(text.str());
      continue;
    }
    const std::string own = class_dir + "/" + *name;
    fs::create_directories(own);
    std::vector<std::string> argv = {root + "/workbook", "grade", "--submission", entry};
    for (const std::string& lab : all(flags, "lab")) argv.push_back(lab);
    for (const std::string& pass : all(flags, "pass")) argv.push_back(pass);
    if (!points_path.empty()) argv.insert(argv.end(), {"--points", points_path});
    argv.insert(argv.end(), {"--json", own + "/results.json"});
    const std::string console_path = own + "/grade.txt";
    const int status = run({argv, {}, "", console_path}).status;
    const std::string console = read_text(console_path);
    // The rows this runner itself wrote for the submission's grading.
    std::vector<StepRow> rows;
    const std::string rows_path = results + "/submissions/" + *name + "/grade-rows.tsv";
    if (status != kExitUsage && fs::exists(rows_path)) rows = read_rows(rows_path);
    int passed = 0, total = 0;
    double score = 0;
    bool hung = false, broken = false;
    for (const StepVerdict& v : verdicts(rows)) {
      total += v.applicable ? 1 : 0;
      passed += v.applicable && v.passed ? 1 : 0;
      score += points.score(v);
    }
    for (const StepRow& row : rows) {
      hung = hung || row.reason.rfind("did not finish within", 0) == 0;
      broken = broken || row.step.ends_with(" does not compile");
    }
    std::string note;
    if (status == kExitNoGpu) {
      note = "no GPU visible";
      no_gpu = true;
    } else if (total == 0 || (status != 0 && status != 1)) {
      note = first_error(console);
    }
    if (broken) note += (note.empty() ? "" : "; ") + std::string("does not compile (see results/class/" + *name + "/grade.txt)");
    if (hung) note += (note.empty() ? "" : "; ") + std::string("a step hung and was stopped");
    std::ostringstream text;
    text << std::left << std::setw(24) << *name << ' ' << std::right << std::setw(3) << passed << " of " << std::left
         << std::setw(3) << total << " steps  score " << std::setw(7) << fixed(score, 2) << ' ' << note;
    line_out(text.str());
    if (total == 0) {  // nothing graded: the class CSV and results.json still say why
      const std::string why = "not graded: " + (note.empty() ? "see results/class/" + *name + "/grade.txt" : note);
      append_class_csv_note(csv, *name, why);
      if (!fs::exists(own + "/results.json") || fs::file_size(own + "/results.json") == 0)
        std::ofstream(own + "/results.json") << "{\"score\": 0, \"output\": \"" << json_escape(why) << "\", \"tests\": []}\n";
    } else {
      append_class_csv(csv, *name, rows, points);
    }
  }
  say("class table: results/class/summary.txt; every step: results/class/class.csv; per student: results/class/NAME/");
  if (no_gpu) {  // as grade says it: built and audited, not graded
    say("no CUDA GPU is visible here: the submissions were built and audited, not graded");
    return kExitNoGpu;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// A submission's intake: `take` unpacks it (an archive through grader/harness/unpack.py, which takes
// no owner, mode, link or special file from it, within caps; a folder as its plain files) into
// results/submissions/NAME, and takes from it the one file of each lab a student may edit.

// The plain files under `folder`, by their paths relative to it, in byte order; links not followed.
std::vector<std::string> plain_files(const fs::path& folder) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator(); ++it)
    if (it->symlink_status().type() == fs::file_type::regular) files.push_back(fs::relative(it->path(), folder).string());
  std::sort(files.begin(), files.end());
  return files;
}

int take(const Flags& flags) {
  const std::string root = one(flags, "root"), json = one(flags, "json");
  const std::string path = one(flags, "submission");
  const auto refuse = [&](const std::string& why, const std::string& message) {
    if (!json.empty())
      std::ofstream(json) << "{\"score\": 0, \"output\": \"not graded: " << json_escape(why) << "\", \"tests\": []}\n";
    return Fatal(kExitUsage, message);
  };
  if (!fs::exists(fs::symlink_status(path))) throw refuse("the submission does not exist", "--submission: " + path + " does not exist");
  const std::optional<std::string> name = submission_name(path);
  if (!name)
    throw refuse("the submission's name gives no student to keep its results under",
                 "--submission: '" + fs::path(path).filename().string() +
                     "' gives no name to keep its results under: name the archive or folder for its student (not empty, not starting with '.')");
  const std::string results = root + "/results/submissions/" + *name, unpacked = results + "/unpacked";
  fs::remove_all(results);
  fs::create_directories(unpacked);
  const std::string extension = path.ends_with(".tar.gz") ? "tar.gz" : fs::path(path).extension().string().substr(std::min<std::size_t>(1, fs::path(path).extension().string().size()));
  if (extension == "tar" || extension == "tar.gz" || extension == "tgz" || extension == "zip") {
    const Outcome unpacking = run({{"python3", root + "/grader/harness/unpack.py", path, unpacked}});
    std::string said = unpacking.output;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    if (unpacking.status == 1) {
      fs::remove_all(results);
      const std::string why = said.rfind("refused: ", 0) == 0 ? said.substr(9) : said;
      throw refuse("the submission is refused: " + why, "--submission: " + path + " is refused: " + why);
    }
    if (unpacking.status != 0) {
      fs::remove_all(results);
      throw refuse("the submission is not an archive that can be read",
                   "--submission: " + path + " is not a " + extension + " archive that can be read (" + said + ")");
    }
    std::string skipped = said;
    std::replace(skipped.begin(), skipped.end(), '\n', ';');
    if (!skipped.empty()) say("submission: " + skipped + ": only plain files are taken");
  } else if (fs::is_directory(path)) {
    for (const std::string& file : plain_files(path)) {  // plain files only, with our own modes
      fs::create_directories(fs::path(unpacked + "/" + file).parent_path());
      fs::copy_file(fs::path(path) / file, unpacked + "/" + file);
      fs::permissions(unpacked + "/" + file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    }
  } else {
    throw refuse("the submission is neither a folder nor an archive",
                 "--submission: " + path + " is neither a folder nor a .tar, .tar.gz, .tgz or .zip");
  }
  // Each lab's labs/NN_topic/<topic>.cu, perhaps inside the student's own top folder ("alice/labs/...").
  std::map<std::string, std::string> lab_of_file;
  for (const fs::directory_entry& lab : fs::directory_iterator(root + "/labs"))
    if (lab.is_directory() && fs::exists(lab.path() / "CMakeLists.txt")) {
      const std::string name_of_lab = lab.path().filename().string();
      lab_of_file["labs/" + name_of_lab + "/" + topic_of(root, name_of_lab) + ".cu"] = name_of_lab;
    }
  std::set<std::string> labs;
  std::vector<std::string> taken, ignored;
  for (const std::string& file : plain_files(unpacked)) {
    std::string wanted;
    for (const auto& [lab_file, lab] : lab_of_file)
      if (file == lab_file || file.ends_with("/" + lab_file)) wanted = lab_file;
    if (!wanted.empty() && !labs.contains(lab_of_file[wanted])) {
      fs::create_directories(fs::path(results + "/taken/" + wanted).parent_path());
      fs::copy_file(unpacked + "/" + file, results + "/taken/" + wanted);
      labs.insert(lab_of_file[wanted]);
      taken.push_back(wanted);
    } else {
      ignored.push_back(file);
    }
  }
  fs::remove_all(unpacked);  // what is graded is in taken/; the rest is listed in ignored.txt
  std::ofstream ignored_list(results + "/ignored.txt");
  for (const std::string& file : ignored) ignored_list << file << '\n';
  std::string taken_text;
  for (const std::string& file : taken) taken_text += file + " ";
  say("submission " + *name + ": takes " + (taken.empty() ? "no lab file (a lab file is labs/NN_topic/<topic>.cu, a plain file)" : taken_text));
  if (!ignored.empty())
    say("submission " + *name + ": ignores " + std::to_string(ignored.size()) +
        " other files (only each lab's <topic>.cu is graded; the list: results/submissions/" + *name + "/ignored.txt)");
  std::ofstream answer(one(flags, "answer"));
  answer << *name << '\n';
  for (const std::string& lab : labs) answer << lab << '\n';
  return 0;
}

// ---------------------------------------------------------------------------------------------
// `calibrate`: each lab's solution measured on this GPU (skeleton.h's calibrate<Lab>) into its bars
// profile, classroom/bars/<gpu>.bars. A profile's lines for other labs are kept.

int calibrate(const Flags& flags) {
  const std::string root = one(flags, "root"), build_dir = one(flags, "build-dir");
  const std::string gpu = one(flags, "gpu"), profile = one(flags, "profile");
  const std::string seed = flags.contains("seed") ? seed_of(flags) : "2026";
  const std::vector<std::string> labs = all(flags, "lab");
  const std::string draft = root + "/results/calibration.bars";
  std::ostringstream header;
  const std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  {
    std::ofstream out(draft);
    out << "# Bars for " << gpu << ", measured by ./workbook calibrate on " << date << " with seed " << seed << ".\n"
        << "# STEP INDEX MIN_SPEEDUP MIN_PERCENT_OF_REFERENCE: requirement INDEX of the step's bar (in the order\n"
        << "# ./workbook list shows them). Each is 5% under what the reference solution measured here,\n"
        << "# or midway to the previous step's solution where 5% would let that one through.\n";
    // Calibrating one lab replaces that lab's lines only: each lab's lines follow a "# NN_topic" line.
    bool keep = false;
    for (const std::string& line : lines_of(fs::exists(profile) ? read_text(profile) : "")) {
      if (line.size() > 4 && line.rfind("# ", 0) == 0 && std::isdigit(static_cast<unsigned char>(line[2])) && line[4] == '_')
        keep = std::find(labs.begin(), labs.end(), line.substr(2)) == labs.end();
      if (keep) out << line << '\n';
    }
  }
  for (const std::string& lab : labs) {
    say("calibrating " + lab + " on " + gpu + " (each step and the one before it, at the step's bar)");
    const Outcome measured = run({{build_dir + "/labs/" + lab + "/grade_" + lab + "_solution", "--calibrate=" + draft, "--seed=" + seed}});
    for (const std::string& line : lines_of(measured.output))
      if (line.rfind("[workbook] ", 0) == 0) std::cout << line << '\n';
  }
  fs::create_directories(fs::path(profile).parent_path());
  fs::rename(draft, profile);
  say("profile: " + shown(profile, root) + ". Review it, then commit it: grade uses it on this GPU from now on.");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    const Flags flags = parse_flags(argc, argv, 2);
    if (command == "grade") return grade(flags);
    if (command == "class") return grade_class(flags);
    if (command == "take") return take(flags);
    if (command == "calibrate") return calibrate(flags);
    if (command == "summarize") {
      const std::vector<StepRow> rows = read_rows(one(flags, "rows"));
      if (rows.empty()) throw Fatal(kExitFailed, "no results in " + one(flags, "rows"));
      return summarize(rows, one(flags, "json"), one(flags, "junit"), one(flags, "points"));
    }
    throw Fatal(kExitUsage, "workbook_runner needs a command: take, grade, class, calibrate or summarize (./workbook runs it)");
  } catch (const Fatal& error) {
    std::cerr << "[workbook] error: " << error.what() << '\n';
    return error.code;
  } catch (const std::exception& error) {
    std::cerr << "[workbook] error: " << error.what() << '\n';
    return kExitFailed;
  }
}
