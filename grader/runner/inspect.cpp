// `./workbook inspect NN[.k]`: what the compiler made of a student's kernels, before any grading.
// The handouts ask a student to read their registers, spills and machine code (04.8's SASS, 05.3's
// registers, 05.5's cap of 64): this builds the lab as grade does (the #include audit first), then
// compiles the student's file once more with the build's own command, asking ptxas for each kernel's
// resources (--resource-usage), and shows them kernel by kernel with the warps per SM its registers
// allow. The machine code is dumped where the toolkit has cuobjdump, else its command line is given.
// No GPU is needed: the occupancy a step's launches reached at the step's shape is the scorecard's.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "runner/build.h"
#include "runner/built.h"
#include "runner/commands.h"
#include "runner/process.h"

namespace workbook::runner {

namespace fs = std::filesystem;

namespace {

// One JSON string at `at` (its opening quote), unescaped; `at` is left past its closing quote.
std::string json_string(const std::string& text, std::size_t& at) {
  std::string value;
  for (++at; at < text.size() && text[at] != '"'; ++at) {
    if (text[at] == '\\' && at + 1 < text.size()) {
      const char escaped = text[++at];
      value += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
    } else {
      value += text[at];
    }
  }
  ++at;
  return value;
}

// A command line as CMake writes one (words between spaces, "..." and \ quoting) into its words.
std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      any = true;
    } else if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

struct CompileCommand {
  std::string folder;
  std::string command;
};

// Where a compile command writes, its folder's path to the word after -o; "" where it names none.
fs::path output_of(const CompileCommand& compile) {
  const std::vector<std::string> words = words_of(compile.command);
  const auto o = std::find(words.begin(), words.end(), "-o");
  if (o == words.end() || o + 1 == words.end()) return {};
  return fs::weakly_canonical(fs::path(compile.folder) / *(o + 1));
}

// The build's command that compiles `file` into `output`, from CMake's compile_commands.json (each
// entry: directory, command, file, in that order). A student's file has several (its library, its
// GPU half, its host half: cmake/StudentFile.cmake): the one that writes `output` is the one asked for.
CompileCommand compile_command_of(const std::string& build_dir, const std::string& file, const std::string& output) {
  const std::string text = read_text(build_dir + "/compile_commands.json");
  CompileCommand found, entry;
  for (std::size_t at = 0; (at = text.find('"', at)) != std::string::npos;) {
    const std::string key = json_string(text, at);
    const std::size_t value = text.find('"', text.find(':', at));
    if (value == std::string::npos) break;
    at = value;
    const std::string content = json_string(text, at);
    if (key == "directory") entry = {content, ""};
    else if (key == "command") entry.command = content;
    else if (key == "file" && content == file && output_of(entry) == fs::weakly_canonical(output)) found = entry;
  }
  if (found.command.empty())
    throw Fatal(kExitFailed, "the build in " + build_dir + " has no compile command for " + file + " into " + output +
                                 ": run ./workbook setup, then inspect again");
  return found;
}

struct KernelResources {
  std::string name;  // demangled, without the lab's namespaces
  std::string architecture;
  int registers = 0, barriers = 0;
  long stack = 0, spill_stores = 0, spill_loads = 0, shared = 0;
};

// A kernel's name as the student wrote it. (The audit's demangled() does the first half; the runner
// includes nothing of audit/, the judge's side of the wall.)
std::string readable(const std::string& mangled, const std::string& lab_namespace) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  for (const std::string& noise : {std::string("(anonymous namespace)::"), lab_namespace + "::"})
    for (std::size_t at; (at = name.find(noise)) != std::string::npos;) name.erase(at, noise.size());
  return name;
}

