#include "host_audit.h"

#include "command_output.h"

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

// ---------------------------------------------------------------------------------------------
// The common set: what any lab's host code may import without the reference solution doing so.
// Each entry says why it cannot reach outside the step: it computes, formats text, asks the device
// what it is, or launches the student's own kernels on the stream the launcher was given.
// Everything else is outside unless the lab's solution imports it: streams, events, graphs,
// synchronization, copies, memsets, allocations, the driver API, dlopen and dlsym, processes,
// files, the environment, time, signals, CUPTI, vendor libraries and every function of the grader.
struct CommonEntry {
  const char* pattern;  // a regular expression matched against the whole demangled name
  const char* reason;
};
const std::array kCommonSet = {
    // What nvcc generates for every .cu file: registering its kernels, <<<>>> launches.
    CommonEntry{R"(__cuda(RegisterFatBinary|RegisterFatBinaryEnd|RegisterFunction|RegisterVar|RegisterManagedVar|RegisterLinkedBinary\w*|UnregisterFatBinary|PushCallConfiguration|PopCallConfiguration|LaunchKernel|LaunchKernel_ptsz|GetKernel|InitModule))",
                "nvcc's registration and <<<>>> code"},
    CommonEntry{R"(cudaLaunchKernel(_ptsz)?|cudaLaunchKernelExC(_ptsz)?)", "what <<<>>> compiles to"},
    // The CUDA runtime's questions about the device and the student's own kernels.
    CommonEntry{R"(cudaGetDevice|cudaGetDeviceCount|cudaGetDeviceProperties(_v2)?|cudaDeviceGetAttribute|cudaDriverGetVersion|cudaRuntimeGetVersion)",
                "device queries"},
    CommonEntry{R"(cudaOccupancy\w+|cudaFuncGetAttributes|cudaFuncSetAttribute|cudaFuncSetCacheConfig|cudaFuncGetName)",
                "occupancy and function attributes of the student's own kernels"},
    CommonEntry{R"(cudaGetLastError|cudaPeekAtLastError|cudaGetErrorString|cudaGetErrorName)", "errors"},
    // The C++ runtime's support for exceptions, allocation, statics and the standard library's
    // strings, containers and string streams (never a file, the console, a thread or a clock).
    CommonEntry{R"(__cxa_(allocate_exception|free_exception|throw|rethrow|begin_catch|end_catch|get_exception_ptr|guard_acquire|guard_release|guard_abort|pure_virtual|deleted_virtual|throw_bad_array_new_length|call_unexpected|bad_cast|bad_typeid))",
                "exceptions and function-local statics"},
    CommonEntry{R"(_Unwind_Resume|__gxx_personality_v0|DW\.ref\.__gxx_personality_v0|__stack_chk_fail|__dso_handle|_GLOBAL_OFFSET_TABLE_)",
                "stack unwinding and the ABI"},
    CommonEntry{R"(operator (new|delete)(\[\])?\(.*\))", "allocation of host memory"},
    CommonEntry{R"((vtable for |typeinfo for )?__cxxabiv1::__(si_|vmi_)?class_type_info)", "the type information of classes"},
    CommonEntry{R"(std::__throw_\w+\(.*\).*)", "the standard library's errors"},
    CommonEntry{R"((typeinfo for |typeinfo name for |vtable for |VTT for )?std::(exception|bad_alloc|bad_array_new_length|bad_cast|bad_typeid|logic_error|domain_error|invalid_argument|length_error|out_of_range|runtime_error|range_error|overflow_error|underflow_error)(::.*)?)",
                "the standard exceptions"},
    CommonEntry{R"((typeinfo for |vtable for |VTT for )?std::(__cxx11::)?(basic_string|basic_ostringstream|basic_istringstream|basic_stringstream|basic_stringbuf)<char.*)",
                "strings and string streams"},
    CommonEntry{R"((typeinfo for |vtable for |VTT for )?std::(ostream|istream|basic_ostream<char[^>]*>|basic_istream<char[^>]*>|basic_ios<char[^>]*>|basic_streambuf<char[^>]*>)::.*)",
                "formatting into a string stream (the console's streams, std::cout and the rest, are not in the set)"},
    CommonEntry{R"(std::basic_ostream<char, std::char_traits<char> >& std::(__ostream_insert|operator<<)<.*)", "formatting"},
    CommonEntry{R"(std::ios_base::(ios_base|~ios_base)\(\)|std::locale::(locale|~locale)\(\)|std::locale::classic\(\))",
                "a string stream's formatting state"},
    CommonEntry{R"(std::__detail::_Prime_rehash_policy::.*|std::_Hash_bytes\(.*\)|std::_Fnv_hash_bytes\(.*\)|std::_Rb_tree_(increment|decrement|insert_and_rebalance|rebalance_for_erase)\(.*\)|std::__detail::_List_node_base::.*)",
                "containers"},
    // Plain functions of memory and text, and math.
    CommonEntry{R"(mem(cpy|move|set|cmp|chr)|str(len|nlen|cmp|ncmp|chr|rchr|str|cpy|ncpy)|__memcpy_chk|__memset_chk|__memmove_chk)",
                "copying and comparing host memory and text"},
    CommonEntry{R"((sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|expm1|log|log2|log10|log1p|logb|ilogb|pow|sqrt|cbrt|hypot|floor|ceil|trunc|round|lround|llround|rint|lrint|llrint|nearbyint|fmod|remainder|remquo|fma|fmin|fmax|fdim|fabs|frexp|ldexp|scalbn|scalbln|modf|sincos|erf|erfc|tgamma|lgamma|copysign|nextafter)[fl]?)",
                "math"},
};

