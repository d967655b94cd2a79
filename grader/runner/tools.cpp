// The commands around grading: `list` (the labs, their steps and bars), `bench` (a lab's sweep on
// the GPU, with its plot) and `calibrate` (this GPU's bars profile, from the reference solutions).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/bars_profile.h"
#include "runner/build.h"
#include "runner/built.h"
#include "runner/commands.h"
#include "runner/process.h"

namespace workbook::runner {

namespace fs = std::filesystem;

namespace {

// The marker lines of a handout's table of bars (scripts/bar_tables.py writes them).
constexpr std::string_view kBarsBegin = "<!-- bars: written by scripts/bar_tables.py";
constexpr std::string_view kBarsEnd = "<!-- bars: end -->";

// A table row's cells, without the outer bars: "| a | b |" -> {"a", "b"} ("\|" is a cell's own |).
std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += '|';
      ++i;
      continue;
    }
    if (row[i] != '|') {
      cell += row[i];
      continue;
    }
    const std::size_t first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    cell.clear();
  }
  return cells;
}

// A bar as the handouts write it, as the graders list it: "≥ 1.76×" -> ">= 1.76x", 4096³ -> 4096^3.
std::string as_listed(std::string bar) {
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"≥", ">="}, {"≤", "<="}, {"×", "x"}, {"³", "^3"}})
    for (std::size_t at; (at = bar.find(from)) != std::string::npos;) bar.replace(at, from.size(), to);
  return bar;
}

// `lab`'s steps and bars from its handout's table of bars, in the column of the profile grading
// uses here (its file's name in the column's title), else the built-in one; empty when the handout
// has no such table. The table is the graders' own list (scripts/bar_tables.py writes it from their
// --list-steps, and a test of the suite fails where they differ), so nothing needs building.
std::vector<StepInfo> steps_from_handout(const Checkout& checkout, const std::string& lab, const GpuBars& bars) {
  std::istringstream handout(read_text(checkout.root + "/labs/" + lab + "/README.md"));
  std::string profile;
  for (const std::string& argument : bars.arguments)
    if (argument.starts_with("--bars=")) profile = fs::path(argument.substr(7)).filename().string();
  std::vector<StepInfo> steps;
  std::size_t column = 1;
  bool inside = false, header = true;
  for (std::string line; std::getline(handout, line);) {
    if (line.starts_with(kBarsBegin)) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.starts_with(kBarsEnd)) return steps;
    if (!line.starts_with("|")) break;
    const std::vector<std::string> cells = cells_of(line);
    if (header) {
      for (std::size_t c = 2; c < cells.size(); ++c)
        if (!profile.empty() && cells[c].find(profile) != std::string::npos) column = c;
      header = false;
    } else if (cells.size() > column && !cells[0].starts_with("---")) {
      const std::size_t space = cells[0].find(' ');  // the table's step cell: "ID TITLE"
      steps.push_back({{lab, cells[0].substr(0, space), space == std::string::npos ? "" : cells[0].substr(space + 1)},
                       as_listed(cells[column])});
    }
  }
  return {};  // no table, or one without its end: the judges say
}

}  // namespace

