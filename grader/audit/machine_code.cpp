#include "audit/machine_code.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iomanip>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "audit/command_output.h"

#ifndef WORKBOOK_CUOBJDUMP
#define WORKBOOK_CUOBJDUMP "cuobjdump"  // the build names the toolkit's own; else the PATH's
#endif

namespace workbook {

namespace {

// Read by hand, not with std::regex: a large file's dump (lab 04's solution, 5.7 MB) took a third
// of a second to split with two regular expressions per line, in every step's first case.
constexpr std::string_view kBlanks = " \t\r\n\f\v";

bool is_blank(char c) { return kBlanks.find(c) != std::string_view::npos; }
bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_lower_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool is_word_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The longest start of `text` whose characters all pass `keep`, taken off `text`.
template <typename Keep>
std::string_view take_while(std::string_view& text, Keep keep) {
  std::size_t n = 0;
  while (n < text.size() && keep(text[n])) ++n;
  const std::string_view taken = text.substr(0, n);
  text.remove_prefix(n);
  return taken;
}

// The first line of `text` (without its newline), taken off `text`.
std::string_view next_line(std::string_view& text) {
  const std::size_t end = std::min(text.find('\n'), text.size());
  const std::string_view line = text.substr(0, end);
  text.remove_prefix(std::min(end + 1, text.size()));
  return line;
}

std::string_view without_blanks_around(std::string_view text) {
  const std::size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

// NAME from a line "Function : NAME" (blanks around each part), else "".
std::string_view function_named_by(std::string_view line) {
  constexpr std::string_view kFunction = "Function";
  line = without_blanks_around(line);
  if (!line.starts_with(kFunction)) return {};
  line = without_blanks_around(line.substr(kFunction.size()));
  if (!line.starts_with(':')) return {};
  line = without_blanks_around(line.substr(1));
  return line.find_first_of(kBlanks) == std::string_view::npos ? line : std::string_view{};
}

// Whether a line is an instruction: it starts, after blanks, with its address, "/*0960*/" (four
// lower-case hexadecimal digits or more between the comment's marks).
bool is_instruction_line(std::string_view line) {
  take_while(line, is_blank);
  if (!line.starts_with("/*")) return false;
  line.remove_prefix(2);
  return take_while(line, is_lower_hex_digit).size() >= 4 && line.starts_with("*/");
}

}  // namespace

std::map<std::string, std::string> sass_by_kernel(std::string_view cuobjdump_output) {
  std::map<std::string, std::string> kernels;
  std::string_view name;           // the kernel whose lines these are
  std::string* current = nullptr;  // its text, from its first instruction on
  while (!cuobjdump_output.empty()) {
    const std::string_view line = next_line(cuobjdump_output);
    if (const std::string_view named = function_named_by(line); !named.empty()) {
      name = named;
      current = nullptr;
      continue;
    }
    // Its instructions alone ("/*0960*/ ..."): what follows a kernel's last one up to the next
    // kernel (another architecture's headers, say) depends on what else was dumped with it.
    if (name.empty() || !is_instruction_line(line)) continue;
    if (current == nullptr) current = &kernels[std::string(name)];
    // One space between words: cuobjdump pads its columns to the widest line of what it prints, so
    // a kernel's lines dumped with the whole file and dumped alone (-fun) differ only in spaces.
    for (std::string_view rest = line; take_while(rest, is_blank), !rest.empty();) {
      if (!current->empty() && current->back() != '\n') *current += ' ';
      current->append(take_while(rest, [](char c) { return !is_blank(c); }));
    }
    *current += '\n';
  }
  return kernels;
}

bool reads_block_index(std::string_view sass) {
  // "S2R R0, SR_CTAID.X" or "S2UR UR4, SR_CTAID.Y"; SR_NCTAID (gridDim) does not match.
  static const std::regex block_index(R"(\bSR_(CTAID|CLUSTERID)\.[XYZ]\b)");
  return std::regex_search(sass.begin(), sass.end(), block_index);
}

bool watches_other_blocks(std::string_view sass) {
  // Every kind of load that reads past this SM's L1, where another block's write lands: strong
  // (volatile, relaxed, acquire) loads, "LDG.E.64.STRONG.SYS R22, ..."; loads that bypass L1
  // (ld.cg, "LDG.E.BYPASS..."); cp.async into shared memory ("LDGSTS.E.BYPASS.128"); the copy
  // engine's loads ("UBLKCP.S.G", "UTMALDG"); atomics that return a value, "ATOMG.E.EXCH.64.STRONG.GPU";
  // an L1 invalidation ("CCTL.IVALL"), after which a plain load reads L2; GPU- or system-wide fences,
  // "MEMBAR.SC.GPU". Not "LDG.E" (may be served from this SM's L1 for ever), "REDG.E.ADD..." or
  // "MEMBAR.SC.CTA".
  static const std::regex watch(
      R"(\b(LDG?\.[\w.]*(STRONG\.(GPU|SYS)|BYPASS)|LDGSTS\b|UBLKCP\.S\.G|UTMALDG|CCTL\.[\w.]*IV\w*|ATOMG?\.[\w.]+|MEMBAR\.[\w.]*(GPU|SYS))\b)");
  return std::regex_search(sass.begin(), sass.end(), watch);
}

namespace {
// One instruction of a SASS listing: "/*0960*/  @!P0 BRA 0xbe0 ;" -> address 0x960, "@!P0 BRA 0xbe0".
struct Instruction {
  long address = 0;
  std::string predicate;  // "@!P0", or "" when it always runs
  std::string opcode;     // "BRA", "UBLKCP.G.S"
  std::string operands;
  long target = -1;  // the address its operands end with ("... 0xbe0"), a branch's target; else -1
};

// The address a line's operands end with, "0xbe0" (blanks after it allowed), or -1.
long address_at_end(std::string_view operands) {
  while (!operands.empty() && is_blank(operands.back())) operands.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < operands.size() && is_hex_digit(operands[operands.size() - 1 - digits])) ++digits;
  if (digits == 0 || !operands.substr(0, operands.size() - digits).ends_with("0x")) return -1;
  return std::stol(std::string(operands.substr(operands.size() - digits)), nullptr, 16);
}

// One line's instruction: blanks, "/*ADDRESS*/", blanks, an optional predicate ("@!P0", "@UP1")
// and blanks, the opcode (a capital letter, then letters, digits, '_' and '.'), blanks, and its
// operands up to the ';'. Nothing when the line is not one (a header, an encoding's comment).
std::optional<Instruction> instruction_on(std::string_view line) {
  take_while(line, is_blank);
  if (!line.starts_with("/*")) return std::nullopt;
  line.remove_prefix(2);
  const std::string_view address = take_while(line, is_hex_digit);
  if (address.empty() || !line.starts_with("*/")) return std::nullopt;
  line.remove_prefix(2);
  if (take_while(line, is_blank).empty()) return std::nullopt;
  Instruction i;
  i.address = std::stol(std::string(address), nullptr, 16);
  if (line.starts_with('@')) {  // '@', '!' or not, 'U' or not, 'P' and word characters; then blanks
    std::string_view rest = line.substr(1);
    if (rest.starts_with('!')) rest.remove_prefix(1);
    if (rest.starts_with('U')) rest.remove_prefix(1);
    if (!rest.starts_with('P')) return std::nullopt;
    rest.remove_prefix(1);
    if (take_while(rest, is_word_character).empty()) return std::nullopt;
    i.predicate = std::string(line.substr(0, line.size() - rest.size()));
    if (take_while(rest, is_blank).empty()) return std::nullopt;
    line = rest;
  }
  if (line.empty() || line.front() < 'A' || line.front() > 'Z') return std::nullopt;
  i.opcode = std::string(take_while(line, [](char c) { return is_word_character(c) || c == '.'; }));
  take_while(line, is_blank);
  const std::size_t end = line.find(';');
  if (end == std::string_view::npos) return std::nullopt;
  i.operands = std::string(line.substr(0, end));
  i.target = address_at_end(i.operands);
  return i;
}

// Read by hand, as sass_by_kernel() is: a kernel's listing is thousands of lines.
std::vector<Instruction> instructions_of(std::string_view sass) {
  std::vector<Instruction> all;
  while (!sass.empty())
    if (std::optional<Instruction> i = instruction_on(next_line(sass))) all.push_back(std::move(*i));
  return all;
}

bool starts_with_any(const std::string& opcode, std::initializer_list<const char*> prefixes) {
  for (const char* prefix : prefixes)
    if (opcode.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string hex(long address) {
  std::ostringstream text;
  text << "0x" << std::hex << std::setw(4) << std::setfill('0') << address;
  return text.str();
}
}  // namespace

std::string store_to_load_without_wait(std::string_view sass) {
  const std::vector<Instruction> code = instructions_of(sass);
  const auto is_store = [](const Instruction& i) {
    return starts_with_any(i.opcode, {"UBLKCP.G.S", "UTMASTG", "UBLKRED"});
  };
  const auto is_load = [](const Instruction& i) { return starts_with_any(i.opcode, {"UBLKCP.S.G", "UTMALDG"}); };
  const auto is_wait = [](const Instruction& i) { return starts_with_any(i.opcode, {"DEPBAR"}); };
  std::map<long, std::size_t> index_of;
  for (std::size_t k = 0; k < code.size(); ++k) index_of[code[k].address] = k;
  // Where control can go after instruction k: the next one, unless it always branches or exits;
  // a branch's target; anywhere, after an indirect branch.
  const auto successors = [&](std::size_t k) {
    const Instruction& i = code[k];
    const bool always = i.predicate.empty() || i.predicate == "@PT";
    std::vector<std::size_t> next;
    if (starts_with_any(i.opcode, {"BRX", "JMX"})) {
      for (std::size_t all = 0; all < code.size(); ++all) next.push_back(all);
      return next;
    }
    const bool branch = starts_with_any(i.opcode, {"BRA", "JMP"});
    const bool ends = starts_with_any(i.opcode, {"EXIT", "RET", "KILL"});
    if (branch && i.target >= 0)
      if (const auto found = index_of.find(i.target); found != index_of.end()) next.push_back(found->second);
    if (!((branch || ends) && always) && k + 1 < code.size()) next.push_back(k + 1);
    return next;
  };
  for (std::size_t start = 0; start < code.size(); ++start) {
    if (!is_store(code[start])) continue;
    std::vector<bool> seen(code.size(), false);
    std::vector<std::size_t> frontier = successors(start);
    while (!frontier.empty()) {
      const std::size_t k = frontier.back();
      frontier.pop_back();
      if (seen[k]) continue;
      seen[k] = true;
      if (is_wait(code[k])) continue;
      if (is_load(code[k]))
        return "the bulk store at " + hex(code[start].address) + " (" + code[start].opcode +
               ") reaches the bulk load at " + hex(code[k].address) + " (" + code[k].opcode +
               ") with no wait for the stores between them";
      for (std::size_t next : successors(k)) frontier.push_back(next);
    }
  }
  return "";
}

namespace {

// This program's own file: popen's child is a shell, whose /proc/self/exe is not the grader.
std::string this_program() {
  std::array<char, 4096> path{};
  const ssize_t length = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (length <= 0) throw std::runtime_error("cannot find this program's own file (/proc/self/exe)");
  return std::string(path.data(), static_cast<std::size_t>(length));
}

// What cuobjdump prints, its errors included, for `arguments` (each one word, quoted).
std::string cuobjdump(const std::vector<std::string>& arguments) {
  std::string command = shell_quoted(WORKBOOK_CUOBJDUMP);
  for (const std::string& a : arguments) {
    command += ' ';  // piece by piece: GCC 12 warns falsely (-Wrestrict) about " " + std::string
    command += shell_quoted(a);
  }
  return command_output(command + " 2>&1");
}

}  // namespace

std::vector<MachineCodeFile>& machine_code_files() {
  static std::vector<MachineCodeFile> files = {{this_program(), ""}};
  return files;
}

const std::map<std::string, std::string>& this_programs_sass() {
  static const std::map<std::string, std::string> kernels = [] {
    std::map<std::string, std::string> found;
    std::string outputs;
    for (const auto& [file, dump] : machine_code_files()) {
      const std::string output = cuobjdump({"-sass", file});
      found.merge(sass_by_kernel(output));
      outputs += output.substr(0, 300);
    }
    if (found.empty())
      throw std::runtime_error("cuobjdump (" + std::string(WORKBOOK_CUOBJDUMP) +
                               ", from the CUDA toolkit) found no kernel in the grader's files: " + outputs);
    return found;
  }();
  return kernels;
}

namespace {
// A file's whole text; "" when it cannot be read.
std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

// The SASS the build dumped of each file (`cuobjdump -sass FILE` at build time), where it is at least
// as new as the file (a dump that failed leaves the last one): read once, it saves a step's every
// cuobjdump (0.3 to 0.7 s for each kernel of a large object, on an H100's host). A file without one
// has cuobjdump run on it, kernel by kernel.
const std::map<std::string, std::string>& sass_written_by_the_build() {
  static const std::map<std::string, std::string> kernels = [] {
    std::map<std::string, std::string> found;
    for (const auto& [file, dump] : machine_code_files()) {
      if (dump.empty()) continue;
      std::error_code error;
      const auto dumped = std::filesystem::last_write_time(dump, error);
      if (error) continue;
      const auto built = std::filesystem::last_write_time(file, error);
      if (error || dumped < built) continue;
      found.merge(sass_by_kernel(text_of(dump)));
    }
    return found;
  }();
  return kernels;
}

std::string dump_disagrees(const MachineCodeFile& code) {
  const auto& [file, dump] = code;
  if (!std::filesystem::exists(dump)) return "the build wrote no " + dump + " (the dump of " + file + ")";
  const std::map<std::string, std::string> dumped = sass_by_kernel(text_of(dump));
  // A file may have no kernel (a starter whose kernels are templates nobody instantiates yet).
  if (dumped.empty() && !sass_by_kernel(cuobjdump({"-sass", file})).empty())
    return dump + " holds none of " + file + "'s kernels";
  for (const auto& [name, sass] : dumped) {
    const std::map<std::string, std::string> alone = sass_by_kernel(cuobjdump({"-sass", "-fun", name, file}));
    const auto found = alone.find(name);
    if (found == alone.end()) return "cuobjdump -fun finds no " + name + " in " + file;
    if (found->second != sass) return "the dump of " + demangled(name) + " differs from cuobjdump -fun's listing of it";
  }
  return "";
}

std::string sass_of(const std::string& kernel_name) {
  static std::map<std::string, std::string> read;  // each kernel once: correctness runs many cases
  if (const auto known = read.find(kernel_name); known != read.end()) return known->second;
  if (const auto dumped = sass_written_by_the_build().find(kernel_name); dumped != sass_written_by_the_build().end())
    return read[kernel_name] = dumped->second;
  // Asked for one kernel by its mangled name, cuobjdump disassembles that kernel alone, in
  // milliseconds; the whole program takes seconds (3 to 4 on an H100's host), once per step.
  for (const auto& [file, dump] : machine_code_files()) {
    const std::map<std::string, std::string> one = sass_by_kernel(cuobjdump({"-sass", "-fun", kernel_name, file}));
    if (const auto exact = one.find(kernel_name); exact != one.end()) return read[kernel_name] = exact->second;
  }
  // A name it does not know as given (a demangled one): every kernel, searched by either name.
  const std::map<std::string, std::string>& kernels = this_programs_sass();
  if (const auto exact = kernels.find(kernel_name); exact != kernels.end()) return read[kernel_name] = exact->second;
  for (const auto& [mangled, sass] : kernels)
    if (demangled(mangled) == kernel_name) return read[kernel_name] = sass;
  throw std::runtime_error("cuobjdump shows no machine code for kernel " + kernel_name + " in the grader's files");
}

std::string demangled(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : mangled;
}

}  // namespace workbook