// Ways to run a function at exit, after the step's verdict was formed: never allowed, but for the
// atexit() that nvcc's own registration code calls.
const std::set<std::string> kExitHooks = {"atexit", "__cxa_atexit", "on_exit", "at_quick_exit", "__cxa_thread_atexit",
                                          "__cxa_thread_atexit_impl"};
const char* const kNvccRegistration = "_ZL24__sti____cudaRegisterAllv";  // static void __sti____cudaRegisterAll()

// Host instructions that ask the kernel or the hardware for something no launcher needs: system
// calls, port I/O, privileged state, and the time-stamp counter (a clock).
const std::set<std::string> kPrivilegedInstructions = {
    "syscall", "sysenter", "sysexit", "sysret", "int", "into", "int1", "in", "out", "ins", "insb", "insw", "insl",
    "outs", "outsb", "outsw", "outsl", "hlt", "cli", "sti", "lgdt", "lidt", "lldt", "ltr", "lmsw", "clts",
    "invlpg", "invd", "wbinvd", "rdmsr", "wrmsr", "rdpmc", "rdtsc", "rdtscp", "swapgs", "iret", "iretq", "iretd",
    "vmcall", "vmmcall", "vmfunc", "sysretq", "sysexitq"};

// The vendor libraries a lab must not lean on, by the names of their headers (a header-only
// library such as CUB leaves no import to see) and of their functions.
const std::regex kVendorHeader(R"(^(cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg|npp|nccl|cupti|nvrtc|nvPTXCompiler|nvJitLink)\w*(\.h(pp)?)?$|^(cub|thrust|cutlass|cute)/|^(cub|thrust|cutlass|cute)$)");
const std::regex kVendorSymbol(R"(^(cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg|npp|nccl|cupti|nvrtc)\w*|^(cub|thrust|cutlass|cute)::)");

