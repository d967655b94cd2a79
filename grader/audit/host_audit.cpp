#include "audit/host_audit.h"

#include "audit/command_output.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace workbook::host_audit {

namespace {

// The vendor libraries a lab must not lean on, by the names of their headers.
// The grader's folders whose headers a student's file may not name (a new folder of the grader's is
// added here); the build does not look in them for a student's file anyway: this says why.
constexpr const char* kGraderFolders[] = {"audit", "harness", "judge", "planner", "protocol", "runner", "tests"};
const std::regex kVendorHeader(
    R"(^(cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg|npp|nccl|cupti|nvrtc|nvPTXCompiler|nvJitLink)\w*(\.h(pp)?)?$|^(cub|thrust|cutlass|cute)/|^(cub|thrust|cutlass|cute)$)");
std::string run(const std::string& command) { return workbook::command_output(command); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Reading a source as the preprocessor does

// The text with backslash-newlines joined and comments replaced by a space, as translation phases
// 2 and 3 do, keeping for each logical line the physical line it starts on. String and character
// literals are kept whole (a "//" inside one is no comment); raw strings too.
struct LogicalLine {
  int number;
  std::string text;
};
std::vector<LogicalLine> logical_lines(const std::string& source) {
  // Phase 2: splices.
  std::string joined;
  std::vector<int> line_of;  // physical line of each character of `joined`
  int physical = 1;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\') {
      std::size_t j = i + 1;
      while (j < source.size() && (source[j] == ' ' || source[j] == '\t' || source[j] == '\r')) ++j;  // GCC allows it
      if (j < source.size() && source[j] == '\n') {
        i = j;
        ++physical;
        continue;
      }
    }
    joined += source[i];
    line_of.push_back(physical);
    if (source[i] == '\n') ++physical;
  }
  // Phase 3: comments, with literals skipped.
  std::vector<LogicalLine> lines;
  std::string current;
  int start = 1;
  bool at_line_start = true;
  for (std::size_t i = 0; i < joined.size(); ++i) {
    if (at_line_start) {
      start = line_of[i];
      at_line_start = false;
    }
    const char c = joined[i];
    const char next = i + 1 < joined.size() ? joined[i + 1] : '\0';
    if (c == '\n') {
      lines.push_back({start, current});
      current.clear();
      at_line_start = true;
    } else if (c == '/' && next == '/') {
      while (i + 1 < joined.size() && joined[i + 1] != '\n') ++i;
      current += ' ';
    } else if (c == '/' && next == '*') {
      // A block comment is one space, however many lines it spans: the directive it sits in goes on.
      std::size_t end = joined.find("*/", i + 2);
      i = end == std::string::npos ? joined.size() - 1 : end + 1;
      current += ' ';
    } else if (c == 'R' && next == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(joined[i - 1])) || joined[i - 1] == '_'))) {
      const std::size_t open = joined.find('(', i + 2);
      if (open == std::string::npos) {
        current += c;
        continue;
      }
      const std::string close = ")" + joined.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = joined.find(close, open);
      const std::size_t stop = end == std::string::npos ? joined.size() : end + close.size();
      // A raw string's text is no directive, whatever it holds: only its line breaks are kept.
      current += "R\"\"";
      for (std::size_t k = i; k < stop; ++k)
        if (joined[k] == '\n') {
          lines.push_back({start, current});
          current.clear();
          start = line_of[k];
        }
      i = stop - 1;
    } else if (c == '"' || c == '\'') {
      current += c;
      for (++i; i < joined.size() && joined[i] != c && joined[i] != '\n'; ++i) {
        current += joined[i];
        if (joined[i] == '\\' && i + 1 < joined.size()) current += joined[++i];
      }
      if (i < joined.size() && joined[i] == c) current += c;
      else if (i < joined.size()) --i;  // an unterminated literal ends at the line's end
    } else {
      current += c;
    }
  }
  if (!current.empty()) lines.push_back({start, current});
  return lines;
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\f\v");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\f\v") - first + 1);
}

// Why including `name` is refused, or "".
std::string include_refusal(const std::string& name, const IncludeRules& rules) {
  const std::string allowed =
      "a lab's file may include the lab's own headers, the workbook's student headers "
      "(workbook/...), and the CUDA toolkit's and the standard library's headers";
  if (name.empty()) return "an empty name";
  if (name[0] == '/' || name[0] == '\\' || name[0] == '~' || (name.size() > 1 && name[1] == ':'))
    return "an absolute path: " + allowed;
  std::string component;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '/' || name[i] == '\\') {
      if (component == "..") return "'..' leaves the folder it is found in: " + allowed;
      component.clear();
    } else {
      component += name[i];
    }
  }
  if (std::regex_search(name, kVendorHeader))
    return "a vendor library's header (cuBLAS, cuFFT, CUB, Thrust, CUTLASS, ...): the labs are about writing the "
           "kernels, so write this one instead";
  if (rules.exists(rules.lab_folder + "/" + name)) return "";
  if (name.rfind("workbook/", 0) == 0 && rules.exists(rules.student_headers + "/" + name)) return "";
  // A header of one of the grader's folders (grader/audit, grader/harness, grader/protocol...), by its
  // bare name or as the grader's own files name it, by its folder ("harness/skeleton.h").
  for (const char* folder : kGraderFolders)
    if (rules.exists(rules.internals + "/" + folder + "/" + name) ||
        (name.rfind(std::string(folder) + "/", 0) == 0 && rules.exists(rules.internals + "/" + name)))
      return "the grader's own header, not one of the workbook's student headers (workbook/...): " + allowed;
  // A path from the checkout's top (grader/..., solutions/..., labs/<another lab>/...): the build
  // would not find it, and it is not the student's to include.
  const std::string checkout = rules.internals + "/..";  // grader's checkout
  static const std::regex workbook_folder("(grader|solutions|labs|include|classroom|cmake|docs)/.*");
  if (std::regex_match(name, workbook_folder) || rules.exists(checkout + "/" + name))
    return "a file of the workbook's own, outside your lab's folder: " + allowed;
  return "";  // found among the toolkit's and the compiler's own folders
}

