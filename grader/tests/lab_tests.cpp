// The tests of one lab, written for CTest. The build makes the lab's implementations (starter,
// solution, every mutant: cmake/AddLab.cmake) and says where it put each (labs/NN_topic/built-<kind>.txt,
// runner/built.h) and what the lab's tests need besides (labs/NN_topic/lab-tests.txt); this
// program, run by the build, writes the add_test() lines that prove them into a file CTest reads
// (labs/NN_topic/lab_tests.cmake). So what each test runs and expects is said here, in C++, once:
// the build's CMake knows no test's arguments, and no proofs grammar. In the instructor tree the
// program is compiled with the lab's proofs table (solutions/NN_topic/proofs/proofs.h, whose kinds
// proofs_table.h explains), and writes the proofs' tests too; in a student's copy, the starter's.
// A table that names a mutant with no file, or a file of mutants/ that the table does not name,
// fails the build here, naming both.
// usage: lab_tests BUILD_DIR NN_topic OUTPUT
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/lab_facts.h"
#include "runner/built.h"

#ifdef WORKBOOK_PROOFS_TABLE
#include "proofs.h"  // the lab's kProofs, from solutions/NN_topic/proofs/
#include "proofs_table.h"
#endif

namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

// One CTest test: what it runs and what CTest is told of it.
struct Test {
  std::string name;
  Strings command;
  std::string labels;       // "gpu;02_memory;judge": a gpu test is skipped (exit 77) where there is no GPU
  int timeout = 0;          // seconds; 0: CTest's default
  std::string pass_regex;   // where the exit status does not say it (CTest's PASS_REGULAR_EXPRESSION)
  std::string environment;  // "NAME=VALUE"

  Test(std::string name, Strings command, std::string labels, int timeout = 0, std::string pass_regex = "",
       std::string environment = "")
      : name(std::move(name)),
        command(std::move(command)),
        labels(std::move(labels)),
        timeout(timeout),
        pass_regex(std::move(pass_regex)),
        environment(std::move(environment)) {}
};

// A CMake quoted argument: the text as it is (a `;` in it separates the items of a list value).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"' || c == '$') out += '\\';
    out += c;
  }
  return out + "\"";
}

void write_cmake(std::ostream& out, const Test& test) {
  out << "add_test(" << quoted(test.name);
  for (const std::string& word : test.command) out << ' ' << quoted(word);
  out << ")\nset_tests_properties(" << quoted(test.name) << " PROPERTIES LABELS " << quoted(test.labels);
  if (test.labels.starts_with("gpu;")) out << " SKIP_RETURN_CODE 77";
  if (test.timeout > 0) out << " TIMEOUT " << test.timeout;
  if (!test.pass_regex.empty()) out << " PASS_REGULAR_EXPRESSION " << quoted(test.pass_regex);
  if (!test.environment.empty()) out << " ENVIRONMENT " << quoted(test.environment);
  out << ")\n";
}

// "KEY<tab>VALUE" lines, as the build writes them.
std::map<std::string, std::string> read_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no " + path + ": configure the build again");
  std::map<std::string, std::string> keys;
  for (std::string line; std::getline(in, line);)
    if (const std::size_t tab = line.find('\t'); tab != std::string::npos)
      keys[line.substr(0, tab)] = line.substr(tab + 1);
  return keys;
}

// What a program prints, or an error naming it.
std::string output_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string output;
  char buffer[4096];
  while (std::size_t read = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, read);
  if (pclose(pipe) != 0) throw std::runtime_error(command + " failed:\n" + output);
  return output;
}

// The lab as the build made it.
struct Lab {
  std::string build, name, number, topic, source;  // source: the checkout's root
  std::map<std::string, std::string> said;         // lab-tests.txt
  std::vector<workbook::StepFacts> steps;          // as the lab's judge lists them

