// A lab's interface header is the one place its student's functions are written: each line marked
// `// TODO(NN.k)` declares one. From those lines the build writes the two lists that carry a call
// across the trust boundary (grader/planner/planner.h, grader/judge/judge.h):
//   - the planner's: the functions it serves, each named by the function itself
//     (WORKBOOK_STUDENT_FUNCTION), linked with the student's file;
//   - the judge's stand-ins: a definition of each function that asks the planner for it by its own
//     name (__func__), linked in place of the student's file.
// Both are compiled against the header, so a line written wrongly here cannot pass: a stand-in whose
// signature is not the header's does not compile (it is defined by its qualified name), and a
// function the steps call but no line marks is an undefined reference in the judge's link.
//   workbook_student_functions HEADER SHOWN_AS PLANNER_OUT JUDGE_OUT
// SHOWN_AS is the header's path as a student reads it (labs/02_memory/memory.h), for the messages.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Parameter {
  std::string type, name;
};

// One function of the student's, as its header line declares it.
struct StudentFunction {
  std::string space;  // its namespace: the one the header opened last before its line
  std::string result, name, parameters;
  std::vector<Parameter> split;
  bool launches() const { return result == "void"; }  // a launcher: it takes the stream, returns nothing
  std::string qualified() const { return space + "::" + name; }
};

struct Refused {
  std::string why;
};

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "const CopyProblem& problem, cudaStream_t stream" -> {const CopyProblem&, problem}, {cudaStream_t, stream}
std::vector<Parameter> parameters_of(const std::string& list) {
  std::vector<Parameter> split;
  if (trimmed(list).empty()) return split;
  if (list.find_first_of("<(") != std::string::npos)
    throw Refused{"a parameter's type with a template or a function in it: give it a name with `using` first"};
  static const std::regex named(R"(^(.*[^A-Za-z0-9_ ]|.*[A-Za-z0-9_] )\s*([A-Za-z_][A-Za-z0-9_]*)$)");
  std::istringstream words(list);
  for (std::string one; std::getline(words, one, ',');) {
    std::smatch m;
    const std::string parameter = trimmed(one);
    if (!std::regex_match(parameter, m, named)) throw Refused{"name every parameter (`" + parameter + "` has no name)"};
    split.push_back({trimmed(m[1]), m[2]});
  }
  return split;
}

std::vector<StudentFunction> read_header(const std::string& header, const std::string& shown) {
  std::ifstream in(header);
  if (!in) throw Refused{"cannot read " + header};
  static const std::regex opens(R"(^\s*namespace\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{)"),
      marked(R"(//\s*TODO\([0-9]+\.[0-9]+\))"),
      declaration(
          R"(^\s*([A-Za-z_][A-Za-z0-9_:<>, ]*?[A-Za-z0-9_>])\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*;\s*//.*$)");
  std::vector<StudentFunction> functions;
  std::set<std::string> names;
  std::string space;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string where = shown + ":" + std::to_string(number) + ": ";
    std::smatch m;
    if (std::regex_search(line, m, opens)) space = m[1];
    if (!std::regex_search(line, marked)) continue;
    if (!std::regex_match(line, m, declaration))
      throw Refused{where +
                    "a line marked TODO(NN.k) declares one function the student writes, whole on that line "
                    "(`void f(const Problem& problem, cudaStream_t stream);  // TODO(NN.k)`); this one does not:\n  " +
                    line};
    StudentFunction f{space, m[1], m[2], m[3], {}};
    if (f.space.empty()) throw Refused{where + f.name + " is declared outside the lab's namespace"};
    try {
      f.split = parameters_of(f.parameters);
    } catch (const Refused& refused) {
      throw Refused{where + f.name + ": " + refused.why};
    }
    int streams = 0;
    for (const Parameter& p : f.split) streams += p.type == "cudaStream_t";
    if (f.launches() ? streams != 1 : streams != 0)
      throw Refused{where + f.name +
                    ": a function the student writes either launches (returns void and takes one "
                    "cudaStream_t) or answers (returns a value, takes no stream)"};
    if (!names.insert(f.name).second) throw Refused{where + f.name + " is marked twice: one function per name"};
    functions.push_back(f);
  }
  if (functions.empty()) throw Refused{shown + ": no line is marked // TODO(NN.k): nothing for a student to write"};
  return functions;
}

// The arguments a stand-in sends, in the header's order: everything but the stream, which the
// judge passes on its own (judged_launch's second argument).
std::string sent_arguments(const StudentFunction& f) {
  std::string sent;
  for (const Parameter& p : f.split)
    if (p.type != "cudaStream_t") sent += ", " + p.name;
  return sent;
}

std::string stream_of(const StudentFunction& f) {
  for (const Parameter& p : f.split)
    if (p.type == "cudaStream_t") return p.name;
  return "";
}

void write(const std::string& path, const std::string& text) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) throw Refused{"cannot write " + path + ": " + error.message()};
  // Rewritten only when it changes, so that a header edited elsewhere recompiles nothing here.
  std::ifstream old(path);
  std::ostringstream had;
  had << old.rdbuf();
  if (old && had.str() == text) return;
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw Refused{"cannot write " + path};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: workbook_student_functions HEADER SHOWN_AS PLANNER_OUT JUDGE_OUT\n";
    return 2;
  }
  const std::string header = argv[1], shown = argv[2];
  std::vector<StudentFunction> functions;
  try {
    functions = read_header(header, shown);
  } catch (const Refused& refused) {
    std::cerr << refused.why << '\n';
    return 1;
  }
  const std::string included = std::filesystem::path(header).filename().string();
  const std::string written =
      "// Written by the build from " + shown + " (grader/protocol/student_functions.cpp): do not edit.\n";

  std::ostringstream planner;
  planner << written
          << "// The functions the planner serves: each called here, with the judge's arguments, never in the judge.\n"
          << "#include \"" << included << "\"\n#include \"planner/planner.h\"\n\n"
          << "const std::vector<workbook::StudentFunction>& workbook::lab_functions() {\n"
          << "  static const std::vector<StudentFunction> functions = {\n";
  for (const StudentFunction& f : functions) planner << "      WORKBOOK_STUDENT_FUNCTION(" << f.qualified() << "),\n";
  planner << "  };\n  return functions;\n}\n";

  std::ostringstream judge;
  judge << written
        << "// The judge's stand-ins: each asks the student's planner for itself by its own name (__func__).\n"
        << "#include \"judge/judge.h\"\n#include \"" << included << "\"\n";
  for (const StudentFunction& f : functions) {
    // Defined by the qualified name, so that a signature other than the header's does not compile;
    // the result type after the name, where the lab's namespace names it.
    judge << "\nauto " << f.qualified() << "(" << f.parameters << ") -> " << f.result << " {\n";
    if (f.launches()) judge << "  workbook::judged_launch(__func__, " << stream_of(f) << sent_arguments(f) << ");\n";
    else judge << "  return workbook::judged_answer<" << f.result << ">(__func__" << sent_arguments(f) << ");\n";
    judge << "}\n";
  }
  try {
    write(argv[3], planner.str());
    write(argv[4], judge.str());
  } catch (const Refused& refused) {
    std::cerr << refused.why << '\n';
    return 1;
  }
  return 0;
}
