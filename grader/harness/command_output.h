// What a shell command prints on its standard output: how the grader's tools read binutils (nm,
// objdump, c++filt, ptxas). Plain C++.
#pragma once

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace workbook {

inline std::string command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t got = fread(buffer.data(), 1, buffer.size(), pipe.get())) output.append(buffer.data(), got);
  return output;
}

}  // namespace workbook
