// What a shell command prints on its standard output: how the grader's tools read binutils (nm,
// objdump, c++filt, ptxas). Plain C++.
#pragma once

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace workbook {

// `text` as one word of a shell command, whatever it holds: a path, or a kernel's name, which is the
// student's to choose. No quote or `$` in it can end the word or run anything.
inline std::string shell_quoted(const std::string& text) {
  std::string word = "'";
  for (char c : text) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return word + "'";
}

inline std::string command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t got = fread(buffer.data(), 1, buffer.size(), pipe.get())) output.append(buffer.data(), got);
  return output;
}

}  // namespace workbook