// Imports no lab's code may have, whatever its reference solution imports: a vendor library, an
// allocation (device memory is a workspace the grader gives), an entry-point getter, dlopen or the
// driver API (each reaches any function), and exit hooks. The allowance is generated from the
// solution, so the generator refuses these, and so does the audit if an allowance were edited to list them.
const std::regex kNeverAllowed(
    R"(^((cublas|cufft|cusparse|curand|cusolver|cudnn|nvjpeg|npp|nccl|cupti|nvrtc)\w*|(cub|thrust|cutlass|cute)::.*|)"
    R"(cuda(Malloc|Free|HostAlloc|HostRegister|MemPool)\w*|cuMem(Alloc|Free|Create|Map)\w*|cudaGetDriverEntryPoint\w*|)"
    R"(dlopen|dlsym|dlvsym|dlmopen|cu[A-Z]\w*|atexit|__cxa_atexit|on_exit|at_quick_exit|__cxa_thread_atexit(_impl)?)$)");

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
    } else if (c == 'R' && next == '"' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(joined[i - 1])) || joined[i - 1] == '_'))) {
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
  const std::string allowed = "a lab's file may include the lab's own headers, the workbook's student headers "
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
  if (rules.exists(rules.internals + "/" + name))
    return "the grader's own header, not one of the workbook's student headers (workbook/...): " + allowed;
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
bool is_weak_definition(char type) { return type == 'W' || type == 'V' || type == 'u'; }
bool is_strong_definition(char type) { return std::string("TDBRGSCA").find(type) != std::string::npos; }

// The mark nvcc puts on the names of a file's anonymous namespace, "_GLOBAL__N__43fb7a76_9_memory_cu_fbacace2"
// for memory.cu: unique to that file, so a name carrying it can collide with nothing of the grader's.
bool in_own_anonymous_namespace(const std::string& mangled, const std::string& topic) {
  const std::string file = topic + "_cu";
  const std::regex own("_GLOBAL__N__[0-9a-f]+_" + std::to_string(file.size()) + "_" + file + "_[0-9a-f]+");
  const std::regex any("_GLOBAL__N_");
  if (!std::regex_search(mangled, any)) return false;
  // Every anonymous-namespace mark in the name must be the file's own.
  std::string rest = mangled;
  for (std::size_t at = rest.find("_GLOBAL__N_"); at != std::string::npos; at = rest.find("_GLOBAL__N_", at + 1)) {
    std::smatch m;
    const std::string from = rest.substr(at);
    if (!std::regex_search(from, m, own) || m.position(0) != 0) return false;
  }
  return true;
}

// For each function of the object's code, the symbols its relocations name, and its instructions'
// mnemonics (objdump -dr).
struct Code {
  std::map<std::string, std::vector<std::string>> references;
  std::map<std::string, std::set<std::string>> mnemonics;
};
Code code_of(const std::string& object) {
  Code code;
  const std::regex function(R"(^[0-9a-f]+ <(.*)>:$)");
  const std::regex relocation(R"(^\s+[0-9a-f]+: R_X86_64_\w+\s+([^\s+-]+))");
  const std::regex instruction(R"(^\s+[0-9a-f]+:\s+([a-z][a-z0-9.]*)(\s+([a-z][a-z0-9.]*))?)");
  const std::set<std::string> prefixes = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd", "data16",
                                          "addr32", "cs", "ds", "es", "fs", "gs", "ss", "rex", "rex.w", "xacquire", "xrelease"};
  std::string current = "?";
  for (const std::string& line : lines_of(run("objdump -dr --no-show-raw-insn " + workbook::shell_quoted(object) + " 2>/dev/null"))) {
    std::smatch m;
    if (std::regex_match(line, m, function)) current = m[1];
    else if (std::regex_search(line, m, relocation)) code.references[current].push_back(m[1]);
    else if (std::regex_search(line, m, instruction)) {
      std::string mnemonic = m[1];
      if (prefixes.contains(mnemonic) && m[3].matched) mnemonic = m[3];
      code.mnemonics[current].insert(mnemonic);
    }
  }
  return code;
}

// Every relocation of the object, by the section it is in: "[.init_array]" -> targets.
std::map<std::string, std::vector<std::string>> relocations_by_section(const std::string& object) {
  std::map<std::string, std::vector<std::string>> sections;
  const std::regex header(R"(^RELOCATION RECORDS FOR \[(.*)\]:$)");
  const std::regex entry(R"(^[0-9a-f]+\s+R_X86_64_\w+\s+(\S+)$)");
  std::string current;
  for (const std::string& line : lines_of(run("objdump -r " + workbook::shell_quoted(object) + " 2>/dev/null"))) {
    std::smatch m;
    if (std::regex_match(line, m, header)) current = m[1];
    else if (std::regex_match(line, m, entry)) sections[current].push_back(m[1]);
  }
  return sections;
}

// The symbol a relocation target names, without its addend: "atexit-0x0000000000000004" -> "atexit".
std::string symbol_of_relocation(const std::string& target) {
  const std::size_t addend = std::min(target.find("+0x"), target.find("-0x"));
  return target.substr(0, addend);
}

// The function symbols of the object by (section, offset), from objdump -t.
std::map<std::pair<std::string, unsigned long>, std::string> functions_by_place(const std::string& object) {
  std::map<std::pair<std::string, unsigned long>, std::string> functions;
  const std::regex entry(R"(^([0-9a-f]+)\s.{7}\s(\S+)\s+[0-9a-f]+\s+(\S+)$)");
  for (const std::string& line : lines_of(run("objdump -t " + workbook::shell_quoted(object) + " 2>/dev/null"))) {
    std::smatch m;
    if (std::regex_match(line, m, entry) && line.find(" F ") != std::string::npos)
      functions[{m[2], std::stoul(m[1], nullptr, 16)}] = m[3];
  }
  return functions;
}

