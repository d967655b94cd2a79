#include "runner/checkout.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include "protocol/bars_profile.h"
#include "protocol/lab_facts.h"
#include "runner/build.h"
#include "runner/built.h"
#include "runner/process.h"

namespace workbook::runner {

namespace fs = std::filesystem;

void say(const std::string& text) { std::cout << "[workbook] " << text << std::endl; }

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

std::string Checkout::from_caller(const std::string& path) const {
  return path.empty() || path.front() == '/' ? path : caller + "/" + path;
}

std::string Checkout::shown(const std::string& path) const {
  return path.rfind(root + "/", 0) == 0 ? path.substr(root.size() + 1) : path;
}

std::vector<std::string> Checkout::labs() const {
  static const std::regex lab_name("[0-9]{2}_.+");
  std::vector<std::string> labs;
  for (const fs::directory_entry& entry : fs::directory_iterator(root + "/labs"))
    if (entry.is_directory() && std::regex_match(entry.path().filename().string(), lab_name))
      labs.push_back(entry.path().filename().string());
  std::sort(labs.begin(), labs.end());
  return labs;
}

std::string Checkout::lab_named(const std::string& word) const {
  std::string all;
  for (const std::string& lab : labs()) {
    if (word == lab || word == lab_number(lab)) return lab;
    all += lab + " ";
  }
  // "4" or "4.1" for lab 04: the hint only when there is such a lab ("7" names none).
  std::string hint;
  if (std::regex_match(word, std::regex("[0-9]")) || std::regex_match(word, std::regex("[0-9]\\.[0-9]+")))
    for (const std::string& lab : labs())
      if (lab[0] == '0' && lab[1] == word[0]) hint = std::string(" (did you mean 0").append(word).append("?)");
  throw Fatal(kExitUsage, "no lab '" + word + "'" + hint + ". The labs are: " + all);
}

std::string Checkout::topic_of(const std::string& lab) const { return lab.substr(lab.find('_') + 1); }

std::string Checkout::topic_file(const std::string& lab) const { return "labs/" + lab + "/" + topic_of(lab) + ".cu"; }

std::vector<std::string> Checkout::step_ids(const std::string& lab) const {
  std::vector<std::string> ids;
  for (const StepInfo& step : lab_steps(*this, lab)) ids.push_back(step.id);
  return ids;
}

std::string Checkout::grader(const std::string& build_dir, const std::string& lab, const std::string& kind) {
  const std::string path = built(build_dir, lab, kind).grader;
  if (access(path.c_str(), X_OK) != 0) throw Fatal(kExitFailed, "the grader " + path + " was not built");
  return path;
}

std::string Checkout::judge(const std::string& build_dir, const std::string& lab) {
  return built(build_dir, lab, "starter").judge;  // every build has the starter, and one judge a lab
}

const LabDescription& describe_lab(const std::string& grader, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {grader, "--describe"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  // Asked once a command for the same words of the same program (a step's id is checked, then the
  // grading reads the sizes): the program's time of change is part of the question, so that a judge
  // the build has linked again since is asked again.
  struct stat program {};
  std::string question = stat(grader.c_str(), &program) == 0
                             ? std::to_string(program.st_mtim.tv_sec) + "." + std::to_string(program.st_mtim.tv_nsec)
                             : "";
  for (const std::string& word : argv) question += '\0' + word;
  static std::map<std::string, LabDescription> answered;
  if (const auto known = answered.find(question); known != answered.end()) return known->second;
  const Outcome said = run({argv});
  if (said.status != 0) throw Fatal(kExitFailed, grader + " could not describe its lab: " + said.output);
  LabFacts facts;
  try {
    facts = facts_from_text(said.output);
  } catch (const std::invalid_argument&) {
    throw Fatal(kExitFailed, grader + " described no lab and no step: " + said.output);
  }
  LabDescription lab{facts.lab, {}, facts.metrics, facts.sizes};
  for (const StepFacts& step : facts.steps) lab.steps.push_back({{facts.lab, step.id, step.title}, step.bar});
  return answered[question] = lab;
}

std::vector<StepInfo> lab_steps(const Checkout& checkout, const std::string& lab,
                                const std::vector<std::string>& arguments) {
  const std::string judge = Checkout::judge(checkout.build_dir, lab);
  if (access(judge.c_str(), X_OK) != 0) {
    say("building " + lab + "'s judge, which describes its steps");
    Build(checkout, checkout.build_dir, checkout.results).judges({lab});
  }
  return describe_lab(judge, arguments).steps;
}

std::vector<StepInfo> list_steps(const std::string& grader, const std::vector<std::string>& bars) {
  return describe_lab(grader, bars).steps;
}

std::string gpu_name() {
  if (!on_path("nvidia-smi")) return "";
  const Outcome asked = run({{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}});
  const std::vector<std::string> lines = lines_of(asked.output);
  return asked.status == 0 && !lines.empty() ? lines.front() : "";
}

std::string profile_of_gpu(const Checkout& checkout, const std::string& gpu) {
  return checkout.root + "/classroom/bars/" + bars_profile_file(gpu);
}

GpuBars bars_of_this_gpu(const Checkout& checkout) {
  const std::string gpu = gpu_name(), profile = gpu.empty() ? "" : profile_of_gpu(checkout, gpu);
  if (!profile.empty() && std::filesystem::exists(profile))
    return {{"--bars=" + profile},
            "this GPU's profile, " + checkout.shown(profile) + " (" + gpu + ", written by ./workbook calibrate)",
            ""};
  if (gpu.empty() || gpu.find("H100") != std::string::npos) return {{}, "the built-in ones, set on an H100", ""};
  return {{},
          "the built-in ones, set on an H100: no profile for " + gpu + " in classroom/bars/",
          "no profile for " + gpu +
              " in classroom/bars/: grading against the H100's bars (./workbook calibrate writes one)"};
}

void require_gpu(const std::string& grader, const std::string& doing) {
  if (run({{grader, "--gpu-check"}}).status == 0) return;
  say("everything is built, but " + doing + " needs a CUDA GPU and none is visible here.");
  say("run the same command on a machine with an NVIDIA GPU (compute capability 8.0 or newer).");
  throw Fatal(kExitNoGpu, "");
}

void require_gpu_before_building(const std::string& build_dir, const std::string& doing) {
  std::error_code ignored;
  for (const auto& lab : std::filesystem::directory_iterator(build_dir + "/labs", ignored)) {
    std::string grader;
    try {
      grader = built(build_dir, lab.path().filename().string(), "starter").grader;
    } catch (const Fatal&) {  // not a lab's folder, or not configured yet
      continue;
    }
    if (access(grader.c_str(), X_OK) != 0) continue;
    if (run({{grader, "--gpu-check"}}).status == 0) return;
    break;
  }
  if (on_path("nvidia-smi") && !gpu_name().empty()) return;
  say(doing + " measures this machine's GPU, and none is visible here: nothing was built.");
  say("run the same command on a machine with an NVIDIA GPU (compute capability 8.0 or newer).");
  throw Fatal(kExitNoGpu, "");
}

bool Words::next(std::string& word) {
  if (inline_value_) throw Fatal(kExitUsage, option_ + " takes no value");
  if (at_ == words_.size()) return false;
  word = words_[at_++];
  const std::size_t equals = word.find('=');
  if (word.rfind("--", 0) == 0 && equals != std::string::npos) {
    inline_value_ = word.substr(equals + 1);
    word.resize(equals);
  }
  option_ = word;
  return true;
}

std::string Words::value(const std::string& what) {
  if (inline_value_) {
    std::string v = *inline_value_;
    inline_value_.reset();
    return v;
  }
  if (at_ == words_.size()) throw Fatal(kExitUsage, option_ + " needs " + what);
  return words_[at_++];
}

std::string checked_seed(const std::string& text, const std::string& flag) {
  std::size_t used = 0;
  try {
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw Fatal(kExitUsage, flag + " takes a whole number from 0 to 18446744073709551615, not '" + text + "'");
  return std::to_string(std::stoull(text));
}

std::string drawn_seed() {
  std::ifstream entropy("/dev/urandom", std::ios::binary);
  std::uint32_t drawn = 0;
  entropy.read(reinterpret_cast<char*>(&drawn), sizeof drawn);
  return std::to_string(drawn);
}

// A tool of the CUDA toolkit (compute-sanitizer, ncu): on PATH, else beside nvcc; "" when neither.
std::string toolkit_tool(const std::string& name) {
  if (on_path(name)) return path_of(name);
  const std::string nvcc = path_of("nvcc");
  return nvcc.empty() ? "" : path_of(fs::path(nvcc).parent_path().string() + "/" + name);
}

// The lab of step `id` ("04.1"), which must be one of its steps: a usage error that lists them.
std::string usage_of(const Checkout& checkout, const std::string& command) {
  // A command's entry starts at a line indented by two spaces whose first word is its name, and
  // runs to the next such line or a blank one, as ./workbook's usage_of() reads the same table.
  std::ifstream table(checkout.root + "/grader/runner/usage.txt");
  std::string text, line;
  bool own = false;
  while (std::getline(table, line)) {
    if (line.empty()) own = false;
    else if (line.size() > 2 && line.starts_with("  ") && line[2] != ' ')
      own = line.substr(2, line.find(' ', 2) - 2) == command;
    if (own) text += (text.empty() ? "usage: ./workbook " + line.substr(2) : line) + '\n';
  }
  return text;
}

Fatal unknown_option(const Checkout& checkout, const std::string& command, const std::string& word) {
  const std::string usage = usage_of(checkout, command);
  return Fatal(kExitUsage,
               command + ": unknown option " + word +
                   (usage.empty() ? " (see ./workbook --help)" : "\n\n" + usage.substr(0, usage.size() - 1)));
}

std::string lab_of_step(const Checkout& checkout, const std::string& id, const std::vector<std::string>& arguments) {
  const std::string lab = checkout.lab_named(lab_number(id));
  const std::vector<StepInfo> steps = lab_steps(checkout, lab, arguments);
  if (std::none_of(steps.begin(), steps.end(), [&](const StepInfo& step) { return step.id == id; })) {
    std::string known;
    for (const StepInfo& each : steps) known += each.id + " ";
    throw Fatal(kExitUsage, lab + " has no step " + id + "; its steps are: " + known);
  }
  return lab;
}

}  // namespace workbook::runner
