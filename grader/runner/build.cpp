#include "runner/build.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include "protocol/as_data.h"
#include "runner/built.h"
#include "runner/process.h"

namespace workbook::runner {

namespace fs = std::filesystem;

Build::Build(const Checkout& checkout, std::string build_dir, std::string log_folder)
    : checkout_(checkout), build_dir_(std::move(build_dir)), log_folder_(std::move(log_folder)) {
  fs::create_directories(log_folder_);
  std::error_code no_log_yet;
  ninja_log_from_ = fs::file_size(build_dir_ + "/.ninja_log", no_log_yet);
  if (no_log_yet) ninja_log_from_ = 0;
}

namespace {

// The name an output of the build is said by: its file's, and an object's with the target it was
// compiled for (CMake's CMakeFiles/TARGET.dir/...), as a student's file is compiled for three.
std::string said_name(const std::string& output) {
  const fs::path path(output);
  for (const fs::path& part : path)
    if (const std::string folder = part.string(); folder.size() > 4 && folder.ends_with(".dir"))
      return path.filename().string() + " of " + folder.substr(0, folder.size() - 4);
  return path.filename().string();
}

}  // namespace

std::string Build::where_the_time_went(std::size_t most) const {
  // Each line ninja adds: "start_ms<TAB>end_ms<TAB>mtime<TAB>output<TAB>hash", times since its run began.
  std::ifstream record(build_dir_ + "/.ninja_log");
  if (!record) return "";
  record.seekg(static_cast<std::streamoff>(ninja_log_from_));
  if (!record) return "";  // ninja rewrote its record smaller (it compacts it now and then)
  std::vector<std::pair<double, std::string>> outputs;
  // A custom target's command is recorded once for each of its outputs' names (its folder's path and
  // the absolute one): the same name, start and end said once.
  std::set<std::string> seen;
  for (std::string line; std::getline(record, line);) {
    std::istringstream fields(line);
    std::string start, end, mtime, output;
    if (!std::getline(fields, start, '\t') || !std::getline(fields, end, '\t') || !std::getline(fields, mtime, '\t') ||
        !std::getline(fields, output, '\t') || start.empty() || !std::isdigit(static_cast<unsigned char>(start[0])))
      continue;
    const double seconds = (std::stod(end) - std::stod(start)) / 1000.0;
    const std::string name = said_name(output);
    if (seconds >= 0.1 && seen.insert(start + '\t' + end + '\t' + name).second)  // not ninja's own checks
      outputs.emplace_back(seconds, name);
  }
  std::sort(outputs.begin(), outputs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::ostringstream went;
  went << std::fixed << std::setprecision(1);
  for (std::size_t i = 0; i < outputs.size() && i < most; ++i) {
    const auto& [seconds, name] = outputs[i];
    if (i > 0) went << ", ";
    went << name << ' ' << seconds << " s";
    // A lab's library is archived, then its machine code dumped for the checks that read it (AddLab.cmake).
    if (name.ends_with(".a")) went << " (and its machine code dumped)";
  }
  if (outputs.size() > most) went << " and " << outputs.size() - most << " more";
  return went.str();
}

std::string nvcc_passes(const std::string& table) {
  // nvcc --time's rows, after a row of headings: source file, phase, its inputs, its output, the GPU
  // architecture, the tool, the time, its unit ("ms"). A phase's name is read from the second field,
  // so a source path with a comma in it loses its row rather than misreading one.
  std::vector<std::string> order;                                              // each pass's name, as it first ran
  std::map<std::string, std::vector<std::pair<std::string, double>>> seconds;  // pass -> (architecture, seconds)
  for (const std::string& line : lines_of(read_text(table))) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) {
      const std::size_t first = field.find_first_not_of(' '), last = field.find_last_not_of(' ');
      fields.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
    }
    if (fields.size() != 8 || fields[7] != "ms") continue;
    double ms = 0;
    try {
      ms = std::stod(fields[6]);
    } catch (const std::exception&) {
      continue;
    }
    std::string pass = fields[1], architecture = fields[4];
    if (pass == "nvcc (driver)") continue;  // its own bookkeeping, not a pass
    // A file compiled to PTX alone (a student's host half) has one more row with no name: its PTX
    // read and written again, after cicc.
    if (pass.empty()) pass = "a pass nvcc does not name";
    // Once for each architecture: the GPU passes. The preprocessor runs for the host and each
    // architecture, one after another, and is said as one.
    if (pass != "cicc" && pass != "ptxas") architecture.clear();
    // The host compiler's passes carry its own name, which differs from host to host ("gcc (compiling)"
    // on one, "g++ (compiling)" on an H200's): they are read by what follows the name.
    if (pass.find(" (preprocessing") != std::string::npos) pass = "preprocessing";
    if (pass.ends_with(" (compiling)")) pass = "host compiler";
    if (!seconds.contains(pass)) order.push_back(pass);
    auto& runs = seconds[pass];
    const auto same =
        std::find_if(runs.begin(), runs.end(), [&](const auto& run) { return run.first == architecture; });
    if (same == runs.end()) runs.emplace_back(architecture, ms / 1000.0);
    else same->second += ms / 1000.0;
  }
  std::ostringstream said;
  said << std::fixed << std::setprecision(1);
  for (const std::string& pass : order) {
    said << (said.tellp() > 0 ? ", " : "") << pass;
    const auto& runs = seconds[pass];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      said << (i == 0 ? " " : " and ") << runs[i].second << " s";
      if (!runs[i].first.empty()) said << " for " << runs[i].first;
    }
  }
  return said.str();
}

