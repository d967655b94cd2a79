// The proofs' tests of one lab, from its proofs table (solutions/NN_topic/proofs/proofs.h, whose
// kinds proofs_table.h explains): compiled for each lab against its table, and linked with the rest
// of its tests program (lab_tests.cpp). A table that names a mutant with no file, or a file of
// mutants/ that the table does not name, fails the build, naming both. Compiled without a table
// (a student's copy has no solutions/), it writes no test.
#include <filesystem>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab_tests.h"

#ifdef WORKBOOK_PROOFS_TABLE

#include "proofs.h"  // the lab's kProofs, from solutions/NN_topic/proofs/
#include "proofs_table.h"

namespace workbook::lab_tests {

namespace {

namespace fs = std::filesystem;
using namespace workbook::proofs;

std::string name(workbook::Defence defence) { return std::string(workbook::name_of(defence)); }

std::string regex_escaped(const std::string& text) {
  return std::regex_replace(text, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

// Every name the table gives a mutant has its file, and every file of mutants/ is named.
void check_table_against_files(const Lab& lab, const workbook::proofs::Table& table) {
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
void solution_tests(const Lab& lab, const workbook::proofs::Table& table, std::vector<Test>& tests) {
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
void sanitizer_tests(const Lab& lab, const workbook::proofs::Table& table, std::vector<Test>& tests) {
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
void wrong_kernel_tests(const Lab& lab, const workbook::proofs::Table& table, std::vector<Test>& tests) {
  for (const std::string mutant : table.mutants) {
    const workbook::runner::Built built = lab.of("mutant_" + mutant);
    for (const workbook::runner::StepInfo& step : lab.steps) {
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
void linked_mutant_tests(const Lab& lab, const workbook::proofs::Table& table, std::vector<Test>& tests) {
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
void judged_mutant_tests(const Lab& lab, const workbook::proofs::Table& table, std::vector<Test>& tests) {
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

}  // namespace

void proofs_tests(const Lab& lab, std::vector<Test>& tests) {
  const workbook::proofs::Table& table = kProofs;
  check_table_against_files(lab, table);
  solution_tests(lab, table, tests);
  sanitizer_tests(lab, table, tests);
  wrong_kernel_tests(lab, table, tests);
  linked_mutant_tests(lab, table, tests);
  judged_mutant_tests(lab, table, tests);
}

}  // namespace workbook::lab_tests

#else

void workbook::lab_tests::proofs_tests(const Lab&, std::vector<Test>&) {}

#endif  // WORKBOOK_PROOFS_TABLE