int list(const Checkout& checkout, Words words) {
  for (std::string word; words.next(word);) throw Fatal(kExitUsage, "list takes no arguments");
  const GpuBars bars = bars_of_this_gpu(checkout);  // the bars grade holds this GPU to
  // Each handout's table of bars first; a lab without one is listed by its judge, built for it
  // (grade builds it anyway, and it links no implementation).
  std::vector<std::pair<std::string, std::vector<StepInfo>>> labs;
  std::vector<std::string> unlisted;
  for (const std::string& lab : checkout.labs()) {
    labs.emplace_back(lab, steps_from_handout(checkout, lab, bars));
    if (labs.back().second.empty()) unlisted.push_back(lab);
  }
  if (!unlisted.empty()) {
    const Build build(checkout, checkout.build_dir, checkout.results);
    std::ofstream(build.log(), std::ios::trunc).close();
    build.judges(unlisted);
  }
  // Each column as wide as its longest entry, so that a long title never runs into its bar.
  std::size_t id_width = 0, title_width = 0;
  for (auto& [lab, steps] : labs) {
    if (steps.empty()) steps = list_steps(Checkout::judge(checkout.build_dir, lab), bars.arguments);
    for (const StepInfo& step : steps) {
      id_width = std::max(id_width, step.id.size());
      title_width = std::max(title_width, step.title.size());
    }
  }
  for (const auto& [lab, steps] : labs) {
    std::cout << lab << " (labs/" << lab << "/README.md)\n";
    for (const StepInfo& step : steps)
      std::cout << "  " << std::left << std::setw(static_cast<int>(id_width)) << step.id << "  "
                << std::setw(static_cast<int>(title_width)) << step.title << "  " << step.bar << '\n';
  }
  std::cout << "bars: " << bars.description << '\n';
  std::cout << "grade one lab with ./workbook grade NN, one step with ./workbook grade NN.k\n";
  return 0;
}

int bench(const Checkout& checkout, Words words) {
  std::string lab, kind = "starter";
  for (std::string word; words.next(word);) {
    if (word == "--solution") kind = "solution";
    else if (word.starts_with("-")) throw unknown_option(checkout, "bench", word);
    else if (!lab.empty()) throw Fatal(kExitUsage, "bench takes one lab");
    else lab = checkout.lab_named(word);
  }
  if (lab.empty()) throw Fatal(kExitUsage, "bench needs a lab, e.g. ./workbook bench 02_memory");
  if (kind == "solution" && !fs::is_directory(checkout.root + "/solutions"))
    throw Fatal(kExitUsage, "--solution: this copy of the workbook has no solutions/");
  const Build build(checkout, checkout.build_dir, checkout.results);
  std::ofstream(build.log(), std::ios::trunc).close();
  const std::string target = built(checkout.build_dir, lab, kind).grader_target;
  if (!build.targets({target})) {
    build.show_errors();
    throw Fatal(kExitFailed, target + " did not build; the whole log is in " + checkout.shown(build.log()));
  }
  const std::string grader = Checkout::grader(checkout.build_dir, lab, kind);
  require_gpu(grader, "benchmarking");
  const std::string csv = checkout.results + "/" + lab + "-" + kind + ".csv",
                    png = checkout.results + "/" + lab + "-" + kind + ".png";
  if (run_lines({{grader, "--bench=" + csv}}, [](const std::string& line) { std::cout << line << std::endl; }) != 0)
    throw Fatal(kExitFailed, "the benchmark failed (its output is above)");
  // Each lab draws its own plot (grader/labs/NN_topic/plot.py), with matplotlib.
  const std::string plot = checkout.root + "/grader/labs/" + lab + "/plot.py";
  if (run({{"python3", "-c", "import matplotlib"}}).status == 0) {
    const Outcome plotted = run({{"python3", plot, csv, png}});
    std::cout << plotted.output;
    if (plotted.status != 0) throw Fatal(kExitFailed, "the plot failed: " + checkout.shown(plot));
    say("plot: " + checkout.shown(png));
  } else {
    say("CSV: " + checkout.shown(csv) +
        ". For the plot install matplotlib (sudo apt-get install python3-matplotlib) and run:");
    say("  python3 " + checkout.shown(plot) + " " + checkout.shown(csv) + " " + checkout.shown(png));
  }
  return 0;
}