std::string configured_architectures(const std::string& build_dir) {
  static const std::regex entry("CMAKE_CUDA_ARCHITECTURES:[A-Z]+=(.+)");
  std::smatch m;
  for (const std::string& line : lines_of(read_text(build_dir + "/CMakeCache.txt")))
    if (std::regex_match(line, m, entry)) return m[1];
  throw Fatal(
      kExitFailed,
      build_dir +
          " is not configured (no CMAKE_CUDA_ARCHITECTURES in its CMakeCache.txt): ./workbook setup configures it");
}

void Build::configure(const std::vector<std::string>& definitions) const {
  say("configuring (preset " + checkout_.preset + ")");
  // Never the preset's native here: the checkout's build asked this machine's GPUs once already.
  std::vector<std::string> argv = {
      "cmake",          "--preset",
      checkout_.preset, "-S",
      checkout_.root,   "-B",
      build_dir_,       "-DCMAKE_CUDA_ARCHITECTURES=" + configured_architectures(checkout_.build_dir)};
  argv.insert(argv.end(), definitions.begin(), definitions.end());
  const std::string log = log_folder_ + "/configure.log";
  if (run({argv, {}, "", log}).status == 0) return;
  const std::vector<std::string> lines = lines_of(read_text(log));
  for (std::size_t i = lines.size() > 20 ? lines.size() - 20 : 0; i < lines.size(); ++i) std::cerr << lines[i] << '\n';
  throw Fatal(kExitFailed, "configuring failed; the whole log is in " + checkout_.shown(log));
}

bool Build::targets(const std::vector<std::string>& targets, bool keep_going) const {
  std::vector<std::string> argv = {"cmake", "--build", build_dir_};
  for (const std::string& target : targets) argv.insert(argv.end(), {"--target", target});
  if (keep_going) argv.insert(argv.end(), {"--", "-k", "0"});  // ninja: build all that does not depend on a failure
  std::ofstream log(this->log(), std::ios::app);
  static const std::regex progress(R"(^\[([0-9]+)/([0-9]+)\].*)");  // ninja's "[12/240] Building ..."
  // What is being built and how far it has got, every tenth of the way: a first build is minutes of
  // compiling, and a console that says nothing for them looks hung. A build of fewer than 20 steps
  // (a file edited, the checks of an unchanged build) is seconds, and said by nothing.
  std::string what = targets.empty() ? "everything" : targets.front();
  if (targets.size() > 1) what += " and " + std::to_string(targets.size() - 1) + " more";
  int said = -1;
  const int status = run_lines({argv}, [&](const std::string& line) {
    log << text_as_data(line) << '\n';  // a compiler quotes a student's file, string literals and all
    std::smatch m;
    if (!std::regex_match(line, m, progress)) return;
    const int done = std::stoi(m[1]), total = std::stoi(m[2]), tenth = done * 10 / total;
    if (total >= 20 && done > 0 && tenth > said) {
      say("building " + what + ": " + std::to_string(done) + " of " + std::to_string(total) + " steps");
      said = tenth;
    }
  });
  return status == 0;
}