// ptxas's lines (--resource-usage) kernel by kernel: "Compiling entry function 'K' for 'sm_90'", its
// stack frame and spills, "Used R registers, used B barriers, S bytes smem".
std::vector<KernelResources> resources_in(const std::string& output, const std::string& lab_namespace) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?)");
  std::vector<KernelResources> kernels;
  std::istringstream lines(output);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, m, entry)) {
      kernels.push_back({readable(m[1], lab_namespace), m[2]});
    } else if (kernels.empty()) {
      continue;
    } else if (std::regex_search(line, m, frame)) {
      kernels.back().stack = std::stol(m[1]);
      kernels.back().spill_stores = std::stol(m[2]);
      kernels.back().spill_loads = std::stol(m[3]);
    } else if (std::regex_search(line, m, used)) {
      kernels.back().registers = std::stoi(m[1]);
      if (m[2].matched) kernels.back().barriers = std::stoi(m[2]);
      if (m[3].matched) kernels.back().shared = std::stol(m[3]);
    }
  }
  return kernels;
}

// The warps of one SM that a kernel's registers leave room for, on compute capability 8.0 and 9.0:
// 65,536 registers an SM, given to a warp in units of 256, and at most 64 warps (lab 01.3's rules).
int warps_by_registers(int registers) {
  if (registers <= 0) return 64;
  const int per_warp = (registers * 32 + 255) / 256 * 256;
  return std::min(64, 65536 / per_warp);
}

// The lab inspect's words name: one lab or one of its steps.
std::string lab_to_inspect(const Checkout& checkout, Words words) {
  std::string lab;
  for (std::string word; words.next(word);) {
    if (word.starts_with("-")) throw unknown_option(checkout, "inspect", word);
    if (!lab.empty()) throw Fatal(kExitUsage, "inspect takes one lab or step, e.g. ./workbook inspect 04 or 04.8");
    lab = word.find('.') == std::string::npos ? checkout.lab_named(word) : lab_of_step(checkout, word);
  }
  if (lab.empty()) throw Fatal(kExitUsage, "inspect needs a lab or a step, e.g. ./workbook inspect 04_sgemm or 04.8");
  return lab;
}

// Built as grade builds it: the #include audit first, so that nothing is compiled that grade refuses.
void build_as_grade_does(const Checkout& checkout, const std::string& lab) {
  const Build build(checkout, checkout.build_dir, checkout.results);
  std::ofstream(build.log(), std::ios::trunc).close();
  const LabsBuilt built = build.graders({lab}, "starter", "", true);
  if (const auto refused = built.refused.find(lab); refused != built.refused.end())
    throw Fatal(kExitFailed, checkout.topic_file(lab) + " is refused before it is compiled:\n" + refused->second);
  if (std::find(built.broken.begin(), built.broken.end(), lab) != built.broken.end()) {
    build.show_errors();
    throw Fatal(kExitFailed,
                checkout.topic_file(lab) + " does not compile; the whole log is in " + checkout.shown(build.log()));
  }
}

// The build's own compile of the file's GPU code (what the judge loads), once more, into `object`,
// with ptxas's resources: its output (also left in FOLDER/LAB.ptxas.txt), and the compile's command
// as the build ran it.
std::string compile_with_resource_usage(const Checkout& checkout, const std::string& lab, const std::string& folder,
                                        const std::string& object, std::vector<std::string>& command) {
  const CompileCommand compile = compile_command_of(checkout.build_dir, checkout.root + "/" + checkout.topic_file(lab),
                                                    built(checkout.build_dir, lab, "starter").device_code);
  std::vector<std::string> argv = {checkout.root + "/grader/runner/limited.sh", "compile"};
  command = words_of(compile.command);
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (command[i].starts_with("--time=")) continue;  // the build's record of its passes, not this compile's
    if (command[i] == "-o" && i + 1 < command.size()) {
      ++i;
      continue;
    }
    argv.push_back(command[i]);
  }
  for (const std::string extra : {"--resource-usage", "-o", object.c_str()}) argv.push_back(extra);
  say("compiling " + checkout.topic_file(lab) + " with the build's command and ptxas's resource usage");
  const Outcome compiled = run(Command(argv, {}, compile.folder));
  std::ofstream(folder + "/" + lab + ".ptxas.txt") << compiled.output;
  if (compiled.status != 0) throw Fatal(kExitFailed, "the compile failed:\n" + compiled.output);
  return compiled.output;
}