// The function a relocation target names: "func", "func+0x10", ".text.startup" or ".text.startup+0x40".
std::string function_at(const std::string& target, const std::map<std::pair<std::string, unsigned long>, std::string>& functions) {
  const std::size_t plus = target.find('+');
  const std::string base = target.substr(0, plus);
  if (base.empty() || base[0] != '.') return base;
  const unsigned long offset = plus == std::string::npos ? 0 : std::stoul(target.substr(plus + 1), nullptr, 16);
  const auto found = functions.find({base, offset});
  return found == functions.end() ? target : found->second;
}

}  // namespace

std::string describe(const Finding& finding) { return "[host-code] " + finding.what + ": " + finding.why; }

bool in_common_set(const std::string& mangled, const std::string& demangled) {
  static const std::vector<std::regex> patterns = [] {  // compiled once: every symbol asks
    std::vector<std::regex> compiled;
    for (const CommonEntry& entry : kCommonSet) compiled.emplace_back(entry.pattern);
    return compiled;
  }();
  for (const std::regex& pattern : patterns)
    if (std::regex_match(demangled, pattern) || std::regex_match(mangled, pattern)) return true;
  return false;
}

std::vector<Finding> check_includes(const std::string& file_name, const std::string& source, const IncludeRules& rules) {
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
    for (auto it = std::sregex_iterator(line.text.begin(), line.text.end(), has_include); it != std::sregex_iterator(); ++it)
      if (const std::string why = include_refusal((*it)[3], rules); !why.empty())
        refuse(line.number, line.text, why);
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

Allowance read_allowance(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the host-code allowance " + path);
  Allowance allowance;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream fields(line.substr(0, line.find('#')));
    std::string kind, name;
    if (!(fields >> kind)) continue;
    if (!(fields >> name) || (kind != "import" && kind != "define"))
      throw std::runtime_error(path + ":" + std::to_string(number) + ": a line is 'import NAME' or 'define NAME'");
    (kind == "import" ? allowance.imports : allowance.defines).insert(name);
  }
  return allowance;
}

namespace {

// The device names of the kernels whose host stubs `mangled` names. nvcc names each kernel's host
// stub "__device_stub_" + the kernel's device name, inside a name of its own
// ("_Z99__device_stub__ZN...", or a guard variable's "_ZGVZL108__device_stub__..."): the device name
// is what the trace reports. The host function of a kernel template in an anonymous namespace is
// mangled with an 'L' the device name lacks, so it alone would not match; a template's stub may be
// inlined, but its statics stay.
void add_stub_kernels(const std::string& mangled, std::set<std::string>& kernels) {
  static const std::regex stub(R"((\d+)__device_stub_)");
  const std::size_t prefix = std::string("__device_stub_").size();
  for (auto m = std::sregex_iterator(mangled.begin(), mangled.end(), stub); m != std::sregex_iterator(); ++m) {
    const std::size_t length = std::stoul((*m)[1]), at = static_cast<std::size_t>(m->position(0) + (*m)[1].length());
    if (length > prefix && at + length <= mangled.size()) kernels.insert(mangled.substr(at + prefix, length - prefix));
  }
}

}  // namespace

std::vector<std::string> defined_names(const std::string& object) {
  std::set<std::string> names;
  for (const Symbol& symbol : symbols_of(object)) {
    if (is_import(symbol.type)) continue;
    names.insert(symbol.mangled);
    add_stub_kernels(symbol.mangled, names);
  }
  return {names.begin(), names.end()};
}

std::set<std::string> kernels_of(const std::string& file) {
  std::set<std::string> mangled;
  for (const Symbol& symbol : symbols_of(file))
    if (!is_import(symbol.type)) add_stub_kernels(symbol.mangled, mangled);
  const std::vector<std::string> names = demangle({mangled.begin(), mangled.end()});
  return {names.begin(), names.end()};
}

