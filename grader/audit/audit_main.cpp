// workbook_audit: the checks ./workbook runs on a student's file (host_audit.h, gpu_code.h). It links
// no student code.
//   workbook_audit includes --lab-folder=DIR --student-headers=DIR --internals=DIR FILE
//       before compiling: FILE's #include lines
//   workbook_audit gpu-code --object=LIBRARY --architectures=FILE --source=NAME
//       after compiling: the GPU code LIBRARY carries is exactly what FILE's CUDA architectures
//       ("80;90a", written by the build for the lab) make, the reference solution's own
//   workbook_audit machine-code FILE DUMP [FILE DUMP...]
//       the machine code the build dumped of each FILE (a library, a fat binary) into its DUMP reads,
//       kernel by kernel, as cuobjdump -fun's listing does (machine_code.h): the checks may read either
//   workbook_audit kernels --allowed=FILE[,FILE...] [--student=LIBRARY] PROGRAM
//       every kernel PROGRAM defines, but LIBRARY's (the student's file), is named in a FILE: a
//       student's grader holds the grader's and the given code's kernels, and no witness or mutant
// Each finding is printed as "[host-code] what: why" ("[gpu-code] ..." for gpu-code). Exit 0: nothing
// found; 1: findings; 2: bad usage or a tool that failed.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "audit/gpu_code.h"
#include "audit/host_audit.h"
#include "audit/machine_code.h"

namespace {

namespace audit = workbook::host_audit;

int print(const std::vector<audit::Finding>& findings) {
  for (const audit::Finding& finding : findings) std::cout << audit::describe(finding) << '\n';
  return findings.empty() ? 0 : 1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// gpu-code: whether `object` holds the GPU code of the build's architectures (the text of
// `architectures_file`), and nothing else.
int check_gpu_code(const std::string& source, const std::string& architectures_file, const std::string& object) {
  // A file compiled for other GPUs than the build's still runs, from PTX the driver compiles at load
  // time: graded as code nobody asked for, against bars set with the build's own machine code.
  std::string architectures = read_file(architectures_file);
  while (!architectures.empty() && std::isspace(static_cast<unsigned char>(architectures.back())))
    architectures.pop_back();
  const std::set<std::string> wanted = workbook::gpu_code_for_architectures(architectures);
  const std::set<std::string> found = workbook::gpu_code_in_file(object);
  if (found == wanted) return 0;
  std::set<std::string> missing, extra;
  std::set_difference(wanted.begin(), wanted.end(), found.begin(), found.end(), std::inserter(missing, missing.end()));
  std::set_difference(found.begin(), found.end(), wanted.begin(), wanted.end(), std::inserter(extra, extra.end()));
  std::cout << "[gpu-code] " << source << " was compiled to " << workbook::listed(found) << ", not to "
            << workbook::listed(wanted) << " (CUDA architectures " << architectures
            << "), the GPU code of every file of this build"
            << (missing.empty() ? "" : "; missing: " + workbook::listed(missing))
            << (extra.empty() ? "" : "; not asked for: " + workbook::listed(extra))
            << ". It is not graded: its kernels would not run as the machine code the bars were set with. The build "
               "did this, not the file (docs/instructors.md, 'The GPU code a class is built for')\n";
  return 1;
}

// kernels: every kernel of `program` is the student's (the kernels of `student`, if given) or listed
// in one of the comma-separated `allowed_lists`.
int check_kernels(const std::string& program, const std::string& allowed_lists, const std::string& student) {
  std::set<std::string> allowed;
  std::istringstream lists(allowed_lists);
  for (std::string list; std::getline(lists, list, ',');) {
    std::istringstream lines(read_file(list));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] != '#') allowed.insert(line);
  }
  const std::set<std::string> students = student.empty() ? std::set<std::string>{} : audit::kernels_of(student);
  // A line ending in '*' names every kernel that starts with the rest: a vendor library's, whose
  // names carry the build's architectures ("void cub::CUB_300001_SM_900::...").
  const auto listed = [&](const std::string& kernel) {
    if (allowed.contains(kernel)) return true;
    for (const std::string& line : allowed)
      if (line.ends_with('*') && kernel.starts_with(line.substr(0, line.size() - 1))) return true;
    return false;
  };
  int unknown = 0;
  for (const std::string& kernel : audit::kernels_of(program))
    if (!students.contains(kernel) && !listed(kernel)) {
      std::cout << "[kernels] " << kernel << ": a kernel of " << program
                << " that is neither the student's nor listed in " << allowed_lists << '\n';
      ++unknown;
    }
  if (unknown > 0)
    std::cout << "A student's build must hold no witness, mutant or solution kernel. If the kernels above are the "
                 "grader's own or the lab's given code, add their lines to the lab's list\n";
  return unknown == 0 ? 0 : 1;
}

int run(const std::string& command, const std::map<std::string, std::string>& flags,
        const std::vector<std::string>& files) {
  const auto flag = [&](const std::string& name) {
    const auto found = flags.find(name);
    if (found == flags.end() || found->second.empty())
      throw std::invalid_argument(command + " needs --" + name + "=...");
    return found->second;
  };
  if (command == "includes") {
    if (files.size() != 1) throw std::invalid_argument("includes takes one source file");
    audit::IncludeRules rules{flag("lab-folder"), flag("student-headers"), flag("internals"),
                              [](const std::string& path) { return std::ifstream(path).good(); }};
    const std::string name = files[0].substr(files[0].find_last_of('/') + 1);
    return print(audit::check_includes(name, read_file(files[0]), rules));
  }
  if (command == "gpu-code") return check_gpu_code(flag("source"), flag("architectures"), flag("object"));
  if (command == "kernels") {
    if (files.size() != 1) throw std::invalid_argument("kernels takes one program");
    return check_kernels(files[0], flag("allowed"), flags.contains("student") ? flag("student") : "");
  }
  if (command == "machine-code") {
    if (files.empty() || files.size() % 2 != 0)
      throw std::invalid_argument("machine-code takes files and their dumps, FILE DUMP [FILE DUMP...]");
    int differing = 0;
    for (std::size_t i = 0; i < files.size(); i += 2)
      if (const std::string why = workbook::dump_disagrees({files[i], files[i + 1]}); !why.empty()) {
        std::cout << "[machine-code] " << why << '\n';
        ++differing;
      }
    return differing == 0 ? 0 : 1;
  }
  throw std::invalid_argument("unknown command '" + command + "': includes, gpu-code, kernels or machine-code");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: workbook_audit includes|gpu-code|kernels|machine-code --flag=value... [FILE]\n";
    return 2;
  }
  std::map<std::string, std::string> flags;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) == 0) {
      const std::size_t equals = a.find('=');
      flags[a.substr(2, equals == std::string::npos ? std::string::npos : equals - 2)] =
          equals == std::string::npos ? "1" : a.substr(equals + 1);
    } else {
      files.push_back(a);
    }
  }
  try {
    return run(argv[1], flags, files);
  } catch (const std::exception& error) {
    std::cerr << "workbook_audit: " << error.what() << '\n';
    return 2;
  }
}