void Build::show_warnings(const std::map<std::string, std::string>& file_of) const {
  // The compiler's and ptxas's warnings on a student's file (an unused variable, local memory, a
  // spill), each once, at the file as the student names it: the rest of the build's are ours.
  const std::vector<std::string> lines = lines_of(read_text(log()));
  std::set<std::string> said;
  for (const auto& [lab, file] : file_of) {
    if (file.empty()) continue;
    for (std::size_t i = 0; i < lines.size() && said.size() < 20; ++i) {
      const std::string& line = lines[i];
      const std::size_t at = line.find(file);
      if (line.find("warning") == std::string::npos || (at == std::string::npos && !line.starts_with("ptxas warning")))
        continue;
      const std::string shown =
          at == std::string::npos ? line : checkout_.topic_file(lab) + line.substr(at + file.size());
      if (said.insert(shown).second) say("warning: " + shown);
    }
  }
}

void Build::show_errors() const {
  const std::vector<std::string> lines = lines_of(read_text(log()));
  static const std::regex error("error|FAILED");
  std::vector<std::string> shown;
  // Each error line and the three after it, once: windows that overlap are merged, not repeated.
  std::size_t shown_until = 0;
  for (std::size_t i = 0; i < lines.size() && shown.size() < 40; ++i)
    if (std::regex_search(lines[i], error))
      for (std::size_t j = std::max(i, shown_until); j < std::min(lines.size(), i + 4) && shown.size() < 40; ++j) {
        shown.push_back(lines[j]);
        shown_until = j + 1;
      }
  if (shown.empty())
    for (std::size_t i = lines.size() > 40 ? lines.size() - 40 : 0; i < lines.size(); ++i) shown.push_back(lines[i]);
  // A compiler's or linker's command line runs to thousands of characters: its start says which.
  constexpr std::size_t kLongestShown = 240;
  for (const std::string& line : shown)
    if (line.size() <= kLongestShown) std::cerr << line << '\n';
    else
      std::cerr << line.substr(0, kLongestShown) << " ... (" << line.size() << " characters; whole in "
                << checkout_.shown(log()) << ")\n";
}

