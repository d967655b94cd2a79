#include "runner/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace workbook::runner {

namespace {

// The commands started to be waited for later (Background): never ended as something a command left.
std::set<pid_t>& background_jobs() {
  static std::set<pid_t> jobs;
  return jobs;
}

// In the child, before exec: standard input from /dev/null, and no descriptor of the runner's from
// `first_closed` on (3, or 4 past a file given on 3) but the output (a grading's log, a results
// file opened without O_CLOEXEC): what a step's code reads or writes reaches nobody's terminal or file.
void close_inherited_descriptors(unsigned first_closed) {
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0 && null != STDIN_FILENO) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
#ifdef SYS_close_range
  if (syscall(SYS_close_range, first_closed, ~0u, 0u) == 0) return;
#endif
  // An older kernel: the descriptors this process has open, as /proc lists them.
  if (DIR* open_ones = opendir("/proc/self/fd")) {
    const int listing = dirfd(open_ones);
    std::vector<int> descriptors;
    while (const dirent* entry = readdir(open_ones)) {
      const int fd = std::atoi(entry->d_name);
      if (fd >= static_cast<int>(first_closed) && fd != listing) descriptors.push_back(fd);
    }
    closedir(open_ones);
    for (int fd : descriptors) close(fd);
  }
}

// This process's children, as /proc says: after a command ends, any that are left are what the
// command started and did not wait for, handed to us (we are their subreaper).
std::vector<pid_t> children_left() {
  std::vector<pid_t> children;
  DIR* processes = opendir("/proc");
  if (processes == nullptr) return children;
  const pid_t me = getpid();
  while (const dirent* entry = readdir(processes)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(entry->d_name) + "/stat");
    std::string line;
    std::getline(stat, line);
    // "pid (name) state ppid ...": the name may hold spaces and parentheses, so read after the last ')'.
    const std::size_t after_name = line.rfind(')');
    if (after_name == std::string::npos) continue;
    char state = 0;
    int parent = 0;
    if (std::sscanf(line.c_str() + after_name + 1, " %c %d", &state, &parent) == 2 && parent == me)
      children.push_back(pid);
  }
  closedir(processes);
  return children;
}

// Ends everything `command` left behind: each process it started that outlived it (a daemon, a
// double fork, a new session: none escapes a subreaper) is killed and reaped, its own children in
// turn, until none is left. `spared`: children that are jobs still running (run_on_slots()), not
// anything a job left.
void end_what_it_left(const std::set<pid_t>& spared = {}) {
  for (int round = 0; round < 1000; ++round) {
    std::vector<pid_t> left = children_left();
    std::erase_if(left, [&](pid_t pid) { return spared.contains(pid) || background_jobs().contains(pid); });
    if (left.empty()) return;
    for (pid_t pid : left) kill(pid, SIGKILL);
    for (pid_t pid : left)
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  }
}