// ---------------------------------------------------------------------------------------------
// Reading an object file

struct Symbol {
  char type;  // nm's letter
  std::string mangled, demangled;
};

// Demangles every name in one call of c++filt (names that are no C++ names come back as they are).
std::vector<std::string> demangle(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  char path[] = "/tmp/workbook-audit-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("cannot make a temporary file for c++filt");
  close(fd);
  {
    std::ofstream out(path);
    for (const std::string& name : names) out << name << '\n';
  }
  std::vector<std::string> result = lines_of(run("c++filt < " + workbook::shell_quoted(path)));
  std::remove(path);
  if (result.size() != names.size()) throw std::runtime_error("c++filt gave back a different number of names");
  return result;
}

std::vector<Symbol> symbols_of(const std::string& object) {
  std::vector<Symbol> symbols;
  std::vector<std::string> names;
  const std::regex line(R"(^([0-9a-f]*)\s+([A-Za-z?])\s+(\S+)$)");
  for (const std::string& text : lines_of(run("nm " + workbook::shell_quoted(object) + " 2>&1"))) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    symbols.push_back({m[2].str()[0], m[3], ""});
    names.push_back(m[3]);
  }
  const std::vector<std::string> demangled = demangle(names);
  for (std::size_t i = 0; i < symbols.size(); ++i) symbols[i].demangled = demangled[i];
  return symbols;
}

bool is_import(char type) { return type == 'U' || type == 'w' || type == 'v'; }
}  // namespace

std::string describe(const Finding& finding) { return "[host-code] " + finding.what + ": " + finding.why; }

std::vector<Finding> check_includes(const std::string& file_name, const std::string& source,
                                    const IncludeRules& rules) {
  std::vector<Finding> findings;
  const auto refuse = [&](int line, const std::string& text, const std::string& why) {
    findings.push_back({file_name + ":" + std::to_string(line) + ": " + trimmed(text), why});
  };
  const std::regex directive(R"(^\s*(#|%:)\s*(include_next|include|import|embed)\b(.*)$)");
  const std::regex has_include(R"(__has_include(_next)?\s*\(\s*(["<])([^">]*)[">])");
  const std::regex incbin(R"(\bincbin\b)");
  for (const LogicalLine& line : logical_lines(source)) {
    std::smatch m;
    if (std::regex_search(line.text, incbin))
      refuse(line.number, line.text, "an assembler .incbin reads a file into the program: a lab's file reads no file");
    for (auto it = std::sregex_iterator(line.text.begin(), line.text.end(), has_include); it != std::sregex_iterator();
         ++it)
      if (const std::string why = include_refusal((*it)[3], rules); !why.empty()) refuse(line.number, line.text, why);
    if (!std::regex_match(line.text, m, directive)) continue;
    const std::string operand = trimmed(m[3]);
    if (m[2] == "embed") {
      refuse(line.number, line.text, "#embed reads a file into the program: a lab's file reads no file");
      continue;
    }
    const char open = operand.empty() ? '\0' : operand[0];
    const char close = open == '"' ? '"' : '>';
    const std::size_t end = operand.find(close, 1);
    if ((open != '"' && open != '<') || end == std::string::npos) {
      refuse(line.number, line.text,
             "a file named by a macro, or not named at all: write the header's name out, in quotes or angle brackets, "
             "so that it can be checked before the compiler reads it");
      continue;
    }
    if (const std::string why = include_refusal(operand.substr(1, end - 1), rules); !why.empty())
      refuse(line.number, line.text, why);
  }
  return findings;
}

namespace {

// The device names of the kernels whose host stubs `mangled` names. nvcc names each kernel's host
// stub "__device_stub_" + the kernel's device name, inside a name of its own
// ("_Z99__device_stub__ZN...", or a guard variable's "_ZGVZL108__device_stub__..."): the device name
// is the kernel's name in its module. The host function of a kernel template in an anonymous
// namespace is mangled with an 'L' the device name lacks, so it alone would not match; a template's
// stub may be inlined, but its statics stay.
void add_stub_kernels(const std::string& mangled, std::set<std::string>& kernels) {
  static const std::regex stub(R"((\d+)__device_stub_)");
  const std::size_t prefix = std::string("__device_stub_").size();
  for (auto m = std::sregex_iterator(mangled.begin(), mangled.end(), stub); m != std::sregex_iterator(); ++m) {
    const std::size_t length = std::stoul((*m)[1]), at = static_cast<std::size_t>(m->position(0) + (*m)[1].length());
    if (length > prefix && at + length <= mangled.size()) kernels.insert(mangled.substr(at + prefix, length - prefix));
  }
}

}  // namespace

std::set<std::string> kernels_of(const std::string& file) {
  std::set<std::string> mangled;
  for (const Symbol& symbol : symbols_of(file))
    if (!is_import(symbol.type)) add_stub_kernels(symbol.mangled, mangled);
  const std::vector<std::string> names = demangle({mangled.begin(), mangled.end()});
  return {names.begin(), names.end()};
}

}  // namespace workbook::host_audit
