#include "judge/planner_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "protocol/exit_codes.h"

namespace workbook {

namespace {

void close_if_open(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The processes whose parent is this one, from /proc.
std::vector<pid_t> children() {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  DIR* processes = ::opendir("/proc");
  if (processes == nullptr) return found;
  while (const dirent* entry = ::readdir(processes)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream status("/proc/" + std::string(entry->d_name) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("PPid:", 0) == 0) {
        if (std::atoi(line.c_str() + 5) == self) found.push_back(pid);
        break;
      }
  }
  ::closedir(processes);
  return found;
}

// The planner's process and everything it starts may make no ioctl (and no ptrace, no io_uring, no
// read or write of another process's memory, no socket): a seccomp filter, which no process can lift
// and every child inherits. The GPU's driver does all its work through ioctls on /dev/nvidia*, so no process of
// the student's can start CUDA, hold a context or keep the GPU busy while a step is timed; what a
// launcher may ask of the runtime it asks the judge (planner_runtime.cpp). Terminals' ioctls go too:
// a planner's standard streams are a pipe. Without a socket it reaches no network, no listener on
// this machine and no abstract unix socket: a launcher needs none, and its only channels are the
// pipes the judge gave it. In the child, between fork and exec: async-signal-safe.
bool close_to_the_gpu() {
#if defined(__x86_64__)
  constexpr std::uint32_t kArchitecture = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t kArchitecture = AUDIT_ARCH_AARCH64;
#else
#error "the planner's seccomp filter names this architecture's system calls: add it"
#endif
  constexpr std::uint32_t kRefuse = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
#define WORKBOOK_REFUSE(call) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, call, 0, 1), BPF_STMT(BPF_RET | BPF_K, kRefuse)
  sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArchitecture, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),  // another ABI's numbers: not this filter's
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
#if defined(__x86_64__)
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),  // the x32 ABI's numbers
    BPF_STMT(BPF_RET | BPF_K, kRefuse),
#endif
    WORKBOOK_REFUSE(__NR_ioctl),
    WORKBOOK_REFUSE(__NR_ptrace),
    WORKBOOK_REFUSE(__NR_process_vm_readv),
    WORKBOOK_REFUSE(__NR_process_vm_writev),
    WORKBOOK_REFUSE(__NR_io_uring_setup),
    WORKBOOK_REFUSE(__NR_socket),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
#undef WORKBOOK_REFUSE
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}
constexpr int kNotClosedToTheGpu = exit_code::kPlannerNotClosedToTheGpu;  // close_to_the_gpu() failed

// Landlock (Linux 5.13 on), which any process may apply to itself and its children: the planner and
// everything it starts may read only what running a launcher needs (the system's programs, libraries
// and settings, the CUDA toolkit's libraries, /dev, /proc and /sys, its own binary) and its working
// folder (the step's scratch); it may write, create or remove files only there and in /dev/null;
// (ABI 4, Linux 6.7) bind or connect no TCP port; and (ABI 6, Linux 6.12) signal no process and
// reach no abstract unix socket outside itself. So a launcher cannot read the instructor's solutions,
// a class's submissions and results, the bars or the points, whoever grades, nor rewrite a step's
// rows or log. The header of an older system may lack the later parts: they are spelled out here.
struct LandlockRuleset {
  std::uint64_t handled_access_fs = 0, handled_access_net = 0, scoped = 0;
};
struct LandlockPathBeneath {
  std::uint64_t allowed_access = 0;
  std::int32_t parent_fd = -1;
} __attribute__((packed));
constexpr long kLandlockCreateRuleset = 444, kLandlockAddRule = 445,
               kLandlockRestrictSelf = 446;  // every architecture's
constexpr std::uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3,
                        kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7,
                        kMakeReg = 1ull << 8, kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
                        kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14;
constexpr std::uint64_t kBindTcp = 1ull << 0, kConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

bool is_within(const std::string& path, const std::string& folder) {
  return path == folder || (path.starts_with(folder) && (folder.ends_with('/') || path[folder.size()] == '/'));
}

// `root` (canonical) as folders the planner may read whole: itself, or, where it holds a private
// folder, each of its entries that is not private, recursively. Landlock only allows, so a private
// folder inside a readable one (a checkout under /usr/local/src) is left out by not naming it.
void add_readable(const std::string& root, const std::vector<std::string>& private_folders,
                  std::vector<std::string>& readable, int depth = 0) {
  for (const std::string& folder : private_folders)
    if (is_within(root, folder)) return;
  const bool holds_a_private_folder = std::any_of(private_folders.begin(), private_folders.end(),
                                                  [&](const std::string& folder) { return is_within(folder, root); });
  if (!holds_a_private_folder) {
    readable.push_back(root);
    return;
  }
  std::error_code error;
  if (depth > 32 || !std::filesystem::is_directory(root, error)) return;
  for (const auto& entry :
       std::filesystem::directory_iterator(root, std::filesystem::directory_options::skip_permission_denied, error)) {
    const std::filesystem::path found = std::filesystem::weakly_canonical(entry.path(), error);
    if (!error) add_readable(found.string(), private_folders, readable, depth + 1);
  }
}

// The checkout a program of the workbook's was built in: the folder above its own binary that holds
// CMakePresets.json and grader/ (a build folder holds a grader/ too), "" when there is none.
std::string checkout_of_this_program() {
  std::error_code error;
  for (std::filesystem::path folder = std::filesystem::read_symlink("/proc/self/exe", error).parent_path();
       !error && folder.has_relative_path(); folder = folder.parent_path())
    if (std::filesystem::is_regular_file(folder / "CMakePresets.json", error) &&
        std::filesystem::is_directory(folder / "grader", error))
      return folder.string();
  return "";
}

}  // namespace

