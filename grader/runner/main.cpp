// workbook_runner: the grading flow. ./workbook installs the tools, configures the build and builds
// this program, then hands it the user's command as typed; it links no student code (the trust
// boundary, docs/integrity.md). Each command is a file of its own:
//   grade.cpp      grade: build each lab's grader, audit, run each step confined, the reports;
//                  profile: one step's kernels under Nsight Compute, the lab's counters
//   classroom.cpp  a submission's intake, and grade-class
//   tools.cpp      list, bench, calibrate
//   handout.cpp    handout: the student's copy, written and checked
//   test_suite.cpp setup: the whole build; test: the build, then the test suite (ctest)
//
//   workbook_runner COMMAND --root=DIR --preset=NAME [--caller=DIR] [--results=DIR] -- WORDS...
//       COMMAND is grade, profile, grade-class, list, bench, calibrate, handout, setup or test; WORDS are the user's,
//       as
//       ./workbook --help documents them; --results: where logs and reports go (default ROOT/results)
//   workbook_runner summarize --rows=FILE [--json=FILE] [--junit=FILE] [--points=FILE]
//       the scorecard and reports of a rows file (the CPU tests use it)
// Exit codes as ./workbook documents them: 0 all passed, 1 something failed, 2 bad usage, 77 no GPU.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "protocol/as_data.h"
#include "runner/checkout.h"
#include "runner/commands.h"

namespace {

using namespace workbook;
using namespace workbook::runner;

// The runner's own --flag=value arguments up to "--"; the user's words after it.
struct Arguments {
  std::map<std::string, std::string> flags;
  std::vector<std::string> words;
};

Arguments read_arguments(int argc, char** argv) {
  Arguments a;
  int i = 2;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    const std::string word = argv[i];
    const std::size_t equals = word.find('=');
    if (word.rfind("--", 0) != 0 || equals == std::string::npos)
      throw Fatal(kExitUsage, "workbook_runner takes --flag=value arguments before --, not '" + word + "'");
    a.flags[word.substr(2, equals - 2)] = word.substr(equals + 1);
  }
  for (++i; i < argc; ++i) a.words.emplace_back(argv[i]);
  return a;
}

int dispatch(const std::string& command, const Arguments& a) {
  const auto flag = [&](const std::string& name) {
    const auto found = a.flags.find(name);
    return found == a.flags.end() ? std::string() : found->second;
  };
  if (command == "summarize") {
    const std::vector<StepRow> rows = read_rows(flag("rows"));
    if (rows.empty()) throw Fatal(kExitFailed, "no results in " + flag("rows"));
    return summarize(rows, flag("json"), flag("junit"), flag("points"));
  }
  Checkout checkout;
  checkout.root = flag("root");
  checkout.preset = flag("preset");
  checkout.caller = flag("caller").empty() ? checkout.root : flag("caller");
  checkout.build_dir = checkout.root + "/build/" + checkout.preset;
  checkout.results = flag("results").empty() ? checkout.root + "/results" : flag("results");
  const Words words(a.words);
  if (checkout.root.empty() || checkout.preset.empty()) {
    if (command == "grade" || command == "profile" || command == "grade-class" || command == "list" ||
        command == "inspect" || command == "bench" || command == "calibrate" || command == "handout" ||
        command == "setup" || command == "test")
      throw Fatal(kExitUsage, "workbook_runner " + command + " needs --root and --preset (./workbook runs it)");
  }
  if (command == "grade") return grade(checkout, words);
  if (command == "profile") return profile(checkout, words);
  if (command == "grade-class") return grade_class(checkout, words);
  if (command == "list") return list(checkout, words);
  if (command == "inspect") return inspect(checkout, words);
  if (command == "bench") return bench(checkout, words);
  if (command == "calibrate") return calibrate(checkout, words);
  if (command == "handout") return handout(checkout, words);
  if (command == "setup") return setup(checkout, words);
  if (command == "test") return test(checkout, words);
  throw Fatal(kExitUsage,
              "workbook_runner needs a command: grade, profile, grade-class, list, inspect, bench, calibrate, handout, "
              "setup, test or summarize (./workbook runs it)");
}

// The command's exit status, its error said on the console.
int run_command(int argc, char** argv) {
  try {
    return dispatch(argc > 1 ? argv[1] : "", read_arguments(argc, argv));
  } catch (const Fatal& error) {
    if (*error.what() != '\0') std::cerr << "[workbook] error: " << error.what() << '\n';
    return error.code;
  } catch (const std::exception& error) {
    std::cerr << "[workbook] error: " << error.what() << '\n';
    return kExitFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The console shows students' texts (names, reasons, compilers' errors quoting their files): all
  // of it written as data (as_data.h), so that no path of the runner's can forget to, and an escape
  // sequence of a student's never becomes the instructor's terminal's command.
  workbook::AsDataStreambuf console(std::cout.rdbuf()), console_errors(std::cerr.rdbuf());
  std::streambuf* const out = std::cout.rdbuf(&console);
  std::streambuf* const errors = std::cerr.rdbuf(&console_errors);
  const int status = run_command(argc, argv);
  std::cout.flush();
  std::cout.rdbuf(out);  // before the buffers above go: the streams outlive main()
  std::cerr.rdbuf(errors);
  return status;
}
