// The tests of one lab, written for CTest. The build makes the lab's implementations (starter,
// solution, every mutant: cmake/AddLab.cmake) and says where it put each (labs/NN_topic/built-<kind>.txt,
// runner/built.h) and what the lab's tests need besides (labs/NN_topic/lab-tests.txt); this
// program, run by the build, writes the add_test() lines that prove them into a file CTest reads
// (labs/NN_topic/lab_tests.cmake). So what each test runs and expects is said here, in C++, once:
// the build's CMake knows no test's arguments, and no proofs grammar. This file is compiled once;
// each lab's program links it with lab_proofs.cpp, compiled against the lab's proofs table in the
// instructor tree (solutions/NN_topic/proofs/proofs.h, whose kinds proofs_table.h explains), and
// with no table in a student's copy, whose tests are the starter's.
// usage: lab_tests BUILD_DIR NN_topic OUTPUT
#include "lab_tests.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "protocol/lab_facts.h"
#include "runner/checkout.h"

namespace workbook::lab_tests {

namespace {

namespace fs = std::filesystem;

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

}  // namespace

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

Strings include_check(const Lab& lab, const std::string& file) {
  return {lab.fact("workbook_audit"),
          "includes",
          "--lab-folder=" + lab.in_source("labs/" + lab.name),
          "--student-headers=" + lab.in_source("include"),
          "--internals=" + lab.in_source("grader"),
          file};
}

}  // namespace workbook::lab_tests

using namespace workbook::lab_tests;

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
    lab.said = workbook::runner::build_keys(lab.build + "/labs/" + lab.name + "/lab-tests.txt");
    lab.topic = lab.fact("topic");
    lab.source = lab.fact("source");
    lab.steps = workbook::runner::describe_lab(lab.of("starter").judge, {}).steps;  // as the runner asks
    std::vector<Test> tests;
    starter_tests(lab, tests);
    proofs_tests(lab, tests);
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