std::vector<std::string> what_a_planner_may_read() {
  std::vector<std::string> private_folders;
  if (const std::string checkout = checkout_of_this_program(); !checkout.empty()) private_folders.push_back(checkout);
  if (const char* listed = std::getenv("WORKBOOK_PRIVATE_FOLDERS")) {
    std::istringstream folders{std::string(listed)};
    for (std::string folder; std::getline(folders, folder, ':');)
      if (!folder.empty()) private_folders.push_back(std::filesystem::weakly_canonical(folder).string());
  }
  std::vector<std::string> roots = {"/usr",  "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                    "/sbin", "/etc", "/dev",   "/proc",  "/sys"};
#ifdef WORKBOOK_CUDA_LIBRARY_DIR
  roots.push_back(WORKBOOK_CUDA_LIBRARY_DIR);  // where the toolkit is not under /usr (/opt/cuda)
#endif
  std::vector<std::string> readable;
  for (const std::string& root : roots) {
    std::error_code error;
    const std::filesystem::path found = std::filesystem::canonical(root, error);
    if (!error) add_readable(found.string(), private_folders, readable);
  }
  std::sort(readable.begin(), readable.end());
  readable.erase(std::unique(readable.begin(), readable.end()), readable.end());
  return readable;
}

namespace {}  // namespace

int landlock_version() {
  const long version = ::syscall(kLandlockCreateRuleset, nullptr, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
  return version > 0 ? static_cast<int>(version) : 0;
}

namespace {

// In the child, between fork and exec: open() and system calls only. False when Landlock is there
// but the rules could not be made. `readable`: what_a_planner_may_read(); `binary`: the planner's own;
// `told`: a file a proof tells its mutant through, or null.
bool confine_to_its_folder(int version, const std::vector<std::string>& readable, const char* binary,
                           const char* told) {
  if (version == 0) return true;  // not there: the judge says so in the log (start_judging(), judge.cpp)
  std::uint64_t writes = kWriteFile | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir | kMakeReg | kMakeSock |
                         kMakeFifo | kMakeBlock | kMakeSym;
  if (version >= 2) writes |= kRefer;
  if (version >= 3) writes |= kTruncate;
  constexpr std::uint64_t reads = kExecute | kReadFile | kReadDir;
  LandlockRuleset ruleset;
  ruleset.handled_access_fs = writes | reads;
  std::size_t size = sizeof(std::uint64_t);
  if (version >= 4) {
    ruleset.handled_access_net = kBindTcp | kConnectTcp;  // and no rule allows any port
    size = 2 * sizeof(std::uint64_t);
  }
  if (version >= 6) {
    ruleset.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof ruleset;
  }
  const int rules = static_cast<int>(::syscall(kLandlockCreateRuleset, &ruleset, size, 0u));
  if (rules < 0) return false;
  const auto allow = [&](const char* path, std::uint64_t access) {
    const int fd = ::open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return false;
    LandlockPathBeneath beneath{access, fd};
    const bool added = ::syscall(kLandlockAddRule, rules, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &beneath, 0u) == 0;
    ::close(fd);
    return added;
  };
  bool ok = allow(".", writes | reads) && allow(binary, kExecute | kReadFile) &&
            allow("/dev/null", kWriteFile | (version >= 3 ? kTruncate : 0));
  for (const std::string& folder : readable) ok = ok && allow(folder.c_str(), reads);
  if (told != nullptr) ok = ok && allow(told, kReadFile);
  ok = ok && ::syscall(kLandlockRestrictSelf, rules, 0u) == 0;
  ::close(rules);
  return ok;
}
constexpr int kNotConfined = exit_code::kPlannerNotConfined;  // confine_to_its_folder() failed

}  // namespace

namespace {

// A PID namespace whose first process is the planner: when the planner ends, the kernel ends every
// process of the namespace, however it left (a new session, a double fork, another parent), and none
// of them can name a process outside it to signal. A user namespace of its own lets an unprivileged
// judge make one, and gives the planner no power over anything outside it. Where the kernel lends
// none (user namespaces switched off), a plain fork: then the judge reaps what the planner leaves
// (end_every_child()) and says so. Called like fork(); the child only makes system calls and execs.
pid_t start_in_a_namespace_of_its_own(bool& contained) {
  const long pid = ::syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  contained = pid >= 0;
  return pid >= 0 ? static_cast<pid_t>(pid) : ::fork();
}

}  // namespace

void adopt_what_planners_leave() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    throw std::runtime_error("the judge could not adopt its planners' orphans");
}

std::string end_every_child() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    const std::vector<pid_t> left = children();
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (left.empty()) return "";
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    for (pid_t pid : left) ::waitpid(pid, nullptr, 0);  // each orphan of theirs is this process's child next
  }
  return "processes your file's host code started would not end";
}