// One row per kernel: its registers, spills, stack, static shared memory and the warps its
// registers allow on an SM.
void print_resources(const std::vector<KernelResources>& kernels, const std::string& lab) {
  std::size_t width = 6;
  for (const KernelResources& k : kernels) width = std::max(width, k.name.size());
  std::cout << std::left << std::setw(static_cast<int>(width)) << "kernel"
            << "  arch     regs  spilled (st/ld B)  stack B  "
            << "static smem B  warps/SM its registers allow\n";
  for (const KernelResources& k : kernels) {
    const int warps = warps_by_registers(k.registers);
    std::ostringstream spilled, allow;
    spilled << k.spill_stores << " / " << k.spill_loads;
    allow << warps << " of 64 (" << std::fixed << std::setprecision(2) << 100.0 * warps / 64 << "%)";
    std::cout << std::left << std::setw(static_cast<int>(width)) << k.name << "  " << std::setw(7) << k.architecture
              << std::right << std::setw(6) << k.registers << "  " << std::setw(17) << spilled.str() << "  "
              << std::setw(7) << k.stack << "  " << std::setw(13) << k.shared << "  " << allow.str()
              << (k.spill_stores + k.spill_loads > 0 ? "  SPILLS" : "") << '\n';
  }
  std::cout
      << "Registers allow at most that many warps on an SM; shared memory (static here, plus what your launch asks) "
         "and\n"
         "the block's size may allow fewer. The occupancy each launch reached at the step's shape is the scorecard's\n"
         "occ. column, and results/grade.log's, after ./workbook grade "
      << lab.substr(0, 2) << ".k\n";
}

// The machine code, kernel by kernel, where the toolkit has cuobjdump (beside nvcc, or on PATH).
void dump_machine_code(const Checkout& checkout, const std::string& lab, const std::string& folder,
                       const std::string& object, const std::vector<std::string>& command) {
  std::string cuobjdump = toolkit_tool("cuobjdump");
  if (cuobjdump.empty() && !command.empty() && fs::exists(fs::path(command.front()).parent_path() / "cuobjdump"))
    cuobjdump = (fs::path(command.front()).parent_path() / "cuobjdump").string();
  const std::string sass = folder + "/" + lab + ".sass";
  if (cuobjdump.empty()) {
    say("SASS: this toolkit has no cuobjdump; where one has it: cuobjdump -sass " + checkout.shown(object) +
        " (the build's architectures; add -fun NAME for one kernel)");
    return;
  }
  const Outcome dumped = run(Command({cuobjdump, "-sass", object}, {}, "", sass));
  say(dumped.status == 0 ? "SASS, kernel by kernel: " + checkout.shown(sass) + " (grep -E 'LDG|STG|LDS|FFMA' in it)"
                         : "cuobjdump -sass failed; its output: " + checkout.shown(sass));
}

}  // namespace

int inspect(const Checkout& checkout, Words words) {
  const std::string lab = lab_to_inspect(checkout, std::move(words));
  build_as_grade_does(checkout, lab);
  const std::string folder = checkout.results + "/inspect";
  fs::create_directories(folder);
  const std::string object = fs::absolute(folder + "/" + lab + ".o").string();
  std::vector<std::string> command;
  const std::string ptxas = compile_with_resource_usage(checkout, lab, folder, object, command);

  // The newest architecture's rows: the code a Hopper runs, or the newest the build compiles to.
  std::vector<KernelResources> kernels = resources_in(ptxas, lab.substr(3) + "_lab");
  const auto generation = [](const std::string& architecture) { return std::atoi(architecture.c_str() + 3); };
  std::string newest;
  for (const KernelResources& k : kernels)
    if (newest.empty() || generation(k.architecture) > generation(newest)) newest = k.architecture;
  std::erase_if(kernels, [&](const KernelResources& k) { return k.architecture != newest; });
  if (kernels.empty()) {
    say(checkout.topic_file(lab) + " has no kernel yet");
    return 0;
  }
  print_resources(kernels, lab);
  say("for " + newest + "; ptxas's own lines, every architecture the build compiles to: " +
      checkout.shown(folder + "/" + lab + ".ptxas.txt"));
  dump_machine_code(checkout, lab, folder, object, command);
  return 0;
}

}  // namespace workbook::runner
