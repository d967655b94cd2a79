#include "machine_code.h"

#include <cxxabi.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

#ifndef WORKBOOK_CUOBJDUMP
#define WORKBOOK_CUOBJDUMP "cuobjdump"  // the build names the toolkit's own; else the PATH's
#endif

namespace workbook {

std::map<std::string, std::string> sass_by_kernel(std::string_view cuobjdump_output) {
  std::map<std::string, std::string> kernels;
  std::istringstream lines{std::string(cuobjdump_output)};
  const std::regex function_line(R"(^\s*Function\s*:\s*(\S+)\s*$)");
  std::string line, current;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, function_line)) current = m[1];
    else if (!current.empty()) kernels[current] += line + '\n';
  }
  return kernels;
}

bool reads_block_index(std::string_view sass) {
  // "S2R R0, SR_CTAID.X" or "S2UR UR4, SR_CTAID.Y"; SR_NCTAID (gridDim) does not match.
  static const std::regex block_index(R"(\bSR_(CTAID|CLUSTERID)\.[XYZ]\b)");
  return std::regex_search(sass.begin(), sass.end(), block_index);
}

bool watches_other_blocks(std::string_view sass) {
  // "LDG.E.64.STRONG.SYS R22, ...", "ATOMG.E.EXCH.64.STRONG.GPU PT, ...", "MEMBAR.SC.GPU"; not
  // "LDG.E" (may be served from this SM's L1), "REDG.E.ADD..." or "MEMBAR.SC.CTA".
  static const std::regex watch(R"(\b(LDG?\.[\w.]*STRONG\.(GPU|SYS)|ATOMG?\.[\w.]+|MEMBAR\.[\w.]*(GPU|SYS))\b)");
  return std::regex_search(sass.begin(), sass.end(), watch);
}

const std::map<std::string, std::string>& this_programs_sass() {
  static const std::map<std::string, std::string> kernels = [] {
    // popen's child is a shell, whose /proc/self/exe is the shell: the grader's path is read here.
    std::array<char, 4096> path{};
    const ssize_t length = readlink("/proc/self/exe", path.data(), path.size() - 1);
    if (length <= 0) throw std::runtime_error("cannot find this program's own file (/proc/self/exe)");
    const std::string program(path.data(), static_cast<std::size_t>(length));
    const std::string run = std::string("'") + WORKBOOK_CUOBJDUMP + "' -sass '" + program + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(run.c_str(), "r"), pclose);
    if (!pipe) throw std::runtime_error("cannot run " + run);
    std::string output;
    std::array<char, 65536> buffer;
    while (std::size_t got = fread(buffer.data(), 1, buffer.size(), pipe.get())) output.append(buffer.data(), got);
    std::map<std::string, std::string> found = sass_by_kernel(output);
    if (found.empty())
      throw std::runtime_error("cuobjdump (" + std::string(WORKBOOK_CUOBJDUMP) +
                               ", from the CUDA toolkit) found no kernel in " + program + ": " + output.substr(0, 300));
    return found;
  }();
  return kernels;
}

std::string sass_of(const std::string& kernel_name) {
  const std::map<std::string, std::string>& kernels = this_programs_sass();
  if (const auto exact = kernels.find(kernel_name); exact != kernels.end()) return exact->second;
  for (const auto& [mangled, sass] : kernels)
    if (demangled(mangled) == kernel_name) return sass;
  throw std::runtime_error("cuobjdump shows no machine code for kernel " + kernel_name + " in this program");
}

std::string demangled(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : mangled;
}

}  // namespace workbook