namespace {

// The three pipes between judge and planner (requests, plans, prints), close-on-exec; none where
// one cannot be made.
void make_pipes(int to_planner[2], int from_planner[2], int printed[2]) {
  if (::pipe2(to_planner, O_CLOEXEC) != 0) throw std::runtime_error("no pipe for the planner");
  if (::pipe2(from_planner, O_CLOEXEC) != 0) {
    ::close(to_planner[0]);
    ::close(to_planner[1]);
    throw std::runtime_error("no pipe for the planner");
  }
  if (::pipe2(printed, O_CLOEXEC) != 0) {
    for (int fd : {to_planner[0], to_planner[1], from_planner[0], from_planner[1]}) ::close(fd);
    throw std::runtime_error("no pipe for the planner");
  }
}

// Its environment is the judge's less the grader's own settings (which name the checkout's folders),
// but for a residue proof's channel (buffers.cu: the test tells its mutant where the grader's
// products lie, in a file the judge writes), which the planner may then read: *proof_channel.
std::vector<char*> planner_environment(std::string& proof_channel) {
  constexpr std::string_view kProofChannel = "WORKBOOK_PROOF_SCRATCH_LOG=";
  std::vector<char*> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view named(*variable);
    if (named.starts_with(kProofChannel)) proof_channel = named.substr(kProofChannel.size());
    if (!named.starts_with("WORKBOOK_") || named.starts_with(kProofChannel)) environment.push_back(*variable);
  }
  environment.push_back(nullptr);
  return environment;
}