namespace {

// The line of `file` (shown as `shown`) where `name` is defined: its first line that names it with
// an opening parenthesis and is not a declaration; "" when there is none.
std::string where_defined(const std::string& file, const std::string& shown, const std::string& name) {
  std::ifstream in(file);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::size_t at = line.find(name + "(");
    if (at == std::string::npos ||
        (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_')))
      continue;
    if (line.find(';') != std::string::npos) continue;
    return shown + "(" + std::to_string(number) + ")";
  }
  return "";
}

}  // namespace

std::string Build::first_error(std::size_t from, const std::string& student_file, const std::string& shown_file) const {
  static const std::regex error(R"((^|[^A-Za-z])(error|Error)[ :])"), lab_file("labs/[0-9]{2}_[A-Za-z0-9_]+/"),
      at_line(R"(at line ([0-9]+) of \S*?(labs/[0-9]{2}_[A-Za-z0-9_]+/[A-Za-z0-9_.]+))"),
      undefined(R"(undefined reference to `(?:[A-Za-z0-9_]+::)*([A-Za-z0-9_]+)\(([^']*)\)')"),
      assertion(R"re(static assertion failed with "(.*)")re"), after_error(R"((?:error|Error)[ :]+(.*))");
  const std::string text = read_text(log());
  const std::vector<std::string> lines = lines_of(text.substr(std::min(from, text.size())));
  const auto shortened = [](std::string said) { return said.size() > 300 ? said.substr(0, 297) + "..." : said; };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::smatch m;
    // A launcher defined with other parameters than its header declares: the header's is never
    // defined, which only the linker finds. Said as what to change, at the student's definition.
    if (std::regex_search(line, m, undefined)) {
      const std::string name = m[1];
      std::string parameters = m[2];  // as the linker spells them: cudaStream_t is CUstream_st*
      for (std::size_t at; (at = parameters.find("CUstream_st*")) != std::string::npos;)
        parameters.replace(at, 12, "cudaStream_t");
      const std::string where = student_file.empty() ? "" : where_defined(student_file, shown_file, name);
      return shortened((where.empty() ? shown_file : where) + ": " + name +
                       " is not defined with the parameters its lab's header "
                       "declares (" +
                       parameters + "): a launcher takes exactly the header's parameters; change yours back to them");
    }
    if (!std::regex_search(line, error) || line.starts_with("FAILED") || line.starts_with("ninja: ") ||
        line.starts_with("collect2"))
      continue;
    // The file as the student names it (labs/02_memory/memory.cu(35): ...), not where it was built;
    // an error inside a header the lab includes (workbook::launch's checks) at the student's line
    // that caused it, which the compiler names a few lines below ("at line 62 of ...memory.cu").
    if (std::regex_search(line, m, lab_file)) return shortened(line.substr(static_cast<std::size_t>(m.position(0))));
    std::string message = std::regex_search(line, m, assertion)     ? m[1]
                          : std::regex_search(line, m, after_error) ? m[1]
                                                                    : line;
    for (std::size_t j = i + 1; j < lines.size() && j <= i + 8; ++j)
      if (std::regex_search(lines[j], m, at_line))
        return shortened(std::string(m[2]) + "(" + std::string(m[1]) + "): error: " + message);
    return shortened(line);
  }
  return "";
}

void Build::judges(const std::vector<std::string>& labs) const {
  std::vector<std::string> wanted;
  for (const std::string& lab : labs) wanted.push_back(built(build_dir_, lab, "starter").judge_target);
  if (targets(wanted)) return;
  show_errors();
  throw Fatal(kExitFailed, "the labs' judges did not build in " + checkout_.shown(build_dir_) +
                               ": the whole log is in " + checkout_.shown(log()));
}

namespace {

// The #include audit of a student's file (the checkout's tool, which ./workbook built, whichever
// folder builds the lab): true where the file may be compiled, its findings in result.refused where not.
bool includes_allowed(const Checkout& checkout, const std::string& lab, const std::string& file, LabsBuilt& result) {
  const Outcome audit =
      run({{checkout.build_dir + "/grader/workbook_audit", "includes", "--lab-folder=" + checkout.root + "/labs/" + lab,
            "--student-headers=" + checkout.root + "/include", "--internals=" + checkout.root + "/grader", file}});
  if (audit.status == 1) {  // findings
    std::cerr << audit.output;
    result.refused[lab] = audit.output;
    return false;
  }
  if (audit.status != 0) throw Fatal(kExitFailed, "the include audit of " + lab + " failed: " + audit.output);
  return true;
}

// The GPU code of the lab's built object against the build's architectures: the lab in result.built,
// or in result.miscompiled with the finding.
void check_gpu_code(const Checkout& checkout, const std::string& build_dir, const std::string& lab,
                    const std::string& kind, LabsBuilt& result) {
  const Built made = built(build_dir, lab, kind);
  const Outcome code =
      run({{checkout.build_dir + "/grader/workbook_audit", "gpu-code", "--object=" + made.device_code,
            "--architectures=" + made.gpu_code_architectures,
            "--source=" + (kind == "solution" ? "solutions/" + lab + "/" + checkout.topic_of(lab) + ".cu"
                                              : checkout.topic_file(lab))}});
  if (code.status == 1) {
    std::cerr << code.output;
    result.miscompiled[lab] = code.output;
  } else if (code.status != 0) {
    throw Fatal(kExitFailed, "the GPU code of " + lab + "'s object file could not be read: " + code.output);
  } else {
    result.built.push_back(lab);
  }
}

}  // namespace