  workbook::runner::Built of(const std::string& kind) const { return workbook::runner::built(build, name, kind); }
  std::string fact(const std::string& key) const {
    const auto found = said.find(key);
    if (found == said.end()) throw std::runtime_error("lab-tests.txt of " + name + " does not say " + key);
    return found->second;
  }
  std::string in_source(const std::string& path) const { return source + "/" + path; }
  std::string script(const std::string& name) const { return in_source("grader/tests/" + name); }
  std::string student_file() const { return "labs/" + name + "/" + topic + ".cu"; }
  std::string every_step() const { return "--test-case=" + number + ".*"; }
};

// The judge grading `kind` as every file is graded: its planner, and the GPU code the judge loads
// (with the lab's given code), each file with its machine code's dump where the build wrote one.
Strings judged(const Lab& lab, const std::string& kind) {
  const workbook::runner::Built built = lab.of(kind);
  if (built.planner.empty())
    throw std::runtime_error(lab.name + "'s " + kind +
                             " has no planner (it calls the grader's own code), so it cannot be judged");
  Strings command = {built.judge, "--planner=" + built.planner, "--device-code=" + built.device_code};
  if (!built.device_code_sass.empty()) command.push_back("--sass=" + built.device_code_sass);
  if (!built.given_code.empty()) {
    command.push_back("--device-code=" + built.given_code);
    if (!built.given_code_sass.empty()) command.push_back("--sass=" + built.given_code_sass);
  }
  return command;
}

