// setup and test: the whole build, and the test suite run over it. ./workbook has installed what is
// missing (the site's tools and Slurm too, for test, where it could) and built this program.
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "runner/build.h"
#include "runner/commands.h"
#include "runner/process.h"

namespace workbook::runner {

namespace {

// Everything the checkout builds, each tenth of the way said; the compiler's first errors where it
// fails, and the build's distinct warnings (the first 20) where it does not.
void build_everything(const Checkout& checkout) {
  say("building (preset " + checkout.preset + ")");
  const Build build(checkout, checkout.build_dir, checkout.results);
  if (!build.targets({})) {
    build.show_errors();
    throw Fatal(kExitFailed, "the build failed; the whole log is in " + checkout.shown(build.log()));
  }
  std::set<std::string> warnings;
  for (const std::string& line : lines_of(read_text(build.log())))
    if (line.find("warning") != std::string::npos && warnings.size() < 20) warnings.insert(line);
  for (const std::string& warning : warnings) std::cout << warning << '\n';
}

// What ctest's lines say of each test, as it prints them ("  3/250 Test  #17: name ...   Passed").
const std::regex kPassed(R"(^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed.*)");
const std::regex kFailed(R"(^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception|Not Run).*)");
const std::regex kSkipped(R"(^ *[0-9]+/[0-9]+ Test +#[0-9]+: ([^.: ]+).*\*\*\*Skipped.*)");
// The entries of ctest's closing list of the tests that did not run: the count by lab says it.
const std::regex kListedAsSkipped(R"(^[[:space:]]+[0-9]+ - .*\(Skipped\)$)");

}  // namespace

int setup(const Checkout& checkout, Words words) {
  for (std::string word; words.next(word);) throw unknown_option(checkout, "setup", word);
  build_everything(checkout);
  say("ready: ./workbook grade");
  return 0;
}

int test(const Checkout& checkout, Words words) {
  std::vector<std::string> argv = {"ctest", "--preset", checkout.preset};
  std::string asked;
  for (std::string word; words.next(word);) {
    argv.push_back(word);
    asked += (asked.empty() ? "" : " ") + word;
  }
  build_everything(checkout);
  if (checkout.preset == "cpu") say("no GPU here: the GPU tests will be reported as skipped");
  if (!on_path("slurmctld"))
    say("Slurm is not installed: grade-class --slurm's test will be skipped (WORKBOOK_REQUIRE_SLURM=1 ./workbook "
        "test installs slurm-wlm and munge for it)");
  if (toolkit_tool("compute-sanitizer").empty())
    say("compute-sanitizer is not installed (it comes with the CUDA toolkit): the sanitize tests are left out");
  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> skipped_by_lab;
  bool none_found = false, in_closing_list = false;
  const int status = run_lines({argv, {}, checkout.root}, [&](const std::string& line) {
    std::smatch m;
    if (line.starts_with("The following tests did not run:")) {
      in_closing_list = true;
      return;
    }
    if (in_closing_list && std::regex_match(line, kListedAsSkipped)) return;
    in_closing_list = false;
    // Each line as it comes, a CI log's too: stdout to a file is buffered in blocks otherwise.
    std::cout << line << std::endl;
    if (std::regex_match(line, kPassed)) ++passed;
    else if (std::regex_match(line, kFailed)) ++failed;
    else if (std::regex_match(line, m, kSkipped)) {
      ++skipped;
      ++skipped_by_lab[m[1]];
    }
    none_found = none_found || line.find("No tests were found") != std::string::npos;
  });
  if (none_found)
    throw Fatal(kExitUsage, "no test matches '" + asked +
                                "'. Labels: cpu, gpu, harness, static, host-code, front-door, handout, classroom, "
                                "sanitize, repeat, defence, judge, boundary, residue, profile, solution, starter, "
                                "mutant and each lab's name");
  // The verdict last: one line a reader (and a CI log) ends on, after the skipped tests by lab.
  std::cout << '\n';
  if (skipped > 0) {
    std::string by_lab;
    for (const auto& [lab, count] : skipped_by_lab)
      by_lab += (by_lab.empty() ? "" : ", ") + lab + " " + std::to_string(count);
    say("skipped, as they need a GPU (or one of a newer kind): " + by_lab);
  }
  std::cout << "tests: " << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return status == 0 ? 0 : kExitFailed;
}

}  // namespace workbook::runner
