// What every command of the runner shares: the checkout it works in (its folders, its labs and
// their steps, this machine's GPU and bars profile), the user's words, and how it says things and
// fails. Plain C++ on POSIX; it links no student code.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/exit_codes.h"
#include "protocol/rows.h"

namespace workbook::runner {

// Exit codes as ./workbook documents them (every process's: exit_codes.h).
inline constexpr int kExitFailed = exit_code::kFailed, kExitUsage = exit_code::kUsage,
                     kExitMissingTools = exit_code::kMissingTools, kExitNoGpu = exit_code::kNoGpu;

// An error that ends the run with `code`, said as the front door says its errors.
struct Fatal : std::runtime_error {
  int code;
  Fatal(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

void say(const std::string& text);  // "[workbook] text", at once

// The number a step's id or a lab's name starts with ("04.1", "04_sgemm": "04"): a step is its lab's
// by that number alone.
inline std::string lab_number(const std::string& step_or_lab) { return step_or_lab.substr(0, 2); }

struct Checkout;
// One command's part of the usage table, grader/runner/usage.txt (the one ./workbook --help prints):
// "usage: ./workbook grade [LAB|STEP...]" and its lines, or "" where the table has no such command.
std::string usage_of(const Checkout& checkout, const std::string& command);
// A word of a command's that is no option of it: said, with the command's usage after it.
Fatal unknown_option(const Checkout& checkout, const std::string& command, const std::string& word);

std::string read_text(const std::string& path);
std::vector<std::string> lines_of(const std::string& text);  // its lines, empty ones left out

// The workbook's folder as ./workbook hands it over: its build preset, where it builds, where its
// results go, and the folder the user ran the command from (their file names are relative to it).
struct Checkout {
  std::string root, preset, build_dir, results, caller;

  std::string from_caller(const std::string& path) const;  // a user's file name, as a path from anywhere
  std::string shown(const std::string& path) const;        // "results/grade.log" for a path under root
  std::vector<std::string> labs() const;                   // labs/NN_topic folders, in order
  // "02", "02_memory" -> "02_memory"; anything else is a usage error that lists the labs, with a
  // hint for a lab or step written without its leading zero ("2", "4.1").
  std::string lab_named(const std::string& word) const;
  std::string topic_of(const std::string& lab) const;    // the folder's name after NN_: "memory"
  std::string topic_file(const std::string& lab) const;  // labs/NN_topic/<topic>.cu
  // The lab's step ids, "04.1" ..., as its judge describes them (built first where it is not: a judge
  // links no implementation, so it builds whatever the student's file holds).
  std::vector<std::string> step_ids(const std::string& lab) const;
  // The built grader of `lab` for `kind` (starter, solution, submission) in `build_dir`.
  static std::string grader(const std::string& build_dir, const std::string& lab, const std::string& kind);
  // The judge of `lab` in `build_dir`, built or not.
  static std::string judge(const std::string& build_dir, const std::string& lab);
};

// A lab's steps, as its grader lists them from the steps table without touching the GPU.
// A step of a lab (protocol/rows.h: its lab, id and title) with its bar, ">= 6x, >= 8% of cuBLAS SGEMM".
struct StepInfo : LabStep {
  std::string bar;
};
// What the runner knows of a lab: one answer of its grader or judge to --describe, which reads it
// from the lab's registration (its steps table, its profile's counters, its benchmark) with no GPU.
// The answer also names the lab's topic, file and benchmark columns, for a reader and the front
// door's check; the runner takes the topic and file from the folder's name (Checkout::topic_of), by
// the same rule, and keeps only what it reads.
struct LabDescription {
  std::string lab;  // "02_memory"
  std::vector<StepInfo> steps;
  std::string metrics;  // the ncu metrics its profile reads, comma-separated
  std::string sizes;    // with --seed among `arguments`: the correctness sizes drawn from it
};
// `arguments`: the grader's --bars (when a profile decides the bars: GpuBars below), --seed and
// --correctness-only, each as the grading will pass it. Asked once a command for the same words of
// the same build of `grader`: the answer is kept for the rest of the process.
const LabDescription& describe_lab(const std::string& grader, const std::vector<std::string>& arguments = {});
// The lab's steps, as its judge describes them (Checkout::step_ids: built first where it is not).
std::vector<StepInfo> lab_steps(const Checkout& checkout, const std::string& lab,
                                const std::vector<std::string>& arguments = {});
std::vector<StepInfo> list_steps(const std::string& grader, const std::vector<std::string>& bars = {});
// The lab of step `id` ("04.1"), which must be one of its steps: a usage error that lists them.
std::string lab_of_step(const Checkout& checkout, const std::string& id,
                        const std::vector<std::string>& arguments = {});
// A tool of the CUDA toolkit (compute-sanitizer, ncu, cuobjdump): on PATH, else beside nvcc; "" when neither.
std::string toolkit_tool(const std::string& name);

// This machine's GPU as nvidia-smi names it ("" for none), and the bars profile kept for it.
std::string gpu_name();
std::string profile_of_gpu(const Checkout& checkout, const std::string& gpu);

// The one decision of which bars this machine's GPU is held to: its calibrated profile in
// classroom/bars/ where there is one, else the built-in ones (the H100's). `grade` and `list` both
// ask it, so that the bars listed are the bars graded.
struct GpuBars {
  std::vector<std::string> arguments;  // the graders' --bars, or none for the built-in bars
  std::string description;             // "this GPU's profile, classroom/bars/... (NVIDIA H200, ...)"
  std::string note;                    // said before grading, when the GPU has no profile
};
GpuBars bars_of_this_gpu(const Checkout& checkout);
// Stops with 77 and the front door's words when `grader` finds no CUDA GPU; `doing` names the
// command's work ("grading", "benchmarking", "calibrating").
void require_gpu(const std::string& grader, const std::string& doing = "grading");
// The same before anything is built, for a command that only measures (calibrate), asked of a
// grader already built in `build_dir` (any lab's starter's: setup builds them), else of nvidia-smi.
void require_gpu_before_building(const std::string& build_dir, const std::string& doing);

// The user's words after the command, read as "--seed 7" or "--seed=7" alike.
class Words {
 public:
  explicit Words(std::vector<std::string> words) : words_(std::move(words)) {}
  // The next word; for "--option=value", the option, its value kept for value().
  bool next(std::string& word);
  // The value of the option just read: "--seed=7"'s, or the word after "--seed".
  std::string value(const std::string& what);  // what: "a value", "a file" (for "--seed needs a value")

 private:
  std::vector<std::string> words_;
  std::size_t at_ = 0;
  std::string option_;
  std::optional<std::string> inline_value_;
};

// A seed the graders take: a whole number from 0 to 2^64 - 1, or a usage error that says so.
std::string checked_seed(const std::string& text, const std::string& flag = "--seed");
// A seed drawn from the machine's entropy, for a run that was not given one.
std::string drawn_seed();

}  // namespace workbook::runner
