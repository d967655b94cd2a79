// Static checks on a lab's compiled code: no GPU needed, so they run in CI. They prove what the
// handouts claim about the reference solution: no kernel spills to local memory, the kernels that
// promise 16-byte loads and stores really issue them, the starter exports exactly the solution's
// functions (so the one grader links with either), and neither calls or includes a vendor library.
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

#include "command_output.h"

namespace {

struct Arguments {
  std::string starter, solution, ptx, ptxas;
  std::string vendor_steps_header;  // --vendor-steps=HEADER: report which steps use a vendor library
  std::vector<std::string> wide;  // parts of kernel names that promise 16-byte accesses
  // Student code (static libraries and the sources they are built from) that must not use a vendor
  // library; with expect_vendor, a mutant that does, which the check must catch.
  std::vector<std::string> student_libraries, student_sources;
  bool expect_vendor = false;
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
  std::istringstream lines(run("'" + arguments.ptxas + "' -v -arch=sm_90 '" + arguments.ptx + "' -o /dev/null 2>&1 | c++filt"));
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

namespace {

// The vendor libraries a lab must not lean on: the workbook's point is to write the kernels.
const std::regex kVendorSymbol(R"(^\s*U\s+(cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg)\w*)");
const std::regex kVendorInclude(R"(^\s*#\s*include\s*[<"](cublas|cufft|cusparse|curand|cusolver|cudnn|cub/|thrust/|cutlass|cute/))");

// Each use of a vendor library in the student code: an undefined symbol or an #include.
std::vector<std::string> vendor_uses() {
  std::vector<std::string> uses;
  for (const std::string& library : arguments.student_libraries) {
    std::istringstream lines(run("nm -u '" + library + "'"));
    std::string line;
    std::smatch m;
    while (std::getline(lines, line))
      if (std::regex_search(line, m, kVendorSymbol)) uses.push_back(library + " calls " + line.substr(line.find('U') + 2));
  }
  // Each source and the files it includes with quotes, found beside it (a solution in parts, a
  // student's own header): a header-only library such as CUB leaves no undefined symbol to see.
  const std::regex local_include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::filesystem::path> pending(arguments.student_sources.begin(), arguments.student_sources.end());
  std::set<std::filesystem::path> seen;
  while (!pending.empty()) {
    const std::filesystem::path source = pending.back();
    pending.pop_back();
    if (!seen.insert(source).second) continue;
    std::ifstream lines(source);
    if (!lines) throw std::runtime_error("cannot read " + source.string());
    std::string line;
    std::smatch m;
    while (std::getline(lines, line)) {
      if (std::regex_search(line, kVendorInclude)) uses.push_back(source.string() + ": " + line);
      if (std::regex_search(line, m, local_include))
        if (const std::filesystem::path beside = source.parent_path() / m[1].str(); std::filesystem::exists(beside))
          pending.push_back(beside.lexically_normal());
    }
  }
  return uses;
}

}  // namespace

TEST_CASE("student code uses no vendor library (cuBLAS, cuFFT, CUB, Thrust, ...)") {
  REQUIRE_MESSAGE(!(arguments.student_libraries.empty() && arguments.student_sources.empty()), "nothing to check");
  const std::vector<std::string> uses = vendor_uses();
  if (arguments.expect_vendor) {
    CHECK_MESSAGE(!uses.empty(), "the check found no vendor library in code that uses one: it would let it through");
  } else {
    for (const std::string& use : uses) CHECK_MESSAGE(false, use, ": write the kernel instead");
  }
}

// A launcher allocates no device memory: memory a step needs beyond its arrays is a workspace the
// caller gives it (the problem's `workspace`, sized by the step's *_workspace_bytes()), as CUB's
// callers give temporary storage. An allocation inside a launcher would be timed, would synchronize
// the device, and (kept in a static, as lab 04's solution once did) would outlive the call and
// assume one stream.
TEST_CASE("student code allocates no device memory (it asks for a workspace)") {
  if (arguments.student_libraries.empty()) return;
  const std::regex allocation(R"(^\s*U\s+(cudaMalloc\w*|cuMemAlloc\w*))");
  for (const std::string& library : arguments.student_libraries) {
    std::istringstream lines(run("nm -u '" + library + "'"));
    std::string line;
    std::smatch m;
    while (std::getline(lines, line))
      if (std::regex_search(line, m, allocation))
        CHECK_MESSAGE(false, library, " calls ", m[1].str(), ": take device memory from the problem's workspace instead");
  }
}

// --vendor-steps=HEADER: which steps of the student's library call a vendor library, for `grade`.
// Each launcher is named in the lab's header beside its step ("void sgemm_coalesced(...);  //
// TODO(04.1)"). objdump's relocations give, per function, the symbols it refers to: a launcher
// uses a vendor library when it refers to one, or to a function that does (followed to a fixed
// point). Prints "04.1<TAB>cublasSgemm_v2" per step found, and "*<TAB>symbol" for a vendor call no
// launcher is seen to reach (a call inside one object file needs no relocation): then every step
// of the lab is judged to use it.
int report_vendor_steps() {
  std::map<std::string, std::string> step_of;  // launcher's name -> step id
  {
    std::ifstream header(arguments.vendor_steps_header);
    if (!header) throw std::runtime_error("cannot read " + arguments.vendor_steps_header);
    const std::regex declaration(R"(^\s*\w[\w:<>\s]*\s(\w+)\s*\(.*\)\s*;\s*//\s*TODO\((\d+\.\d+)\))");
    std::string line;
    std::smatch m;
    while (std::getline(header, line))
      if (std::regex_search(line, m, declaration)) step_of[m[1]] = m[2];
  }
  const std::regex vendor(R"(^(cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg)\w*|^(cub|thrust|cutlass|cute)::)");
  std::map<std::string, std::set<std::string>> refers;  // function -> symbols its code refers to
  for (const std::string& library : arguments.student_libraries) {
    std::istringstream lines(run("objdump -dr -C --no-show-raw-insn '" + library + "' 2>/dev/null"));
    const std::regex function(R"(^[0-9a-f]+ <(.*)>:$)");
    const std::regex relocation(R"(R_X86_64_\w+\s+(.*?)(-0x[0-9a-f]+|\+0x[0-9a-f]+)?$)");
    std::string line, current;
    std::smatch m;
    while (std::getline(lines, line)) {
      if (std::regex_search(line, m, function)) current = m[1];
      else if (!current.empty() && std::regex_search(line, m, relocation)) refers[current].insert(m[1]);
    }
  }
  // The bare name of a demangled function, "sgemm_lab::sgemm_coalesced(...)" -> "sgemm_coalesced".
  const auto bare = [](const std::string& name) {
    const std::string before_arguments = name.substr(0, name.find('('));
    const std::size_t colons = before_arguments.rfind("::");
    return colons == std::string::npos ? before_arguments : before_arguments.substr(colons + 2);
  };
  // Which vendor symbols each function reaches, to a fixed point.
  std::map<std::string, std::set<std::string>> reaches;
  for (const auto& [function, symbols] : refers)
    for (const std::string& symbol : symbols)
      if (std::regex_search(symbol, vendor)) reaches[function].insert(symbol);
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [function, symbols] : refers)
      for (const std::string& symbol : symbols)
        for (const auto& [callee, used] : reaches)
          if (callee != function && (callee == symbol || callee.rfind(symbol + "(", 0) == 0))
            for (const std::string& u : used) changed = reaches[function].insert(u).second || changed;
  }
  std::set<std::string> attributed, all_used;
  for (const auto& [function, used] : reaches) {
    all_used.insert(used.begin(), used.end());
    const auto step = step_of.find(bare(function));
    if (step == step_of.end()) continue;
    for (const std::string& u : used) std::cout << step->second << '\t' << u << '\n';
    attributed.insert(used.begin(), used.end());
  }
  for (const std::string& u : all_used)
    if (!attributed.contains(u)) std::cout << "*\t" << u << '\n';
  return 0;
}

int main(int argc, char** argv) {
  std::vector<const char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const std::string& flag) { return a.rfind(flag, 0) == 0 ? a.substr(flag.size()) : std::string(); };
    if (auto v = value("--starter="); !v.empty()) arguments.starter = v;
    else if (auto v = value("--solution="); !v.empty()) arguments.solution = v;
    else if (auto v = value("--ptx="); !v.empty()) arguments.ptx = v;
    else if (auto v = value("--ptxas="); !v.empty()) arguments.ptxas = v;
    else if (auto v = value("--wide="); !v.empty()) arguments.wide.push_back(v);
    else if (auto v = value("--student-library="); !v.empty()) arguments.student_libraries.push_back(v);
    else if (auto v = value("--student-source="); !v.empty()) arguments.student_sources.push_back(v);
    else if (auto v = value("--vendor-steps="); !v.empty()) arguments.vendor_steps_header = v;
    else if (a == "--expect-vendor") arguments.expect_vendor = true;
    else rest.push_back(argv[i]);
  }
  if (!arguments.vendor_steps_header.empty()) {
    try {
      return report_vendor_steps();
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      return 1;
    }
  }
  doctest::Context context(static_cast<int>(rest.size()), rest.data());
  return context.run();
}
