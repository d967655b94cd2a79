// Starting the processes a grading needs (a step's grader, the audit, the step listing) and waiting
// for them. The runner starts each with an argument vector, never through a shell: a lab's or a
// student's name is one argument, whatever it holds. Plain C++ on POSIX.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::runner {

struct Command {
  std::vector<std::string> argv;                         // argv[0] is found on PATH if it has no '/'
  std::vector<std::pair<std::string, std::string>> env;  // set in the child, on top of ours
  std::string folder;                                    // the child's working folder ("": ours)
  std::string output_path;                               // its stdout and stderr ("": captured)
  // A file the child gets open for appending as its descriptor 3 ("": none), opened by the runner:
  // a judge's step writes its rows there without owning the file, and its planner never gets it.
  std::string appended_on_3;

  Command(std::vector<std::string> arguments, std::vector<std::pair<std::string, std::string>> environment = {},
          std::string working_folder = "", std::string output = "")
      : argv(std::move(arguments)),
        env(std::move(environment)),
        folder(std::move(working_folder)),
        output_path(std::move(output)) {}
};

struct Outcome {
  int status = 0;      // the exit code, or 128 + the signal that killed it, as a shell reports it
  std::string output;  // stdout and stderr, when output_path was empty
};

// Runs `command` to its end. A program that cannot be started gives status 127 and says why in
// its output, as a shell would.
Outcome run(const Command& command);

// Runs `command` to its end, its output to its output file, calling `still_fine` about every `every`
// while it runs: once that returns false, the command and everything it started are killed, and
// the status is 137, as for SIGKILL (a step over its time limit, in a judge grading several).
int run_watched(const Command& command, std::chrono::milliseconds every, const std::function<bool()>& still_fine);

// Runs `command` to its end, handing each line of its output (stdout and stderr, without the
// newline) to `each_line` as it comes: a build's progress. Returns its status as run() does.
int run_lines(const Command& command, const std::function<void(const std::string&)>& each_line);

// Runs `jobs` commands, at most `slots` at a time: make(job, slot) gives job's command for the slot
// it runs in (slot 0 first; a GPU each, for a class), and done(job, slot, status) is called as each
// ends, in the order they end. Each command writes its output to its output_path. What a job leaves
// running is ended when it ends, as run() ends it; the other jobs run on.
void run_on_slots(std::size_t jobs, std::size_t slots,
                  const std::function<Command(std::size_t job, std::size_t slot)>& make,
                  const std::function<void(std::size_t job, std::size_t slot, int status)>& done);

// run_on_slots() with each job's preparation run ahead of it, beside the job before it on the same
// slot (grade-class --build-ahead: a student's build on the CPU while the GPU grades the student
// before). Each slot has two lanes (a build folder each): its first job runs in lane 0 unprepared;
// while a job runs in one lane, the job the slot takes next is prepared, prepare(job, slot, lane),
// in the other; that job starts once both have ended, in the lane it was prepared in. make(job,
// slot, lane) gives the job's command, which must do all its work whether or not its preparation
// did (a preparation's status is not read). What a preparation leaves running is ended with it.
// Without `prepare` (nullptr) it is run_on_slots(): every job in lane 0.
void run_on_slots_ahead(std::size_t jobs, std::size_t slots,
                        const std::function<Command(std::size_t job, std::size_t slot, std::size_t lane)>& make,
                        const std::function<Command(std::size_t job, std::size_t slot, std::size_t lane)>& prepare,
                        const std::function<void(std::size_t job, std::size_t slot, int status)>& done);

// A command started now and waited for later, while the runner runs others: the check for a GPU
// runs beside the build (its CUDA start is a quarter of a second). Its output goes to its output
// file. What run() and its kind end after each command never includes it; what it leaves behind is
// ended when it is waited for. Never waited for, it is killed and reaped when it goes out of scope.
class Background {
 public:
  explicit Background(const Command& command);
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  ~Background();
  // Its exit status, as run() gives it, once it has ended (waited for here, once).
  int wait();

 private:
  pid_t pid_ = -1;
  int status_ = -1;
};

// Where `program` is: itself when it is a path that is executable, else the first executable of
// that name on PATH; "" when there is none.
std::string path_of(const std::string& program);
inline bool on_path(const std::string& program) { return !path_of(program).empty(); }

}  // namespace workbook::runner