// In the child: the protocol on 3 and 4, its prints on 1 and 2, no other descriptor of the
// judge's, closed to the GPU and confined, then the planner itself. Never returns.
[[noreturn]] void become_the_planner(int requests_end, int plans_end, int prints_end, int landlock,
                                     const std::vector<std::string>& readable, std::vector<char*>& argv,
                                     std::vector<char*>& environment, const std::string& proof_channel) {
  // The protocol on 3 and 4, and no other descriptor of the judge's, whether or not it was opened
  // close-on-exec (a step's rows arrive on an inherited one). The pipes may be 3 or 4 already:
  // moved above them first, so that dup2 never copies onto itself (which would leave close-on-exec
  // set) or onto the other pipe.
  ::setpgid(0, 0);  // a group of its own, which everything it starts joins unless it leaves
  const int requests = ::fcntl(requests_end, F_DUPFD_CLOEXEC, 10), plans = ::fcntl(plans_end, F_DUPFD_CLOEXEC, 10);
  if (requests < 0 || plans < 0 || ::dup2(requests, 3) < 0 || ::dup2(plans, 4) < 0)
    ::_exit(exit_code::kPlannerNotStarted);
  if (::dup2(prints_end, 1) < 0 || ::dup2(prints_end, 2) < 0)
    ::_exit(exit_code::kPlannerNotStarted);  // its prints: to the judge, labelled
  if (::syscall(SYS_close_range, 5u, ~0u, 0u) != 0) ::_exit(exit_code::kPlannerNotStarted);
  if (!close_to_the_gpu()) ::_exit(kNotClosedToTheGpu);  // sets no_new_privs, which Landlock needs too
  if (!confine_to_its_folder(landlock, readable, argv[0], proof_channel.empty() ? nullptr : proof_channel.c_str()))
    ::_exit(kNotConfined);
  ::execve(argv[0], argv.data(), environment.data());
  ::_exit(exit_code::kPlannerNotStarted);
}

}  // namespace