Strings operator+(Strings words, const Strings& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

// The #include check of a file (`workbook_audit includes`): its lines stay inside the lab and the toolkit.
Strings include_check(const Lab& lab, const std::string& file) {
  return {lab.fact("workbook_audit"),
          "includes",
          "--lab-folder=" + lab.in_source("labs/" + lab.name),
          "--student-headers=" + lab.in_source("include"),
          "--internals=" + lab.in_source("grader"),
          file};
}

// The lab's namespace, as its header opens it ("namespace memory {").
std::string lab_namespace(const Lab& lab) {
  std::ifstream header(lab.in_source("labs/" + lab.name + "/" + lab.topic + ".h"));
  const std::regex opening("^namespace ([a-z_]+) \\{.*");
  std::smatch match;
  for (std::string line; std::getline(header, line);)
    if (std::regex_match(line, match, opening)) return match[1];
  throw std::runtime_error("labs/" + lab.name + "/" + lab.topic + ".h opens no namespace");
}

// The starter's tests, in every checkout: CPU checks of its text, its objects and the lab's judge,
// and, on a GPU, the starter judged, which must fail every step naming its TODO.
void starter_tests(const Lab& lab, std::vector<Test>& tests) {
  const workbook::runner::Built starter = lab.of("starter");
  const std::string& L = lab.name;
  tests.push_back({L + ".static: the starter's #include lines pass the #include check",
                   include_check(lab, lab.in_source(lab.student_file())), "cpu;" + L + ";static;host-code"});
  // In a student's checkout the starter is the student's file, compiled under the limit: the file the
  // judge loads (its GPU half's fat binary) must carry the build's GPU code, not nvcc's fallback.
  tests.push_back({L + ".static: the starter, compiled as a student's file, carries the build's GPU code",
                   {lab.fact("workbook_audit"), "gpu-code", "--object=" + starter.device_code,
                    "--architectures=" + starter.gpu_code_architectures, "--source=" + lab.student_file()},
                   "cpu;" + L + ";static;host-code"});
  // The benchmark CSV's columns are defined once, in the grader; the plot must read only those.
  tests.push_back({L + ".bench: the plot reads only columns the grader writes",
                   {lab.script("test_bench_columns.sh"), lab.source, L, starter.grader},
                   "cpu;" + L});
  const std::string space = lab_namespace(lab);
  tests.push_back({L + ".static: the planner serves every function the student writes",
                   {lab.script("check_planner_functions.sh"), starter.planner, starter.library, space},
                   "cpu;" + L + ";static"});
  // ./workbook profile's table from ncu's outputs recorded on an H100 (the instructor's: none in a
  // handout): every counter the lab chooses reads a metric ncu reports.
  const fs::path profiles = lab.in_source("solutions/profiles");
  std::set<fs::path> recorded;
  if (fs::is_directory(profiles))
    for (const auto& entry : fs::directory_iterator(profiles))
      if (const std::string file = entry.path().filename();
          file.starts_with(lab.number + ".") && file.ends_with(".ncu.txt"))
        recorded.insert(entry.path());
  for (const fs::path& output : recorded) {
    const std::string file = output.filename();
    std::size_t end = lab.number.size() + 1;  // "01.4-solution.ncu.txt": the step is 01.4
    while (end < file.size() && std::isdigit(static_cast<unsigned char>(file[end]))) ++end;
    const std::string step = file.substr(0, end);
    tests.push_back({L + ".profile: every counter has a value in the ncu output recorded for " + step,
                     {lab.script("check_profile_report.sh"), starter.judge, step, output.string()},
                     "cpu;" + L + ";profile"});
  }
  // The judge: the lab's steps as the starter's grader lists them, exactly the planner's functions
  // as its judged calls, and a clear refusal when it is given half a student.
  tests.push_back(
      {L + ".judge: the judge has the lab's steps and the planner's functions",
       {lab.script("check_judge_front.sh"), starter.judge, starter.grader, starter.planner, space, starter.given_code},
       "cpu;" + L + ";judge"});
  // A student's grader holds no kernel but the student's own and those listed as the grader's and
  // the lab's given code: no witness, mutant or solution.
  tests.push_back(
      {L + ".static: the student's grader holds no kernel beyond the grader's own and the given ones",
       {lab.fact("workbook_audit"), "kernels", "--allowed=" + lab.in_source("grader/labs/" + L + "/kernels.allowed"),
        "--student=" + starter.library, starter.grader},
       "cpu;" + L + ";static"});
  tests.push_back({L + ".judge: the starter, judged, fails every step with its TODO",
                   judged(lab, "starter") + Strings{lab.every_step(), "--expect-reason=TODO(" + lab.number + "."},
                   "gpu;" + L + ";judge", 600});
}

#ifdef WORKBOOK_PROOFS_TABLE

using namespace workbook::proofs;

std::string name(workbook::Defence defence) { return std::string(workbook::name_of(defence)); }

std::string regex_escaped(const std::string& text) {
  return std::regex_replace(text, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

// Every name the table gives a mutant has its file, and every file of mutants/ is named.
void check_table_against_files(const Lab& lab, const Table& table) {
  std::set<std::string> named(table.mutants.begin(), table.mutants.end());
  for (const Control& c : table.controls) named.insert(c.mutant);
  for (const DefenceMutant& m : table.defence_mutants) named.insert(m.name);
  for (const JudgedMutant& m : table.judged_defence_mutants) named.insert(m.name);
  for (const HostMutant& m : table.judged_host_mutants) named.insert(m.name);
  for (const BoundaryMutant& m : table.boundary_mutants) named.insert(m.name);
  for (const JudgedMutant& m : table.judged_closed_mutants) named.insert(m.name);
  for (const ResidueMutant& m : table.residue_mutants) named.insert(m.name);
  for (const char* m : {table.memcheck_mutant, table.racecheck_mutant, table.synccheck_mutant})
    if (m != nullptr) named.insert(m);
  const fs::path folder = lab.in_source("solutions/" + lab.name + "/proofs/mutants");
  std::set<std::string> files;
  if (fs::is_directory(folder))
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().extension() == ".cu") files.insert(entry.path().stem());
  std::string wrong;
  for (const std::string& m : named)
    if (!files.contains(m)) wrong += "  the table names " + m + ", but there is no mutants/" + m + ".cu\n";
  for (const std::string& f : files)
    if (!named.contains(f)) wrong += "  mutants/" + f + ".cu is in no list of the table: say what it proves\n";
  for (const IncludeMutant& m : table.include_mutants)
    if (!fs::exists(lab.in_source("solutions/" + lab.name + "/proofs/include_mutants/" + m.name + ".cu")))
      wrong += "  the table names the include mutant " + std::string(m.name) + ", but there is no include_mutants/" +
               m.name + ".cu\n";
  if (!wrong.empty())
    throw std::runtime_error("solutions/" + lab.name + "/proofs/proofs.h and its mutants disagree:\n" + wrong);
}

// The solution's tests besides its own grader's: judged, its text, its GPU and machine code, and
// the ptxas report of every kernel (static_checks.cpp).
void solution_tests(const Lab& lab, const Table& table, std::vector<Test>& tests) {
  const workbook::runner::Built solution = lab.of("solution"), starter = lab.of("starter");
  const std::string& L = lab.name;
  const std::string solution_file = "solutions/" + L + "/" + lab.topic + ".cu";
  tests.push_back({L + ".judge: the solution, judged, passes every step",
                   judged(lab, "solution") + Strings{lab.every_step()}, "gpu;" + L + ";judge", 600});
  tests.push_back({L + ".static: the solution's #include lines pass the #include check",
                   include_check(lab, lab.in_source(solution_file)), "cpu;" + L + ";static;host-code"});
  // What a student's object is checked against is the reference solution's own GPU code.
  tests.push_back({L + ".static: the solution carries the build's GPU code",
                   {lab.fact("workbook_audit"), "gpu-code", "--object=" + solution.library,
                    "--architectures=" + solution.gpu_code_architectures, "--source=" + solution_file},
                   "cpu;" + L + ";static;host-code"});
  // The machine code the build dumps of the libraries and of the student's GPU half reads as
  // cuobjdump -fun's: each file, then its dump (where the build has cuobjdump to dump with).
  if (!solution.library_sass.empty()) {
    Strings command = {lab.fact("workbook_audit"), "machine-code"};
    std::set<std::string> seen;  // in a submission's build the starter's library is what the judge loads
    const std::vector<std::pair<std::string, std::string>> dumped = {{solution.library, solution.library_sass},
                                                                     {starter.library, starter.library_sass},
                                                                     {starter.device_code, starter.device_code_sass},
                                                                     {starter.given_code, starter.given_code_sass}};
    for (const auto& [file, dump] : dumped)
      if (!file.empty() && seen.insert(file).second) command = command + Strings{file, dump};
    tests.push_back({L + ".static: the build's machine-code dumps read as cuobjdump -fun does, kernel by kernel",
                     command, "cpu;" + L + ";static"});
  }
  Strings statics = {lab.fact("static_checks"), "--starter=" + starter.library, "--solution=" + solution.library,
                     "--ptx=" + lab.fact("solution_ptx"), "--ptxas=" + lab.fact("ptxas")};
  for (const char* part : table.wide_loads) statics.push_back("--wide=" + std::string(part));
  tests.push_back({L + ".static: compiled solution", statics, "cpu;" + L + ";static"});
  // Judged five times with five seeds, the verdicts must agree.
  const std::string repeated =
      table.repeat_steps != nullptr ? "--step=" + std::string(table.repeat_steps) : "--test-suite=" + L;
  Strings judged_solution = judged(lab, "solution");
  judged_solution.erase(judged_solution.begin());
  tests.push_back({L + ".repeat: the solution, judged, graded 5 times gets the same verdicts",
                   Strings{lab.script("repeat_verdicts.sh"), "5", solution.judge} + judged_solution + Strings{repeated},
                   "gpu;" + L + ";repeat;judge", 900});
}

// Each tool of compute-sanitizer over the correctness half of the sanitized steps (small shapes,
// exact-size allocations: the tools run kernels a hundred times slower, and see past an array's end
// only where nothing is allocated there): it must find the named mutant's defect, and nothing in
// the solution.
void sanitizer_tests(const Lab& lab, const Table& table, std::vector<Test>& tests) {
  const std::string sanitizer = lab.fact("compute_sanitizer");
  if (sanitizer.empty()) return;  // the build found no compute-sanitizer
  const std::string steps =
      table.sanitize_steps != nullptr ? "--step=" + std::string(table.sanitize_steps) : "--test-suite=" + lab.name;
  const auto sanitized = [&](const char* tool, const char* expect, const std::string& kind) {
    return Strings{lab.script("sanitize.sh"), tool, expect, sanitizer, lab.of(kind).grader, "--correctness-only",
                   "--exact-allocations",     steps};
  };
  const std::pair<const char*, const char*> tools[] = {{"memcheck", table.memcheck_mutant},
                                                       {"racecheck", table.racecheck_mutant},
                                                       {"synccheck", table.synccheck_mutant}};
  for (const auto& [tool, mutant] : tools) {
    if (mutant != nullptr)
      tests.push_back({lab.name + ".sanitize: " + tool + " finds the defect in mutant_" + mutant,
                       sanitized(tool, "error", "mutant_" + std::string(mutant)), "gpu;" + lab.name + ";sanitize",
                       300});
    tests.push_back({lab.name + ".sanitize: " + tool + " finds nothing in the solution",
                     sanitized(tool, "clean", "solution"), "gpu;" + lab.name + ";sanitize", 300});
  }
}

// Wrong kernels (the table's `mutants`): every step fails, linked into their graders (a test a
// step, as doctest names them) and, unless a mutant calls the grader's own code, judged.
void wrong_kernel_tests(const Lab& lab, const Table& table, std::vector<Test>& tests) {
  for (const std::string mutant : table.mutants) {
    const workbook::runner::Built built = lab.of("mutant_" + mutant);
    for (const workbook::StepFacts& step : lab.steps) {
      const std::string test_case = step.id + " " + step.title;  // doctest's filters split at commas
      tests.push_back(
          {lab.name + ".mutant_" + mutant + "/" + test_case,
           {built.grader, "--test-case=" + std::regex_replace(test_case, std::regex(","), "\\,"), "--expect-reject"},
           "gpu;" + lab.name + ";mutant",
           300});
    }
    if (!built.planner.empty())
      tests.push_back({lab.name + ".judge: mutant_" + mutant + ", judged, fails every step",
                       judged(lab, "mutant_" + mutant) + Strings{lab.every_step(), "--expect-reject"},
                       "gpu;" + lab.name + ";judge", 600});
  }
}

// The mutants linked into their graders: each caught by its defence and clearing without it, and
// each control correct.
void linked_mutant_tests(const Lab& lab, const Table& table, std::vector<Test>& tests) {
  const std::string& L = lab.name;
  for (const DefenceMutant& m : table.defence_mutants) {
    const std::string kind = "mutant_" + std::string(m.name), steps = std::string(m.steps);
    Strings also;
    for (workbook::Defence other : m.also_without) also.push_back("--without=" + name(other));
    const std::string grader = lab.of(kind).grader;
    tests.push_back({L + "." + kind + ": [" + name(m.defence) + "] rejects it on " + steps,
                     Strings{grader, "--step=" + steps, "--expect-reason=[" + name(m.defence) + "]"} + also,
                     "gpu;" + L + ";mutant;defence", 600});
    const Strings without = Strings{grader, "--step=" + steps, "--without=" + name(m.defence)} + also;
    if (m.honest)
      tests.push_back({L + "." + kind + ": without [" + name(m.defence) + "] nothing else rejects it on " + steps +
                           ": graded on its own time",
                       without + Strings{"--expect-honest"}, "gpu;" + L + ";mutant;defence", 600});
    else
      tests.push_back({L + "." + kind + ": without [" + name(m.defence) + "] it clears " + steps, without,
                       "gpu;" + L + ";mutant;defence", 600});
  }
  for (const Control& c : table.controls) {
    const std::string kind = "mutant_" + std::string(c.mutant) + "_control";
    tests.push_back({L + "." + kind + ": with its defect fixed, mutant_" + c.mutant + " is correct on " + c.steps,
                     {lab.of(kind).grader, "--step=" + std::string(c.steps), "--correctness-only"},
                     "gpu;" + L + ";mutant;control",
                     300});
  }
  for (const IncludeMutant& m : table.include_mutants)
    tests.push_back({L + ".mutant_" + m.name + ": the #include check refuses it (" + m.finding + ")",
                     include_check(lab, lab.in_source("solutions/" + L + "/proofs/include_mutants/" + m.name + ".cu")),
                     "cpu;" + L + ";mutant;host-code", 0, "\\[host-code\\][^\n]*" + regex_escaped(m.finding)});
}

// The mutants judged, as a student's file is graded.
void judged_mutant_tests(const Lab& lab, const Table& table, std::vector<Test>& tests) {
  const std::string& L = lab.name;
  const auto judged_mutant = [&](const char* mutant) { return judged(lab, "mutant_" + std::string(mutant)); };
  for (const HostMutant& m : table.judged_host_mutants) {
    const std::string prefix = L + ".judge: mutant_" + m.name + ", judged, ";
    if (m.reject) {
      tests.push_back({prefix + "fails every step",
                       judged_mutant(m.name) + Strings{lab.every_step(), "--expect-reject"},
                       "gpu;" + L + ";judge;host-code", 600});
      continue;
    }
    tests.push_back({prefix + "clears " + m.clears + " as its honest kernel does",
                     judged_mutant(m.name) + Strings{"--step=" + std::string(m.clears)},
                     "gpu;" + L + ";judge;host-code", 600});
    tests.push_back({prefix + "fails " + m.fails + " as its honest kernel does",
                     judged_mutant(m.name) + Strings{"--step=" + std::string(m.fails), "--expect-reject"},
                     "gpu;" + L + ";judge;host-code", 600});
  }
  for (const BoundaryMutant& m : table.boundary_mutants) {
    const Strings command = judged_mutant(m.name) + Strings{"--step=" + std::string(m.steps)};
    if (m.refusal == nullptr)
      tests.push_back({L + ".judge: mutant_" + m.name + ", judged, is graded on its own kernels' time on " + m.steps,
                       command + Strings{"--expect-honest"}, "gpu;" + L + ";judge;boundary", 600});
    else
      tests.push_back({L + ".judge: mutant_" + m.name + ", judged, is refused on " + m.steps,
                       command + Strings{"--expect-reason=" + std::string(m.refusal)}, "gpu;" + L + ";judge;boundary",
                       600});
  }
  for (const JudgedMutant& m : table.judged_defence_mutants)
    tests.push_back(
        {L + ".judge: mutant_" + m.name + ", judged as a student's file is: [" + name(m.defence) + "] rejects it on " +
             m.steps,
         judged_mutant(m.name) + Strings{"--step=" + std::string(m.steps), "--expect-reason=[" + name(m.defence) + "]"},
         "gpu;" + L + ";judge;defence", 600});
  // With a seed on the judge's command line, as every grading has (the runner's): the old trick read it.
  for (const JudgedMutant& m : table.judged_closed_mutants) {
    const Strings command = judged_mutant(m.name) + Strings{"--step=" + std::string(m.steps), "--seed=61"};
    tests.push_back({L + ".judge: mutant_" + m.name + ", judged: with [" + name(m.defence) +
                         "] its trick does not work, and it fails " + m.steps,
                     command + Strings{"--expect-reject"}, "gpu;" + L + ";judge;defence", 600});
    if (m.proven_linked_by != nullptr)
      tests.push_back(
          {L + ".mutant_" + m.name + ", linked into its grader without [" + name(m.defence) +
               "], where the seed is its own process's: its trick works, and it is graded as honest work on " + m.steps,
           {lab.script("mutant_word.sh"), m.proven_linked_by, lab.of("mutant_" + std::string(m.name)).grader,
            "--step=" + std::string(m.steps), "--seed=61", "--without=" + name(m.defence), "--expect-honest"},
           "gpu;" + L + ";mutant;defence",
           600});
    else
      tests.push_back(
          {L + ".judge: mutant_" + m.name + ", judged without [" + name(m.defence) + "]: its trick clears " + m.steps,
           command + Strings{"--without=" + name(m.defence)}, "gpu;" + L + ";judge;defence", 600});
  }
  // Through mutant_word.sh: each test also needs the mutant's word that it was told where the
  // scratch arrays lay, which the judge writes where WORKBOOK_PROOF_SCRATCH_LOG says.
  for (const ResidueMutant& m : table.residue_mutants) {
    const Strings command = Strings{lab.script("mutant_word.sh"), "the grader's scratch product at"} +
                            judged_mutant(m.name) + Strings{"--step=" + std::string(m.steps)};
    const std::string log = "WORKBOOK_PROOF_SCRATCH_LOG=" + lab.fact("scratch") + "/" + m.name;
    tests.push_back({L + ".judge: mutant_" + m.name +
                         ", judged, finds no answer of this call in the grader's scratch and is graded on its "
                         "own kernels on " +
                         m.steps,
                     command + Strings{"--expect-honest"}, "gpu;" + L + ";judge;residue", 600, "",
                     log + "-honest.scratch"});
    tests.push_back({L + ".judge: mutant_" + m.name +
                         ", judged without [remembered-work], copies the grader's product: [ceiling] on " + m.steps,
                     command + Strings{"--without=remembered-work", "--expect-reason=[ceiling]"},
                     "gpu;" + L + ";judge;residue", 600, "", log + "-proof.scratch"});
  }
}

void proofs_tests(const Lab& lab, std::vector<Test>& tests) {
  const Table& table = kProofs;
  check_table_against_files(lab, table);
  solution_tests(lab, table, tests);
  sanitizer_tests(lab, table, tests);
  wrong_kernel_tests(lab, table, tests);
  linked_mutant_tests(lab, table, tests);
  judged_mutant_tests(lab, table, tests);
}

#endif  // WORKBOOK_PROOFS_TABLE

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: lab_tests BUILD_DIR NN_topic OUTPUT\n";
    return 2;
  }
  try {
    Lab lab;
    lab.build = argv[1];
    lab.name = argv[2];
    lab.number = lab.name.substr(0, 2);
    lab.said = read_keys(lab.build + "/labs/" + lab.name + "/lab-tests.txt");
    lab.topic = lab.fact("topic");
    lab.source = lab.fact("source");
    std::istringstream listed(output_of("'" + lab.of("starter").judge + "' --list-steps"));
    for (std::string line; std::getline(listed, line);)
      if (!line.empty()) lab.steps.push_back(workbook::step_from_line(line));
    std::vector<Test> tests;
    starter_tests(lab, tests);
#ifdef WORKBOOK_PROOFS_TABLE
    proofs_tests(lab, tests);
#endif
    std::ostringstream text;
    text << "# " << lab.name << "'s tests, written by lab_tests (grader/tests/lab_tests.cpp) from the build's files\n";
    for (const Test& test : tests) write_cmake(text, test);
    const std::string output = argv[3];
    std::ofstream(output + ".part") << text.str();
    fs::rename(output + ".part", output);
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "lab_tests " << argv[2] << ": " << error.what() << "\n";
  }
  return 1;
}
