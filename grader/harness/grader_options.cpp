// The grader program's flags, each written once: its modes, what it sets, its line of --help.
#include "harness/grader_options.h"

#include <fcntl.h>

#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "harness/registrations.h"

namespace workbook {

namespace {

constexpr unsigned bit(Mode mode) { return 1u << static_cast<unsigned>(mode); }
// The modes that measure on a GPU with a session of drawn inputs, and the student's kernels.
constexpr unsigned kMeasuring = bit(Mode::kGrade) | bit(Mode::kBench) | bit(Mode::kCalibrate) | bit(Mode::kProfile);
// Grading, and doctest asked about it instead (--list-test-cases with the grading's filters).
constexpr unsigned kGrading = bit(Mode::kGrade) | bit(Mode::kDoctestQuery);

constexpr const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kDescribe: return "--describe";
    case Mode::kListSteps: return "--list-steps";
    case Mode::kDrawnSizes: return "--drawn-sizes";
    case Mode::kProfileReport: return "--profile-report";
    case Mode::kBenchColumns: return "--bench-columns";
    case Mode::kDoctestQuery: return "doctest's queries";
    case Mode::kPlanCheck: return "--plan-check";
    case Mode::kGpuCheck: return "--gpu-check";
    case Mode::kGrade: return "grading";
    case Mode::kBench: return "--bench";
    case Mode::kCalibrate: return "--calibrate";
    case Mode::kProfile: return "--profile";
  }
  return "?";
}
constexpr std::array kAllModes = {Mode::kGrade,      Mode::kBench,         Mode::kCalibrate,    Mode::kProfile,
                                  Mode::kPlanCheck,  Mode::kGpuCheck,      Mode::kDescribe,     Mode::kListSteps,
                                  Mode::kDrawnSizes, Mode::kProfileReport, Mode::kBenchColumns, Mode::kDoctestQuery};

