// Static checks on a lab's compiled code: no GPU needed, so they run in CI. They prove what the
// handouts claim about the reference solution: no kernel spills to local memory, the kernels that
// promise 16-byte loads and stores really issue them, and the starter exports exactly the solution's
// functions (so the one grader links with either). What either may include (no vendor library's
// header) is the #include check's (grader/audit/host_audit.h).
//
// The solution's kernels are read from its Hopper PTX (built by add_lab() with the same flags):
// `ptxas -v` reports each kernel's registers, stack frame and spills, and the PTX shows the width
// of every global load and store (ld.global.v4.f32 becomes the 16-byte LDG.E.128). Names are
// demangled with binutils' c++filt, exported functions listed with nm.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "audit/command_output.h"

namespace {

struct Arguments {
  std::string starter, solution, ptx, ptxas;
  std::vector<std::string> wide;  // parts of kernel names that promise 16-byte accesses
};
Arguments arguments;

std::string run(const std::string& command) { return workbook::command_output(command); }

// The PTX body of each kernel, keyed by demangled name.
std::map<std::string, std::string> ptx_by_kernel() {
  std::map<std::string, std::string> kernels;
  std::istringstream lines(run("c++filt < '" + arguments.ptx + "'"));
  std::string line, current;
  const std::regex entry(R"(\.entry\s+(.*)\()");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) current = m[1];
    else if (!current.empty()) kernels[current] += line + '\n';
  }
  return kernels;
}

std::set<std::string> exported_functions(const std::string& library) {
  std::set<std::string> names;
  std::istringstream lines(run("nm -C --defined-only '" + library + "'"));
  std::string line;
  while (std::getline(lines, line)) {
    // "0000000000000000 T memory_lab::copy_float2(...)": T is a global function in .text.
    // nvcc gives functions in anonymous namespaces external linkage too: they are no interface.
    // Their launch stubs keep the raw mangled name, in which the namespace is _GLOBAL__N_.
    if (line.size() > 19 && line[17] == 'T' && line.find("(anonymous namespace)") == std::string::npos &&
        line.find("_GLOBAL__N_") == std::string::npos)
      names.insert(line.substr(19));
  }
  return names;
}

}  // namespace

TEST_CASE("no kernel of the solution uses local memory (spills or a stack frame)") {
  // ptxas -v prints, per kernel: "Function properties for NAME" then
  // "N bytes stack frame, N bytes spill stores, N bytes spill loads".
  std::istringstream lines(
      run("'" + arguments.ptxas + "' -v -arch=sm_90 '" + arguments.ptx + "' -o /dev/null 2>&1 | c++filt"));
  std::string line, function;
  int kernels = 0;
  const std::regex properties(R"(Function properties for (.*))");
  const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, properties)) function = m[1];
    else if (std::regex_search(line, m, frame)) {
      ++kernels;
      INFO(function, ": ", line);
      CHECK(m[1] == "0");
      CHECK(m[2] == "0");
      CHECK(m[3] == "0");
    }
  }
  CHECK_MESSAGE(kernels > 0, "ptxas reported no kernel in ", arguments.ptx);
}

TEST_CASE("kernels that promise 16-byte accesses issue them") {
  const std::map<std::string, std::string> kernels = ptx_by_kernel();
  const std::regex wide_load(R"(ld\.global(\.[a-z0-9:_]+)*\.v4\.(f32|b32|u32))");
  const std::regex wide_store(R"(st\.global(\.[a-z0-9:_]+)*\.v4\.(f32|b32|u32))");
  for (const std::string& part : arguments.wide) {
    int found = 0;
    for (const auto& [name, ptx] : kernels) {
      if (name.find(part) == std::string::npos) continue;
      ++found;
      INFO(name);
      CHECK_MESSAGE(std::regex_search(ptx, wide_load), "no 16-byte global load (ld.global.v4)");
      CHECK_MESSAGE(std::regex_search(ptx, wide_store), "no 16-byte global store (st.global.v4)");
    }
    CHECK_MESSAGE(found > 0, "no kernel named like '", part, "' in the solution");
  }
}

TEST_CASE("the starter exports the same functions as the solution") {
  const std::set<std::string> starter = exported_functions(arguments.starter);
  const std::set<std::string> solution = exported_functions(arguments.solution);
  CHECK_FALSE(solution.empty());
  for (const std::string& name : solution) CHECK_MESSAGE(starter.contains(name), "the starter lacks ", name);
  for (const std::string& name : starter) CHECK_MESSAGE(solution.contains(name), "the solution lacks ", name);
}

int main(int argc, char** argv) {
  std::vector<const char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const std::string& flag) {
      return a.rfind(flag, 0) == 0 ? a.substr(flag.size()) : std::string();
    };
    if (auto v = value("--starter="); !v.empty()) arguments.starter = v;
    else if (auto v = value("--solution="); !v.empty()) arguments.solution = v;
    else if (auto v = value("--ptx="); !v.empty()) arguments.ptx = v;
    else if (auto v = value("--ptxas="); !v.empty()) arguments.ptxas = v;
    else if (auto v = value("--wide="); !v.empty()) arguments.wide.push_back(v);
    else rest.push_back(argv[i]);
  }
  doctest::Context context(static_cast<int>(rest.size()), rest.data());
  return context.run();
}