std::string allowance_text(const std::string& object, const std::string& lab, const std::string& command) {
  std::ostringstream text;
  text << "# What a student's file of lab " << lab << " may import and define beyond the common set that\n"
       << "# grader/harness/host_audit.cpp documents: what the reference solution's own object file imports\n"
       << "# (the given headers' code included) and the functions the lab's header declares. Generated from\n"
       << "# the solution, never written by hand:\n#   " << command << "\n"
       << "# and a static test fails when it no longer matches the solution. Mangled names; each line's\n"
       << "# comment is its demangled form.\n";
  std::set<std::pair<std::string, std::string>> imports, defines;
  for (const Symbol& s : symbols_of(object)) {
    if (is_import(s.type) && std::regex_match(s.demangled, kNeverAllowed) && !kExitHooks.contains(s.mangled))
      throw std::runtime_error("the reference solution of " + lab + " imports " + s.demangled +
                               ", which no lab's code may: it cannot become what students may import");
    if (is_import(s.type) && !in_common_set(s.mangled, s.demangled) && !kExitHooks.contains(s.mangled))
      imports.insert({s.mangled, s.demangled});
    if (is_strong_definition(s.type) && s.mangled.find("_GLOBAL__N_") == std::string::npos) defines.insert({s.mangled, s.demangled});
  }
  for (const auto& [mangled, demangled] : defines) text << "define " << mangled << "  # " << demangled << '\n';
  for (const auto& [mangled, demangled] : imports) text << "import " << mangled << "  # " << demangled << '\n';
  return text.str();
}

std::set<std::string> shared_library_exports(const std::string& binary) {
  std::set<std::string> exports;
  const std::regex library(R"(=>\s+(/\S+))");
  for (const std::string& line : lines_of(run("ldd " + workbook::shell_quoted(binary) + " 2>/dev/null"))) {
    std::smatch m;
    if (!std::regex_search(line, m, library)) continue;
    for (const std::string& symbol : lines_of(run("nm -D --defined-only " + workbook::shell_quoted(m[1]) + " 2>/dev/null"))) {
      const std::size_t last = symbol.rfind(' ');
      if (last == std::string::npos) continue;
      std::string name = symbol.substr(last + 1);
      if (const std::size_t at = name.find('@'); at != std::string::npos) name.resize(at);  // memcpy@@GLIBC_2.14
      exports.insert(name);
    }
  }
  return exports;
}