// Each lab's solution measured on this GPU (skeleton.h's calibrate<Lab>) into its bars profile,
// classroom/bars/<gpu>.bars. A profile's lines for other labs are kept; the labs stay in order.
int calibrate(const Checkout& checkout, Words words) {
  std::vector<std::string> labs;
  std::string seed = "2026";
  for (std::string word; words.next(word);) {
    if (word == "--seed") seed = checked_seed(words.value("a value"));
    else if (word.starts_with("-")) throw unknown_option(checkout, "calibrate", word);
    else if (std::find(labs.begin(), labs.end(), checkout.lab_named(word)) == labs.end())
      labs.push_back(checkout.lab_named(word));
  }
  if (!fs::is_directory(checkout.root + "/solutions"))
    throw Fatal(kExitUsage, "calibrate measures the reference solutions: this copy of the workbook has no solutions/");
  if (labs.empty()) labs = checkout.labs();
  require_gpu_before_building(checkout.build_dir, "calibrate");  // a minute of building for nothing, otherwise
  const Build build(checkout, checkout.build_dir, checkout.results);
  const LabsBuilt built = build.graders(labs, "solution");
  if (!built.broken.empty() || !built.miscompiled.empty())
    throw Fatal(kExitFailed, "a solution did not compile to this build's GPU code: see " + checkout.shown(build.log()) +
                                 " and the lines above");
  const std::string& build_dir = checkout.build_dir;
  require_gpu(Checkout::grader(build_dir, labs.front(), "solution"), "calibrating");
  const std::string gpu = gpu_name(), profile = profile_of_gpu(checkout, gpu);
  const std::string draft = checkout.results + "/calibration.bars";
  {
    std::ofstream out(draft);
    out << "# Bars for " << gpu << ", measured by ./workbook calibrate (each lab's date and seed under its name).\n"
        << "# STEP INDEX MIN_SPEEDUP MIN_PERCENT_OF_REFERENCE: requirement INDEX of the step's bar (in the order\n"
        << "# ./workbook list shows them). Each admits the step's witness (the textbook form of its idea) by\n"
        << "# 5% and its reference solution, and rejects the solution of the step before it, each with 2% for\n"
        << "# noise, midway between the two as measured here (a vendor's number: 5% under the solution). Each\n"
        << "# comment gives the three. \"reference KEY VALUE\": what a measurement step (lab 01's latencies) is\n"
        << "# compared with, measured here by the grader's own kernels.\n";
    // Calibrating one lab replaces that lab's lines only: each lab's lines follow a "# NN_topic" line.
    bool keep = false;
    for (const std::string& line : lines_of(fs::exists(profile) ? read_text(profile) : "")) {
      if (begins_lab(line)) keep = std::find(labs.begin(), labs.end(), line.substr(2)) == labs.end();
      if (keep) out << line << '\n';
    }
  }
  // Every measurement goes to results/calibrate.log; a reference solution that fails on this GPU
  // stops the calibration with no profile written (the grader exits non-zero and says why).
  const std::string log = checkout.results + "/calibrate.log";
  std::ofstream log_out(log, std::ios::trunc);
  for (const std::string& lab : labs) {
    say("calibrating " + lab + " on " + gpu + " (each step, its witness and the step before it, at the step's bar)");
    const Outcome measured =
        run({{Checkout::grader(build_dir, lab, "solution"), "--calibrate=" + draft, "--seed=" + seed}});
    log_out << measured.output << std::flush;
    for (const std::string& line : lines_of(measured.output))
      if (line.rfind("[workbook] ", 0) == 0) std::cout << line << '\n';
    if (measured.status != 0) {
      fs::remove(draft);
      throw Fatal(kExitFailed, "calibrating " + lab + " failed (exit code " + std::to_string(measured.status) +
                                   "): no profile was written. Every measurement is in " + checkout.shown(log));
    }
  }
  const std::string calibrated = in_lab_order(read_text(draft));  // the kept labs and those measured now, in order
  std::ofstream(draft, std::ios::trunc) << calibrated;
  fs::create_directories(fs::path(profile).parent_path());
  fs::rename(draft, profile);
  say("profile: " + checkout.shown(profile) + ". Review it, then commit it: grade uses it on this GPU from now on.");
  // The handouts restate every profile's bars in a table written from the graders (a test checks it).
  say("then rewrite the handouts' tables of bars: python3 scripts/bar_tables.py . " +
      checkout.shown(checkout.build_dir) + " --write");
  return 0;
}

}  // namespace workbook::runner