// `text` as a whole int, all of it; nothing when it is not one ("", "7x", "99999999999").
std::optional<int> whole_int(const std::string& text) {
  std::size_t used = 0;
  try {
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A flag's value as a whole number from 0 to 2^64 - 1, or why not.
std::uint64_t whole_number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  std::uint64_t number = 0;
  try {
    number = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw std::invalid_argument(flag + " takes a non-negative whole number, not '" + text + "'");
  return number;
}

struct Flag {
  const char* name;          // "--seed"
  const char* value_name;    // "N" for --seed=N; nullptr for a switch
  std::optional<Mode> mode;  // a mode flag's mode; other flags leave the mode alone
  unsigned taken_by;         // the modes that take it (a mode flag: its own)
  void (*apply)(Options& o, const std::string& value);
  const char* help;  // its lines of --help, after the name
};

const std::array kFlags = {
    // The modes: each asks the program for one thing instead of grading.
    Flag{"--describe", nullptr, Mode::kDescribe, 0, [](Options&, const std::string&) {},
         "print the lab, its topic, the file a student writes, its steps and bars, its profile's metrics, its"
         " benchmark's columns and (with --seed) the sizes drawn: one fact a line, for the runner (no GPU)"},
    Flag{"--list-steps", nullptr, Mode::kListSteps, 0, [](Options&, const std::string&) {},
         "print each step's id, title and bar, tab-separated (no GPU; with --bars, the profile's bars)"},
    Flag{"--drawn-sizes", nullptr, Mode::kDrawnSizes, 0, [](Options&, const std::string&) {},
         "print the correctness sizes the lab draws from --seed (no GPU)"},
    Flag{"--profile-report", "ID", Mode::kProfileReport, 0,
         [](Options& o, const std::string& v) { o.report.step = v; },
         "print step ID's profile table from --ncu-output (no GPU)"},
    Flag{"--bench-columns", nullptr, Mode::kBenchColumns, 0, [](Options&, const std::string&) {},
         "print the benchmark CSV's columns, comma-separated (no GPU)"},
    Flag{"--plan-check", nullptr, Mode::kPlanCheck, 0, [](Options&, const std::string&) {},
         "a judge only, with --planner and no GPU: plan every step's launcher for its correctness cases\n"
         "against a described H100 and print what a GPU's grading would refuse, a step a line"},
    Flag{"--gpu-check", nullptr, Mode::kGpuCheck, 0, [](Options&, const std::string&) {},
         "exit 0 if a CUDA GPU can be used, 77 if not"},
    Flag{"--bench", "CSV", Mode::kBench, 0, [](Options& o, const std::string& v) { o.mode_value = v; },
         "run the lab's benchmark sweep into CSV"},
    Flag{"--calibrate", "FILE", Mode::kCalibrate, 0, [](Options& o, const std::string& v) { o.mode_value = v; },
         "measure the solution's steps and append bars for this GPU to FILE"},
    Flag{"--profile", "ID", Mode::kProfile, 0, [](Options& o, const std::string& v) { o.mode_value = v; },
         "run step ID's kernels once at its bar's shape inside cudaProfilerStart and Stop, for ncu\n"
         "--profile-from-start off (./workbook profile)"},

    // What draws the inputs.
    Flag{"--seed", "N", std::nullopt,
         kMeasuring | kGrading | bit(Mode::kDrawnSizes) | bit(Mode::kDescribe) | bit(Mode::kPlanCheck),
         [](Options& o, const std::string& v) {
           o.seed = whole_number("--seed", v);
           o.seed_given = true;
         },
         "replay a run's drawn sizes (every run prints its seed)"},
    Flag{"--data-key", "K", std::nullopt, kMeasuring | kGrading,
         [](Options& o, const std::string& v) { o.data_key = whole_number("--data-key", v); },
         "draw every step's input values from K, the key a step's log names after it (each step\n"
         "otherwise draws a secret key of its own: [secret-inputs])"},
    // Whose kernels.
    Flag{"--planner", "PATH", std::nullopt, kMeasuring | kGrading | bit(Mode::kPlanCheck),
         [](Options& o, const std::string& v) { o.planner = v; },
         "a judge (judge_NN_topic) only: the student's planner, which runs their host code in a\n"
         "process of its own and answers each call with its plan"},
    Flag{"--device-code", "FILE", std::nullopt, kMeasuring | kGrading,
         [](Options& o, const std::string& v) {
           o.device_code.push_back(v);
           o.device_code_sass.emplace_back();
         },
         "a judge only, one per file: where the student's kernels are (their fat binary or object\n"
         "file, the lab's given code); loaded without any of their host code"},
    Flag{"--sass", "DUMP", std::nullopt, kMeasuring | kGrading,
         [](Options& o, const std::string& v) {
           if (o.device_code_sass.empty() || !o.device_code_sass.back().empty())
             throw std::invalid_argument("--sass=DUMP names the machine code the build dumped of the --device-code=FILE "
                                         "just before it, once");
           o.device_code_sass.back() = v;
         },
         "a judge only, after a --device-code=FILE: the SASS the build dumped of FILE (its path is\n"
         "the build's, built-KIND.txt), which the machine-code checks read instead of running\n"
         "cuobjdump on FILE kernel by kernel"},
    // How the steps are graded.
    Flag{"--bars", "FILE", std::nullopt,
         bit(Mode::kListSteps) | bit(Mode::kDescribe) | kGrading | bit(Mode::kBench) | bit(Mode::kProfile),
         [](Options& o, const std::string& v) { o.bars_path = v; },
         "grade against this GPU's bars profile instead of the built-in (H100) bars"},
    Flag{"--without", "DEFENCE", std::nullopt, kMeasuring | kGrading,
         [](Options& o, const std::string& v) {
           const std::optional<Defence> defence = defence_named(v);
           if (!defence) {
             std::string known;
             for (Defence d : kAllDefences) (known += ' ') += name_of(d);
             throw std::invalid_argument("--without takes a defence, one of" + known + "; not '" + v + "'");
           }
           o.disabled.insert(*defence);
         },
         "switch one integrity defence off (the mutant tests' proofs only)"},
    Flag{"--as-compute-capability", "NN", std::nullopt, kMeasuring | kGrading,
         [](Options& o, const std::string& v) {
           o.as_compute_capability = whole_int(v).value_or(0);
           if (o.as_compute_capability < 10)
             throw std::invalid_argument("--as-compute-capability takes a compute capability as major and minor digits "
                                         "(80 for 8.0), not '" + v + "'");
         },
         "grade as if the GPU were compute capability NN (80: an A100), no higher than its own:\n"
         "steps that need more are reported not applicable (the test of that report)"},
    Flag{"--correctness-only", nullptr, std::nullopt, kGrading | bit(Mode::kDrawnSizes) | bit(Mode::kDescribe),
         [](Options& o, const std::string&) { o.correctness_only = true; },
         "check the steps on small shapes and time nothing (under compute-sanitizer)"},
    Flag{"--exact-allocations", nullptr, std::nullopt, kGrading,
         [](Options& o, const std::string&) { o.exact_allocations = true; },
         "no guard regions around arrays (so memcheck sees one element past the end)"},
    // Which steps, and where their rows go.
    Flag{"--step", "ID[,ID...]", std::nullopt, kGrading,
         [](Options& o, const std::string& v) {
           o.step_filters.push_back(registered::step_filter(v));
           o.doctest_args.push_back(o.step_filters.back().c_str());
         },
         "grade these steps of the lab's steps table (\"02.1\", \"04.1,04.10\"); doctest's\n"
         "--test-case=NAME picks test cases by name (a step's is \"ID TITLE\")"},
    Flag{"--rows", "FILE", std::nullopt, bit(Mode::kGrade), [](Options& o, const std::string& v) { o.rows_path = v; },
         "append the result rows to FILE (the runner collects them from there and writes every\n"
         "report: a grader writes none)"},
    Flag{"--rows-fd", "N", std::nullopt, bit(Mode::kGrade),
         [](Options& o, const std::string& v) {
           const std::optional<int> fd = whole_int(v);
           if (!fd || *fd < 3 || fcntl(*fd, F_GETFD) < 0)
             throw std::invalid_argument("--rows-fd takes an open descriptor above 2, not '" + v + "'");
           o.rows_fd = *fd;
         },
         "the same, onto descriptor N, which the runner opened (a judge's step: the file is not\n"
         "the step's to open, so its planner cannot reach it)"},
    // What the proofs expect of a grading.
    Flag{"--expect-reject", nullptr, std::nullopt, bit(Mode::kGrade),
         [](Options& o, const std::string&) { o.expect.reject = true; },
         "pass only if every test case fails, cleanly (mutants, starters)"},
    Flag{"--expect-reason", "TEXT", std::nullopt, bit(Mode::kGrade),
         [](Options& o, const std::string& v) {
           o.expect.reason = v;
           o.expect.reject = true;
         },
         "--expect-reject, and every step's failure must name TEXT (\"[guard]\")"},
    Flag{"--expect-honest", nullptr, std::nullopt, bit(Mode::kGrade),
         [](Options& o, const std::string&) { o.expect.honest = true; },
         "pass only if every step is correct and trips no defence: it passes or misses its bar\n"
         "alone, on the time it really took (a boundary mutant, judged: work that escaped the timer\n"
         "would trip [ceiling])"},
    // --profile-report's inputs.
    Flag{"--ncu-output", "FILE", std::nullopt, bit(Mode::kProfileReport),
         [](Options& o, const std::string& v) { o.report.ncu_output = v; }, "ncu's CSV output of the step"},
    Flag{"--reference-output", "FILE", std::nullopt, bit(Mode::kProfileReport),
         [](Options& o, const std::string& v) { o.report.reference_output = v; },
         "the solution's, for a column beside it"},
    Flag{"--recorded", "FILE", std::nullopt, bit(Mode::kProfileReport),
         [](Options& o, const std::string& v) { o.report.recorded = v; },
         "or the solution's values as recorded on a GPU"},
    Flag{"--heading", "TEXT", std::nullopt, bit(Mode::kProfileReport),
         [](Options& o, const std::string& v) { o.report.heading = v; }, "the first column's heading"},
    Flag{"--recorded-lines", nullptr, std::nullopt, bit(Mode::kProfileReport),
         [](Options& o, const std::string&) { o.report.recorded_lines = true; },
         "print the first column as lines for --recorded instead of the table"},
};

// The doctest options the grader passes on; anything else that starts with '-' is a mistake that
// doctest would silently ignore, so it is refused.
bool doctest_option(const char* a) {
  for (const char* option : {"--test-case=",
                             "-tc=",
                             "--test-case-exclude=",
                             "-tce=",
                             "--test-suite=",
                             "-ts=",
                             "--test-suite-exclude=",
                             "-tse=",
                             "--list-test-cases",
                             "-ltc",
                             "--list-test-suites",
                             "-lts",
                             "--count",
                             "-c",
                             "--help",
                             "-h",
                             "-?",
                             "--version",
                             "-v",
                             "--success",
                             "-s",
                             "--no-colors",
                             "-nc",
                             "--duration",
                             "-d",
                             "--reporters=",
                             "-r=",
                             "--out=",
                             "-o=",
                             "--abort-after=",
                             "-aa=",
                             "--no-exitcode",
                             "-ne"}) {
    const std::size_t length = std::strlen(option);
    if (std::strncmp(a, option, length) == 0 && (option[length - 1] == '=' || a[length] == '\0' || a[length] == '='))
      return true;
  }
  return false;
}

// doctest's queries answer from the test registry alone: no CUDA, so they work on any machine.
bool doctest_query(const char* a) {
  for (const char* query : {"--list-test-cases", "-ltc", "--list-test-suites", "-lts", "--list-reporters", "-lr",
                            "--help", "-h", "-?", "--version", "-v", "--count", "-c"})
    if (std::strncmp(a, query, std::strlen(query)) == 0 &&
        (a[std::strlen(query)] == '\0' || a[std::strlen(query)] == '='))
      return true;
  return false;
}

// The flag `a` is ("--seed=7" is --seed's), with its value; nullptr for none of the grader's.
const Flag* flag_of(const char* a, std::string& value) {
  for (const Flag& flag : kFlags) {
    const std::size_t length = std::strlen(flag.name);
    if (std::strncmp(a, flag.name, length) != 0) continue;
    if (flag.value_name == nullptr && a[length] == '\0') return &flag;
    if (flag.value_name != nullptr && a[length] == '=') {
      value = a + length + 1;
      return &flag;
    }
    if (flag.value_name != nullptr && a[length] == '\0')
      throw std::invalid_argument(std::string(flag.name) + " takes its value after '=': " + flag.name + "=" +
                                  flag.value_name);
  }
  return nullptr;
}

std::string modes_taking(unsigned taken_by) {
  std::string names;
  for (Mode mode : kAllModes)
    if ((taken_by & bit(mode)) != 0 && mode != Mode::kDoctestQuery)
      names += (names.empty() ? "" : ", ") + std::string(mode_name(mode));
  return names;
}

}  // namespace

bool answers_without_gpu(Mode mode) {
  return mode == Mode::kDescribe || mode == Mode::kListSteps || mode == Mode::kDrawnSizes ||
         mode == Mode::kProfileReport || mode == Mode::kBenchColumns || mode == Mode::kDoctestQuery;
}

Options parse_options(int argc, char** argv) {
  Options o;
  // First the mode: at most one mode flag, or doctest's query, else grading.
  const char* mode_flag = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string ignored;
    const Flag* flag = flag_of(argv[i], ignored);
    if (flag == nullptr || !flag->mode) continue;
    if (mode_flag != nullptr && o.mode != *flag->mode)
      throw std::invalid_argument(std::string(mode_flag) + " and " + flag->name +
                                  " ask for two things: give one of them");
    mode_flag = flag->name;
    o.mode = *flag->mode;
  }
  if (mode_flag == nullptr)
    for (int i = 1; i < argc; ++i)
      if (doctest_query(argv[i])) o.mode = Mode::kDoctestQuery;

  // Then every flag, each taken only by the modes its line of the table names.
  o.doctest_args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    std::string value;
    if (const Flag* flag = flag_of(a, value)) {
      const unsigned taken_by = flag->mode ? bit(*flag->mode) : flag->taken_by;
      if ((taken_by & bit(o.mode)) == 0)
        throw std::invalid_argument(std::string(flag->name) + " is not a flag of " + mode_name(o.mode) + ": " +
                                    modes_taking(taken_by) + " take" +
                                    (std::strchr(modes_taking(taken_by).c_str(), ',') ? "" : "s") +
                                    " it (--help lists the flags by mode)");
      flag->apply(o, value);
    } else if (a[0] == '-' && !doctest_option(a)) {
      throw std::invalid_argument(std::string("unknown flag '") + a + "' (--help lists the grader's flags)");
    } else if (a[0] == '-' && (bit(o.mode) & kGrading) == 0) {
      throw std::invalid_argument(std::string(a) + " is doctest's, which grading runs: it is not a flag of " +
                                  mode_name(o.mode));
    } else {
      o.doctest_args.push_back(a);
    }
  }
  if (o.mode == Mode::kPlanCheck && o.planner.empty())
    throw std::invalid_argument("--plan-check needs --planner=PATH, the student's planner");
  if (o.mode != Mode::kPlanCheck && o.planner.empty() != o.device_code.empty())
    throw std::invalid_argument("a judge needs both --planner and --device-code");
  if (o.mode == Mode::kProfileReport && o.report.ncu_output.empty())
    throw std::invalid_argument("--profile-report needs --ncu-output=FILE, ncu's output of the step");
  return o;
}