std::vector<Finding> audit_object(const std::string& object, const std::string& topic, const Allowance& allowance,
                                  const std::set<std::string>& shared_exports) {
  std::vector<Finding> findings;
  const std::vector<Symbol> symbols = symbols_of(object);
  if (symbols.empty()) {
    findings.push_back({object, "nm read no symbol from it: it is not the object file of a lab's code"});
    return findings;
  }
  const Code code = code_of(object);
  const auto relocations = relocations_by_section(object);

  // What it imports.
  std::set<std::string> seen;
  for (const Symbol& s : symbols) {
    if (!is_import(s.type) || !seen.insert(s.mangled).second) continue;
    if (in_common_set(s.mangled, s.demangled)) continue;
    if (allowance.imports.contains(s.mangled) && !std::regex_match(s.demangled, kNeverAllowed)) continue;
    if (kExitHooks.contains(s.mangled)) {
      // nvcc's registration calls atexit() to unregister the file's kernels; any other reference,
      // from code or from data, is the student's.
      int references = 0, from_nvcc = 0;
      for (const auto& [section, targets] : relocations)
        for (const std::string& target : targets) references += symbol_of_relocation(target) == s.mangled ? 1 : 0;
      for (const auto& [function, targets] : code.references)
        for (const std::string& target : targets)
          from_nvcc += target == s.mangled && function == kNvccRegistration && s.mangled == "atexit" ? 1 : 0;
      if (references > from_nvcc)
        findings.push_back({"imports " + s.demangled,
                            "registers a function to run at exit, after the step's verdict (atexit, or a static object "
                            "with a destructor: keep such state in a static pointer to an object made with new): a lab's "
                            "code runs only when its launchers are called"});
      continue;
    }
    std::string why;
    if (std::regex_search(s.demangled, kVendorSymbol))
      why += "a vendor library; the labs are about writing the kernels, so write this one instead";
    else if (s.mangled.rfind("_Z", 0) == 0 && s.demangled.rfind("std::", 0) != 0)
      why += "a function of the grader, or of the workbook not meant for students' code; a launcher computes its "
             "answer with its own kernels";
    else if (std::regex_match(s.demangled, std::regex(R"(cuda(Memcpy|Memset)\w*|cuMem(cpy|set)\w*)")))
      why += "a copy or memset by the copy engines does the work without a kernel; write the kernel";
    else if (std::regex_match(s.demangled, std::regex(R"(cuda(Stream|Event|Graph|Device(Synchronize|Reset)|ThreadSynchronize|LaunchHostFunc)\w*)")))
      why += "streams, events, graphs and synchronization are the grader's: put every kernel on the stream the launcher "
             "is given, and leave the waiting to the caller";
    else if (std::regex_match(s.demangled, std::regex(R"(cuda(Malloc|Free|HostAlloc|HostRegister|MemPool)\w*)")))
      why += "a launcher allocates nothing: device memory it needs is a workspace the grader gives it";
    else if (std::regex_match(s.demangled, std::regex(R"(cudaGetDriverEntryPoint\w*|dlopen|dlsym|dlvsym|dlmopen|dladdr\w*|cu[A-Z]\w*)")))
      why += "an entry-point getter or the driver API reaches every function of the driver and of any library; where a "
             "lab needs one, its given code wraps it";
    else if (std::regex_match(s.demangled, std::regex(R"((v|f|s|sn|vs|vsn|d)?printf|puts|putchar|std::(cout|cerr|clog|cin)|write|fwrite|fputs)")))
      why += "it writes to the console or a file; take debugging output out before grading (printf inside a kernel is fine)";
    else
      why += "files, processes, the environment, time, signals and threads are no part of a launcher";
    findings.push_back({"imports " + s.demangled, why + " (a lab's code may import the common set of "
                                                          "grader/harness/host_audit.cpp and what its reference solution imports)"});
  }

  // What it defines with external linkage.
  for (const Symbol& s : symbols) {
    if (s.type == 'i') {
      findings.push_back({"defines " + s.demangled, "an indirect function, whose resolver runs when the program loads"});
      continue;
    }
    const bool strong = is_strong_definition(s.type), weak = is_weak_definition(s.type);
    if (!strong && !weak) continue;
    if (allowance.defines.contains(s.mangled)) continue;
    // The standard library's templates are instantiated in every file that uses them, and libstdc++
    // exports some of the same instances: those are the same code. Any other name a shared library
    // defines is not the student's to define.
    const bool standard = s.demangled.rfind("std::", 0) == 0 || s.demangled.rfind("__gnu_cxx::", 0) == 0 ||
                          s.demangled.find(" std::") != std::string::npos;
    if (!standard && shared_exports.contains(s.mangled)) {
      findings.push_back({"defines " + s.demangled,
                          "a function or object a shared library of the grader defines; the definition would replace the "
                          "library's for the whole process"});
      continue;
    }
    if (strong && !in_own_anonymous_namespace(s.mangled, topic))
      findings.push_back({"defines " + s.demangled + " with external linkage",
                          "only the functions the lab's header declares may be visible outside the file: put "
                          "everything else in an anonymous namespace (namespace { ... })"});
    else if (weak && s.mangled.rfind("_Z", 0) != 0 && s.mangled != "DW.ref.__gxx_personality_v0")
      findings.push_back({"defines the weak symbol " + s.demangled,
                          "a weak definition of a C name would replace a library's or the grader's"});
  }

  // Static initializers and finalizers of its own.
  const auto functions = functions_by_place(object);
  for (const auto& [section, targets] : relocations) {
    const bool startup = section.rfind(".init_array", 0) == 0 || section.rfind(".fini_array", 0) == 0 ||
                         section.rfind(".ctors", 0) == 0 || section.rfind(".dtors", 0) == 0 ||
                         section.rfind(".preinit_array", 0) == 0 || section == ".init" || section == ".fini";
    if (!startup) continue;
    for (const std::string& target : targets) {
      const std::string function = function_at(target, functions);
      if (function == kNvccRegistration) continue;
      const bool constructor = section.find("init") != std::string::npos || section.find("ctors") != std::string::npos;
      findings.push_back({std::string(constructor ? "runs " : "runs at exit ") + function + " (" + section + ")",
                          constructor ? "a static initializer (a global object with a constructor, or "
                                        "__attribute__((constructor))) runs before the grading: a lab's code runs only "
                                        "when its launchers are called"
                                      : "a static finalizer runs after the step's verdict: a lab's code runs only when "
                                        "its launchers are called"});
    }
  }

  // Privileged instructions in its host code.
  for (const auto& [function, mnemonics] : code.mnemonics)
    for (const std::string& mnemonic : mnemonics)
      if (kPrivilegedInstructions.contains(mnemonic))
        findings.push_back({"the host instruction '" + mnemonic + "' in " + function,
                            "a system call or privileged instruction in host code (inline asm): a launcher asks the "
                            "operating system for nothing"});
  return findings;
}

}  // namespace workbook::host_audit