LabsBuilt Build::graders(const std::vector<std::string>& labs, const std::string& kind, const std::string& taken,
                         bool judged) const {
  std::string names;
  for (const std::string& lab : labs) names += " " + lab;
  say("building (preset " + checkout_.preset + "): the graders of" + names);
  std::ofstream(log(), std::ios::trunc).close();
  LabsBuilt result;
  // Each student's file is read before it is compiled (a solution is the checkout's own): a lab whose
  // file is missing or includes what it may not is not built.
  std::vector<std::string> to_build, wanted;
  std::map<std::string, std::string> file_of;
  for (const std::string& lab : labs) {
    std::string file;
    if (kind == "submission") {
      file = taken + "/" + checkout_.topic_file(lab);
      if (fs::symlink_status(file).type() != fs::file_type::regular) {
        result.missing.push_back(lab);
        continue;
      }
    } else if (kind == "starter") {
      file = checkout_.root + "/" + checkout_.topic_file(lab);
    }
    if (!file.empty() && !includes_allowed(checkout_, lab, file, result)) continue;
    file_of[lab] = file;
    to_build.push_back(lab);
    // nvcc times its passes on a student's file (the build decides which: cmake/AddLab.cmake); a
    // solution has no table.
    const std::vector<std::string> tables = built(build_dir_, lab, kind).nvcc_passes;
    for (const std::string& table : tables) {
      std::error_code none_yet;
      fs::remove(table, none_yet);
    }
    if (!tables.empty()) result.nvcc_passes[lab] = tables;
  }
  // What grades each lab: its judge, which links nothing of any implementation's, so it builds and
  // lists the lab's steps whether the file compiles or not (a submission's is the checkout's,
  // judges(), built before); judged, the file built into its planner alone; linked, into its
  // grader (a submission's steps then listed by the checkout's own starter).
  const auto judge_of = [&](const std::string& lab) {
    if (kind == "submission") return std::vector<std::string>{};
    return std::vector<std::string>{built(build_dir_, lab, "starter").judge_target};
  };
  const auto file_targets = [&](const std::string& lab) {
    const Built made = built(build_dir_, lab, kind);
    // Judged: its planner (which links its host code) and the GPU code the judge loads, dumped.
    if (judged) return std::vector<std::string>{made.planner_target, made.device_code_target};
    std::vector<std::string> graders = {made.grader_target};
    if (kind == "submission") graders.push_back(built(build_dir_, lab, "starter").grader_target);
    return graders;
  };
  for (const std::string& lab : labs)
    for (const std::string& target : judge_of(lab)) wanted.push_back(target);
  for (const std::string& lab : to_build)
    for (const std::string& target : file_targets(lab)) wanted.push_back(target);
  // Several labs in one build, side by side on every core: a first grading of six labs builds in a
  // fraction of the time they take one after another. Only when something does not
  // compile are the labs built again one by one (what did compile is not built twice; a file that
  // does not compile is compiled again, alone), so that a lab that does not compile fails alone,
  // with its own errors. One lab is built by itself at once: a student's loop on one step.
  const bool all_built = labs.size() > 1 && !wanted.empty() && targets(wanted, /*keep_going=*/true);
  if (!all_built) std::ofstream(log(), std::ios::trunc).close();  // the one-by-one builds say it all again
  for (const std::string& lab : all_built ? std::vector<std::string>{} : labs)
    if (!judge_of(lab).empty()) targets(judge_of(lab));
  for (const std::string& lab : to_build) {
    const std::size_t logged_before = read_text(log()).size();
    if (!all_built && !targets(file_targets(lab))) {
      result.broken.push_back(lab);
      result.first_error[lab] = first_error(logged_before, file_of[lab], checkout_.topic_file(lab));
      continue;
    }
    check_gpu_code(checkout_, build_dir_, lab, kind, result);
  }
  show_warnings(file_of);
  if (!result.broken.empty()) {
    show_errors();
    std::string broken;
    for (const std::string& lab : result.broken) broken += (broken.empty() ? "" : " ") + lab;
    say(broken + " did not compile: the whole log is in " + checkout_.shown(log()));
  }
  return result;
}

}  // namespace workbook::runner