void PlannerProcess::start_reading_prints() {
  reader_ = std::thread([this] {
    char chunk[4096];
    for (;;) {
      // Asked every 50 ms whether the processes are over: a process that would not die must not
      // keep the judge waiting for the end of the pipe.
      pollfd ready{output_, POLLIN, 0};
      const int found = ::poll(&ready, 1, 50);
      if (found == 0 && stop_reading_) return;
      if (found <= 0) continue;
      const ssize_t n = ::read(output_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // every process of theirs has closed it
      printed_bytes_ += static_cast<std::size_t>(n);
      if (printed_.size() < kShownOutputBytes)
        printed_.append(chunk, std::min(static_cast<std::size_t>(n), kShownOutputBytes - printed_.size()));
    }
  });
}

PlannerProcess::PlannerProcess(const std::vector<std::string>& command, Answerer answer) : answer_(std::move(answer)) {
  if (command.empty()) throw std::logic_error("a planner needs a command");
  ::signal(SIGPIPE, SIG_IGN);  // a planner that died makes a write fail, not end the judge
  int to_planner[2], from_planner[2], printed[2];
  make_pipes(to_planner, from_planner, printed);
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::string proof_channel;
  std::vector<char*> environment = planner_environment(proof_channel);
  if (!proof_channel.empty()) ::close(::open(proof_channel.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  const int landlock = landlock_version();
  const std::vector<std::string> readable = landlock > 0 ? what_a_planner_may_read() : std::vector<std::string>{};
  pid_ = start_in_a_namespace_of_its_own(contained_);
  if (pid_ == 0)
    become_the_planner(to_planner[0], from_planner[1], printed[1], landlock, readable, argv, environment,
                       proof_channel);
  if (pid_ > 0) {
    ::setpgid(pid_, pid_);  // as the child does, so that the group exists whichever runs first
    group_ = pid_;
  }
  ::close(to_planner[0]);
  ::close(from_planner[1]);
  ::close(printed[1]);
  output_ = printed[0];
  start_reading_prints();
  requests_ = to_planner[1];
  plans_ = from_planner[0];
  if (pid_ < 0) {
    close_if_open(requests_);
    close_if_open(plans_);
    show_output();  // the pipe's only writer is gone: the reader ends at once
    throw std::runtime_error("the planner could not be started");
  }
}

PlannerProcess::~PlannerProcess() { end(); }

std::string PlannerProcess::end() {
  close_if_open(requests_);  // the planner's loop ends at the end of its requests
  close_if_open(plans_);
  if (pid_ > 0) {
    bool ended = false;
    for (int waited_ms = 0; waited_ms < 1000 && !ended; waited_ms += 10) {
      ended = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!ended) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;  // in its namespace, the kernel has ended and reaped every process of the planner's
  }
  std::string left;
  if (group_ > 0) {
    ::kill(-group_, SIGKILL);  // what it started and left in its group
    group_ = -1;
    left = end_every_child();  // and what left the group, adopted as orphans (adopt_what_planners_leave())
  }
  show_output();
  if (!left.empty()) std::cout << "[workbook] " << left << '\n';
  return left;
}

void PlannerProcess::show_output() {
  if (!reader_.joinable() && output_ < 0) return;  // shown already
  stop_reading_ = true;  // every writer has ended (or would not): what is in the pipe is read, then no more
  if (reader_.joinable()) reader_.join();
  close_if_open(output_);
  show_students_output("host code", printed_, printed_bytes_);
}

void show_students_output(const std::string& whose, const std::string& kept, std::size_t printed_bytes) {
  if (printed_bytes == 0) return;
  std::cout << "[workbook] what your file's " << whose
            << " printed (each line after \"| \"; the grader's own lines never start so):\n";
  // Each line as data: a carriage return or an escape sequence in it would otherwise move the cursor
  // back over the "| " and write what passes for a line of the grader's.
  std::istringstream lines(kept);
  for (std::string line; std::getline(lines, line);) std::cout << "| " << text_as_data(line) << '\n';
  if (printed_bytes > kept.size())
    std::cout << "[workbook] and " << printed_bytes - kept.size() << " bytes more, not shown (at most "
              << kShownOutputBytes << " are)\n";
  std::cout.flush();
}

std::string PlannerProcess::how_it_ended() {
  int status = 0;
  if (pid_ <= 0 || ::waitpid(pid_, &status, 0) != pid_) return "it ended";
  pid_ = -1;
  if (WIFSIGNALED(status))
    return "it was ended by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status) && WEXITSTATUS(status) == exit_code::kPlannerNotStarted) return "it could not be started";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNotConfined)
    return "it could not be started confined to what it may read and write (Landlock refused its rules)";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNotClosedToTheGpu)
    return "it could not be started closed to the GPU (this kernel refused its seccomp filter; the grader runs a "
           "student's host code only where it can)";
  return "it exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void throw_failure_of(const plan::Plan& plan) {
  if (plan.not_implemented) throw NotImplemented(plan.failure);
  if (!plan.failure.empty()) throw std::runtime_error(plan.failure);
}

const plan::Bytes& answer_of(const plan::Plan& plan, const std::string& function, std::size_t bytes) {
  throw_failure_of(plan);
  if (!plan.operations.empty())
    throw std::runtime_error(function + " launched work on the GPU, but it only computes an answer on the host");
  if (plan.answer.size() != bytes)
    throw std::runtime_error(function + " answered " + std::to_string(plan.answer.size()) + " bytes, not the " +
                             std::to_string(bytes) + " of its result");
  return plan.answer;
}

std::string fault_of(const plan::Plan& plan, const std::string& function, const std::vector<plan::Buffer>& given,
                     const plan::DeviceLimits& limits, const plan::ParameterSizes& parameter_sizes) {
  const std::string fault = plan::defect(plan, given, limits, parameter_sizes);
  return fault.empty() ? "" : function + " asked for what the grader does not run: " + fault;
}

plan::Plan PlannerProcess::call(const plan::Request& request) {
  const std::string while_planning = "the planner (your file's host code) stopped while " + request.function + " ran: ";
  if (pid_ <= 0) throw std::runtime_error(while_planning + "it had already ended");
  std::optional<std::string> message;
  // Not waited for once it has ended, even where a process it started holds the pipe open.
  const auto planner_alive = [this] {
    siginfo_t ended{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == 0;
  };
  try {
    plan::send_message(requests_, plan::encode(request));
    // Its questions (what the runtime would answer with a GPU) answered until the plan comes.
    for (message = plan::receive_message(plans_, planner_alive); message && plan::is_question(*message);
         message = plan::receive_message(plans_, planner_alive)) {
      const plan::Question question = plan::decode_question(*message);  // std::invalid_argument when malformed
      plan::send_message(requests_,
                         plan::encode(answer_ ? answer_(question) : plan::Reply{100 /* cudaErrorNoDevice */, {}}));
    }
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error("the planner asked the judge something that is not a question (" +
                             std::string(error.what()) + ") while " + request.function + " ran");
  } catch (const std::runtime_error&) {
    message.reset();
  }
  if (!message) throw std::runtime_error(while_planning + how_it_ended());
  try {
    return plan::decode_plan(*message);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error("the planner answered " + request.function + " with something that is not a plan (" +
                             error.what() + ")");
  }
}

}  // namespace workbook
