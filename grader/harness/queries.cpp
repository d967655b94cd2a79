// The grader program's modes that answer with no GPU, from what the lab registered: the lab
// described whole (the runner's one question), its steps, the sizes a seed draws, a step's profile
// table, its benchmark's columns.
#include "harness/queries.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/profile.h"
#include "harness/registrations.h"
#include "harness/session.h"
#include "protocol/bars_profile.h"
#include "protocol/lab_facts.h"

namespace workbook {

namespace {

// --profile-report: the table of ncu's output for one step (profile.h), with no GPU. 0: printed;
// 1: ncu gave no profile of the step, and why; 2: a file that cannot be read.
int print_profile_report(const ProfileReportOptions& options) {
  const auto read = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::optional<std::string> output = read(options.ncu_output);
  if (!output) {
    std::cerr << "error: --profile-report needs --ncu-output=FILE, ncu's output: cannot read '" << options.ncu_output
              << "'\n";
    return 2;
  }
  const std::vector<profile::Counter> counters =
      registered::lab().counters != nullptr ? registered::lab().counters() : std::vector<profile::Counter>{};
  const std::vector<profile::Kernel> kernels = profile::kernels_in(*output);
  if (const std::string failure = profile::ncu_failure(*output, kernels.size()); !failure.empty()) {
    std::cout << "[workbook] profile: " << failure << '\n';
    return 1;
  }
  if (options.recorded_lines) {
    std::cout << profile::recorded_lines(options.step, profile::combined(kernels), counters);
    return 0;
  }
  std::vector<profile::Column> columns = {{options.heading, profile::combined(kernels)}};
  if (!options.reference_output.empty()) {
    const std::optional<std::string> reference = read(options.reference_output);
    const std::vector<profile::Kernel> theirs =
        reference ? profile::kernels_in(*reference) : std::vector<profile::Kernel>{};
    if (theirs.empty()) {
      columns.push_back({"solution", std::nullopt});
      std::cout << "[workbook] profile: the solution's profile is missing: "
                << (reference ? profile::ncu_failure(*reference, 0) : "cannot read " + options.reference_output)
                << '\n';
    } else {
      columns.push_back({"solution", profile::combined(theirs)});
    }
  } else if (!options.recorded.empty()) {
    try {
      const profile::Values recorded = profile::recorded_values(options.recorded, options.step);
      if (!recorded.empty()) columns.push_back({"solution*", recorded});
    } catch (const std::invalid_argument& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 2;
    }
  }
  std::cout << "[workbook] profiled, one launch each:";
  for (const profile::Kernel& kernel : kernels) {
    const auto time = kernel.values.find(profile::kTimeMetric);
    std::cout << "\n  " << profile::readable(kernel.name);
    if (time != kernel.values.end())
      std::cout << std::fixed << std::setprecision(1) << "  " << time->second / 1000.0 << " us";
  }
  std::cout << std::defaultfloat << "\n\n" << profile::table(counters, columns);
  if (columns.size() > 1 && columns.back().heading == "solution*")
    std::cout << "* the reference solution's values as recorded in " << options.recorded << '\n';
  return 0;
}

// The benchmark CSV's columns, comma-separated.
std::string columns_line() {
  std::string line;
  for (const std::string& column : bench_columns()) line += (line.empty() ? "" : ",") + column;
  return line;
}

// --describe: the lab's facts (protocol/lab_facts.h). A grader holds one lab.
int describe(const Options& options) {
  if (!options.bars_path.empty()) session().calibrated_bars = read_bars_profile(options.bars_path).bars;
  session().seed = options.seed;
  session().correctness_only = options.correctness_only;
  const registered::Lab& lab = registered::lab();
  LabFacts facts;
  if (lab.listing != nullptr) {
    facts.lab = lab.name;
    facts.topic = lab.name.substr(lab.name.find('_') + 1);  // the folder is NN_topic
    facts.file = "labs/" + lab.name + "/" + facts.topic + ".cu";
    // Its steps as --list-steps prints them: "ID<tab>TITLE<tab>BAR", a line each.
    std::ostringstream steps;
    std::streambuf* const console = std::cout.rdbuf(steps.rdbuf());
    lab.listing();
    std::cout.rdbuf(console);
    std::istringstream lines(steps.str());
    for (std::string line; std::getline(lines, line);) facts.steps.push_back(step_from_line(line));
  }
  if (lab.counters != nullptr) facts.metrics = profile::metrics_of(lab.counters());
  facts.columns = columns_line();
  if (options.seed_given && lab.drawn_sizes != nullptr) facts.sizes = lab.drawn_sizes();
  std::cout << facts_text(facts);
  return 0;
}

}  // namespace

int answer_without_gpu(const Options& options) {
  switch (options.mode) {
    case Mode::kDescribe: return describe(options);
    case Mode::kListSteps:
      // With --bars, the profile's bars: what grading on that GPU asks (./workbook list passes it).
      if (!options.bars_path.empty()) session().calibrated_bars = read_bars_profile(options.bars_path).bars;
      if (registered::lab().listing != nullptr) registered::lab().listing();
      return 0;
    case Mode::kDrawnSizes:
      session().seed = options.seed;
      session().correctness_only = options.correctness_only;
      if (registered::lab().drawn_sizes != nullptr)
        std::cout << registered::lab().name << ": " << registered::lab().drawn_sizes() << '\n';
      return 0;
    case Mode::kProfileReport: return print_profile_report(options.report);
    case Mode::kBenchColumns: std::cout << columns_line() << '\n'; return 0;
    default: throw std::logic_error("answer_without_gpu: a mode that measures on a GPU");
  }
}

}  // namespace workbook