// Starts `command` in a child of its own: its standard output and error go to `out` (a pipe's
// writing end) or, where `out` is -1, to its output file. Returns the child's pid.
pid_t spawn(const Command& command, int out_fd) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {  // the child: only async-signal-safe calls would be strict; it execs at once
    int out = out_fd >= 0 ? out_fd : open(command.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) _exit(127);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    unsigned first_closed = 3;
    if (!command.appended_on_3.empty()) {
      const int appended = open(command.appended_on_3.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      // dup2 leaves 3 open across exec; opened as 3 already, it is told so itself.
      if (appended < 0 || (appended == 3 ? fcntl(3, F_SETFD, 0) : dup2(appended, 3)) < 0) _exit(127);
      first_closed = 4;
    }
    close_inherited_descriptors(first_closed);
    if (!command.folder.empty() && chdir(command.folder.c_str()) != 0) _exit(127);
    for (const auto& [name, value] : command.env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const std::string why = "cannot run " + command.argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  return pid;
}

// Whatever a command starts and leaves running is handed to us when its parent ends, not to init:
// so that end_what_it_left() can end it.
void become_subreaper() {
  static const bool subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  (void)subreaper;
}

// A waited-for process's status as a shell says it: its exit code, or 128 + the signal that ended it.
int exit_status(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

// Starts `command`; its captured output, if any, goes to `take` piece by piece as it is read.
int start_and_wait(const Command& command, const std::function<void(const char*, std::size_t)>& take) {
  if (command.argv.empty()) throw std::invalid_argument("run: no program");
  become_subreaper();
  int pipe_fds[2] = {-1, -1};
  const bool capture = command.output_path.empty();
  if (capture && pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = spawn(command, capture ? pipe_fds[1] : -1);
  int status = 0;
  bool ended = false;
  if (capture) {
    // Read its output as it comes. Something it left running may hold the pipe open after it ends:
    // once it has ended, that is ended too, and the pipe then closes.
    close(pipe_fds[1]);
    char buffer[4096];
    for (;;) {
      pollfd readable{pipe_fds[0], POLLIN, 0};
      const int ready = poll(&readable, 1, ended ? -1 : 100);
      if (ready < 0 && errno == EINTR) continue;
      if (ready > 0) {
        const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        take(buffer, static_cast<std::size_t>(got));
      }
      if (!ended && waitpid(pid, &status, WNOHANG) ==
                        pid) {  // checked between reads too: a writer left running never lets poll time out
        ended = true;
        end_what_it_left();
      }
    }
    close(pipe_fds[0]);
  }
  if (!ended)
    while (waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  end_what_it_left();
  return exit_status(status);
}

}  // namespace

Outcome run(const Command& command) {
  Outcome outcome;
  outcome.status =
      start_and_wait(command, [&](const char* piece, std::size_t size) { outcome.output.append(piece, size); });
  return outcome;
}

int run_watched(const Command& command, std::chrono::milliseconds every, const std::function<bool()>& still_fine) {
  if (command.argv.empty()) throw std::invalid_argument("run_watched: no program");
  if (command.output_path.empty()) throw std::invalid_argument("run_watched: the command writes its output to a file");
  become_subreaper();
  const pid_t pid = spawn(command, -1);
  int status = 0;
  // Its end is looked for every few milliseconds, `still_fine` asked every `every`: a judge's last
  // step is not followed by half a watch's period of nothing (50 ms on average at 100 ms).
  constexpr auto kLookedFor = std::chrono::milliseconds(5);
  auto next_asked = std::chrono::steady_clock::now() + every;
  for (;;) {
    const pid_t ended = waitpid(pid, &status, WNOHANG);
    if (ended == pid) break;
    if (ended < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (std::chrono::steady_clock::now() < next_asked) {
      std::this_thread::sleep_for(kLookedFor);
      continue;
    }
    next_asked += every;
    if (!still_fine()) {
      kill(pid, SIGKILL);  // what it started is handed to us as it dies, and ended below
      while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
      break;
    }
  }
  end_what_it_left();
  return exit_status(status);
}

int run_lines(const Command& command, const std::function<void(const std::string&)>& each_line) {
  std::string pending;
  const int status = start_and_wait(command, [&](const char* piece, std::size_t size) {
    pending.append(piece, size);
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1))
      each_line(pending.substr(0, end));
  });
  if (!pending.empty()) each_line(pending);
  return status;
}

void run_on_slots(std::size_t jobs, std::size_t slots,
                  const std::function<Command(std::size_t job, std::size_t slot)>& make,
                  const std::function<void(std::size_t job, std::size_t slot, int status)>& done) {
  run_on_slots_ahead(
      jobs, slots, [&](std::size_t job, std::size_t slot, std::size_t) { return make(job, slot); }, nullptr, done);
}

void run_on_slots_ahead(std::size_t jobs, std::size_t slots,
                        const std::function<Command(std::size_t job, std::size_t slot, std::size_t lane)>& make,
                        const std::function<Command(std::size_t job, std::size_t slot, std::size_t lane)>& prepare,
                        const std::function<void(std::size_t job, std::size_t slot, int status)>& done) {
  if (slots == 0) throw std::invalid_argument("run_on_slots_ahead: no slot");
  become_subreaper();
  struct Slot {
    std::optional<pid_t> job_pid;  // the job running on it
    std::size_t job = 0;
    std::size_t next_lane = 0;            // where its next job runs
    std::optional<std::size_t> reserved;  // the job it runs next, prepared (or being prepared) in next_lane
    std::optional<pid_t> preparing;       // that preparation, while it runs
  };
  std::vector<Slot> state(slots);
  std::size_t next = 0;
  const auto start = [&](std::size_t s, std::size_t job) {
    Slot& slot = state[s];
    const std::size_t lane = slot.next_lane;
    Command command = make(job, s, lane);
    if (command.output_path.empty())
      throw std::invalid_argument("run_on_slots_ahead: each job writes its output to a file");
    slot.job_pid = spawn(command, -1);
    slot.job = job;
    slot.next_lane = prepare ? 1 - lane : lane;  // unprepared, every job of a slot in its one lane
    slot.reserved.reset();
    if (prepare && next < jobs) {  // the job this slot takes next, prepared in the other lane meanwhile
      slot.reserved = next++;
      Command preparation = prepare(*slot.reserved, s, slot.next_lane);
      if (preparation.output_path.empty())
        throw std::invalid_argument("run_on_slots_ahead: each preparation writes its output to a file");
      slot.preparing = spawn(preparation, -1);
    }
  };
  const auto busy = [&] {
    for (const Slot& slot : state)
      if (slot.job_pid || slot.preparing || slot.reserved) return true;
    return false;
  };
  while (next < jobs || busy()) {
    for (std::size_t s = 0; s < slots; ++s) {  // slot 0 first
      Slot& slot = state[s];
      if (slot.job_pid || slot.preparing) continue;
      if (slot.reserved) start(s, *slot.reserved);
      else if (next < jobs) start(s, next++);
    }
    int status = 0;
    const pid_t ended = waitpid(-1, &status, 0);
    if (ended < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    std::optional<std::size_t> job_slot, preparation_slot;
    for (std::size_t s = 0; s < slots; ++s) {
      if (state[s].job_pid == ended) job_slot = s;
      if (state[s].preparing == ended) preparation_slot = s;
    }
    if (!job_slot && !preparation_slot) continue;  // something a job left, handed to us and now reaped
    if (job_slot) state[*job_slot].job_pid.reset();
    if (preparation_slot) state[*preparation_slot].preparing.reset();
    // What it left running is ours now: ended, sparing every job and preparation still running.
    std::set<pid_t> still_running;
    for (const Slot& slot : state) {
      if (slot.job_pid) still_running.insert(*slot.job_pid);
      if (slot.preparing) still_running.insert(*slot.preparing);
    }
    end_what_it_left(still_running);
    if (job_slot) done(state[*job_slot].job, *job_slot, exit_status(status));
  }
  end_what_it_left();
}

Background::Background(const Command& command) {
  if (command.argv.empty()) throw std::invalid_argument("Background: no program");
  if (command.output_path.empty()) throw std::invalid_argument("Background: the command writes its output to a file");
  become_subreaper();
  pid_ = spawn(command, -1);
  background_jobs().insert(pid_);
}

int Background::wait() {
  if (pid_ < 0) return status_;
  int status = 0;
  pid_t ended;
  while ((ended = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  background_jobs().erase(pid_);
  pid_ = -1;
  // Reaped already by a wait for any child (run_on_slots()): its status is lost, and said as a
  // program that could not run (127), so that the caller asks again.
  status_ = ended < 0 ? 127 : exit_status(status);
  end_what_it_left();
  return status_;
}

Background::~Background() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  wait();
}

std::string path_of(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::string folders = path != nullptr ? path : "";
  for (std::size_t start = 0; start <= folders.size();) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::string folder = folders.substr(start, end - start);
    if (!folder.empty() && access((folder + "/" + program).c_str(), X_OK) == 0) return folder + "/" + program;
    start = end + 1;
  }
  return "";
}

}  // namespace workbook::runner