std::string grader_usage() {
  std::ostringstream usage;
  // A flag's name, then its help and the modes that take it, wrapped in a column of their own.
  const auto line = [&](const Flag& flag) {
    constexpr std::size_t kColumn = 25, kWidth = 100;
    const std::string name =
        std::string("  ") + flag.name + (flag.value_name ? std::string("=") + flag.value_name : "");
    std::string text = flag.help;
    for (char& c : text) c = c == '\n' ? ' ' : c;
    if (!flag.mode) text += " [" + modes_taking(flag.taken_by) + "]";
    usage << name;
    std::size_t at = name.size();
    if (at + 1 > kColumn) {
      usage << '\n';
      at = 0;
    }
    std::istringstream words(text);
    bool first = true;
    for (std::string word; words >> word; first = false) {
      if (!first && at + 1 + word.size() > kWidth) {
        usage << '\n';
        at = 0;
      }
      const bool line_start = at < kColumn;
      if (line_start) usage << std::string(kColumn - at, ' ');
      else usage << ' ';
      usage << word;
      at = (line_start ? kColumn : at + 1) + word.size();
    }
    usage << '\n';
  };
  usage << "grader flags. Without a mode flag the program grades the steps its filters select; a mode\n"
           "flag asks for one other thing instead. A flag given to a mode that does not take it is refused.\n\n"
           "modes:\n";
  for (const Flag& flag : kFlags)
    if (flag.mode) line(flag);
  usage << "\nflags, each with the modes that take it:\n";
  for (const Flag& flag : kFlags)
    if (!flag.mode) line(flag);
  return usage.str();
}

}  // namespace workbook
