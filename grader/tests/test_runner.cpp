// The runner's trust boundary: the rows a step's process leaves are taken only when they are that
// step's own, in a plain file; anything else becomes one failed row that says why.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "protocol/bars_profile.h"
#include "runner/build.h"
#include "runner/collect.h"
#include "runner/process.h"

using namespace workbook;
using namespace workbook::runner;

namespace {

std::string scratch_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("workbook_runner_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// A step by its shown name, "02.1 several floats", as the tests write it.
LabStep step_of(const std::string& lab, const std::string& name) {
  const std::size_t space = name.find(' ');
  return {lab, name.substr(0, space), space == std::string::npos ? "" : name.substr(space + 1)};
}
std::vector<LabStep> steps_of(const std::string& lab, const std::vector<std::string>& names) {
  std::vector<LabStep> steps;
  for (const std::string& name : names) steps.push_back(step_of(lab, name));
  return steps;
}

StepRow row_of(const std::string& step, Verdict verdict) {
  StepRow row;
  row.step = step_of("02_memory", step);
  row.verdict = verdict;
  return row;
}

bool refused(const std::vector<StepRow>& rows) {
  return rows.size() == 1 && rows[0].verdict == Verdict::kFail &&
         rows[0].reason.find("the step's process gave no result to believe") == 0;
}

}  // namespace

TEST_CASE("the runner takes a step's own rows, and no others") {
  const std::string own = scratch_file("own.tsv"), other = scratch_file("other.tsv"), link = scratch_file("link.tsv");
  const std::string bad = scratch_file("bad.tsv"), empty = scratch_file("empty.tsv");
  append_rows(own, {row_of("02.1 x", Verdict::kPass), row_of("02.1 x", Verdict::kInfo)});
  append_rows(other, {row_of("02.1 x", Verdict::kPass), row_of("02.2 y", Verdict::kPass)});
  std::ofstream(bad) << "one\ttwo\n";
  std::ofstream(empty).close();
  std::filesystem::remove(link);
  std::filesystem::create_symlink(own, link);

  const std::vector<StepRow> taken = collect_rows(own, step_of("02_memory", "02.1 x"));
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].verdict == Verdict::kPass);
  CHECK(refused(collect_rows(own, step_of("02_memory", "02.2 y"))));  // asked for another step
  CHECK(refused(collect_rows(other, step_of("02_memory", "02.1 x"))));
  CHECK(refused(collect_rows(link, step_of("02_memory", "02.1 x"))));
  CHECK(refused(collect_rows(bad, step_of("02_memory", "02.1 x"))));
  CHECK(refused(collect_rows(empty, step_of("02_memory", "02.1 x"))));
  CHECK(refused(collect_rows(scratch_file("missing.tsv"), step_of("02_memory", "02.1 x"))));
  for (const std::string& path : {own, other, link, bad, empty}) std::filesystem::remove(path);
}

TEST_CASE("a judge grading a lab's steps: each step's rows as it reported them, a half-written line not yet") {
  const std::string path = scratch_file("lab_rows.tsv");
  const std::vector<std::string> steps = {"02.1 x", "02.2 y", "02.3 z"};
  append_rows(path,
              {row_of("02.1 x", Verdict::kPass), row_of("02.1 x", Verdict::kInfo), row_of("02.2 y", Verdict::kFail)});
  std::ofstream(path, std::ios::app) << to_line(row_of("02.3 z", Verdict::kPass)).substr(0, 12);  // no newline yet
  const std::vector<std::vector<StepRow>> rows = rows_of_steps(path, steps_of("02_memory", steps));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].size() == 2);
  CHECK(rows[1].size() == 1);
  CHECK(rows[2].empty());
  CHECK_THROWS(rows_of_steps(path, steps_of("02_memory", {"02.1 x"})));  // a row of a step it was not grading
  CHECK_THROWS(rows_of_steps(path, steps_of("03_transpose", steps)));
  std::filesystem::remove(path);
}

TEST_CASE("a judge grading a lab's steps: what it accounted for, however it ended; the rest go to a new process") {
  const std::vector<std::string> steps = {"02.1 a", "02.2 b", "02.3 c", "02.4 d"};
  const auto reported = [&](std::vector<bool> which) {
    std::vector<std::vector<StepRow>> rows(steps.size());
    for (std::size_t k = 0; k < which.size(); ++k)
      if (which[k]) rows[k] = {row_of(steps[k], Verdict::kPass)};
    return rows;
  };
  const std::string died = "died", not_graded = "not graded";
  // Every step reported: all of them done.
  Accounted all =
      account_for_steps(reported({true, true, true, true}), steps_of("02_memory", steps), 0, "", not_graded);
  CHECK(all.steps_done == 4);
  CHECK(all.rows.size() == 4);
  // Died in the third: it fails, and the fourth is left to a new process.
  Accounted crashed = account_for_steps(reported({true, true}), steps_of("02_memory", steps), 139, died, not_graded);
  REQUIRE(crashed.steps_done == 3);
  REQUIRE(crashed.rows.size() == 3);
  CHECK(crashed.rows[2].step.name() == "02.3 c");
  CHECK(crashed.rows[2].verdict == Verdict::kFail);
  CHECK(crashed.rows[2].reason == died);
  // Died before any step reported: the first fails alone.
  Accounted first = account_for_steps(reported({}), steps_of("02_memory", steps), 139, died, not_graded);
  CHECK(first.steps_done == 1);
  CHECK(first.rows.at(0).reason == died);
  // Stopped after the second left the CUDA context unusable: nothing fails for it, the rest start again.
  Accounted lost =
      account_for_steps(reported({true, true}), steps_of("02_memory", steps), kExitContextLost, "", not_graded);
  CHECK(lost.steps_done == 2);
  CHECK(lost.rows.size() == 2);
  // Ended on its own: a step with no rows before one that reported has no result; those after, not graded.
  Accounted ended = account_for_steps(reported({true, false, true}), steps_of("02_memory", steps), 1, "", not_graded);
  CHECK(ended.steps_done == 4);
  REQUIRE(ended.rows.size() == 4);
  CHECK(ended.rows[1].reason.find("it reported no result") != std::string::npos);
  CHECK(ended.rows[3].reason == not_graded);
}

TEST_CASE("a command watched as it runs is stopped, with all it started, once it is no longer fine") {
  const std::string out = scratch_file("watched.txt"), late = scratch_file("watched_late.txt");
  std::filesystem::remove(late);
  int polls = 0;
  const auto began = std::chrono::steady_clock::now();
  const int stopped = run_watched({{"sh", "-c", "(sleep 2; echo late > \"$0\") & sleep 30", late}, {}, "", out},
                                  std::chrono::milliseconds(50), [&] { return ++polls < 4; });
  CHECK(stopped == 137);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() < 2);
  CHECK(run_watched({{"sh", "-c", "exit 3"}, {}, "", out}, std::chrono::milliseconds(50), [] { return true; }) == 3);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK_FALSE(std::filesystem::exists(late));  // what it started was ended with it
  std::filesystem::remove(out);
}

TEST_CASE("the runner starts a program with its arguments whole, and reports how it ended") {
  const Outcome echoed = run({{"printf", "%s|", "a b", "'$(id)'"}});
  CHECK(echoed.status == 0);
  CHECK(echoed.output == "a b|'$(id)'|");
  CHECK(run({{"sh", "-c", "exit 3"}}).status == 3);
  CHECK(run({{"sh", "-c", "kill -9 $$"}}).status == 137);  // a shell's 128 + SIGKILL
  CHECK(run({{"/nonexistent/program"}}).status == 127);
  const std::string out = scratch_file("out.txt");
  CHECK(run({{"sh", "-c", "echo here; echo there >&2"}, {{"WORKBOOK_X", "1"}}, "/", out}).status == 0);
  std::ifstream in(out);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  CHECK(first == "here");
  CHECK(second == "there");
  std::filesystem::remove(out);
}

TEST_CASE("nothing a command starts outlives it: a daemon it leaves, in a session of its own, is ended with it") {
  const std::string late = scratch_file("written_late.txt");
  std::filesystem::remove(late);
  const auto began = std::chrono::steady_clock::now();
  // The daemon keeps the output pipe open, as one that wants the runner to wait for it would.
  const Outcome left =
      run({{"sh", "-c", "(setsid sh -c 'sleep 2; echo late > \"$0\"' \"$0\" &) ; echo started", late}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  CHECK(left.status == 0);
  CHECK(left.output == "started\n");
  CHECK(seconds < 1.5);  // not held by the daemon's copy of the pipe
  CHECK(run({{"sh", "-c", "(setsid sh -c 'sleep 2; echo late > \"$0\"' \"$0\" > /dev/null 2>&1 &)", late},
             {},
             "",
             scratch_file("daemon_output.txt")})
            .status == 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK_FALSE(std::filesystem::exists(late));  // both daemons were ended before they could write
}

TEST_CASE("a command in the background runs on beside the runner's others, and gives its status when waited for") {
  const std::string done = scratch_file("background_done.txt");
  std::filesystem::remove(done);
  const auto began = std::chrono::steady_clock::now();
  Background check({{"sh", "-c", "sleep 1; echo done > \"$0\"; exit 5", done}, {}, "", "/dev/null"});
  // Commands run meanwhile end what they leave behind, and the one in the background is not theirs.
  CHECK(run({{"sh", "-c", "exit 3"}}).status == 3);
  CHECK(run({{"true"}}).status == 0);
  CHECK(check.wait() == 5);
  CHECK(check.wait() == 5);  // asked again, the same answer
  CHECK(std::filesystem::exists(done));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() < 3);
  std::filesystem::remove(done);
  {  // never waited for: ended with its scope, not left running
    Background forgotten({{"sh", "-c", "sleep 2; echo late > \"$0\"", done}, {}, "", "/dev/null"});
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK_FALSE(std::filesystem::exists(done));
}

TEST_CASE("jobs on slots: every job runs, never two in one slot, and at once where there are slots") {
  // Each job claims its slot by making a folder that only one holder can make: a second job given
  // the same slot while the first holds it exits 9. Each writes when it began and ended: two slots
  // run two jobs at once, shown by the times the jobs wrote, not by a bound on the wall time, which
  // a loaded machine breaks.
  const std::string claims = scratch_file("slots");
  std::filesystem::remove_all(claims);
  std::filesystem::create_directories(claims);
  std::vector<int> statuses(6, -1);
  std::vector<std::size_t> slots_used(6, 99);
  const auto times_of = [&](std::size_t job) { return claims + "/job" + std::to_string(job); };
  run_on_slots(
      6, 2,
      [&](std::size_t job, std::size_t slot) {
        const std::string claim = claims + "/slot" + std::to_string(slot);
        return Command({"sh", "-c",
                        "mkdir \"$0\" || exit 9; date +%s.%N >\"$1.began\"; sleep 0.5; date +%s.%N >\"$1.ended\"; "
                        "rmdir \"$0\"",
                        claim, times_of(job)},
                       {}, "", times_of(job) + ".out");
      },
      [&](std::size_t job, std::size_t slot, int status) {
        statuses[job] = status;
        slots_used[job] = slot;
      });
  const auto time_in = [](const std::string& path) {
    double seconds = 0;
    std::ifstream(path) >> seconds;
    return seconds;
  };
  bool at_once = false;
  for (std::size_t job = 0; job < 6; ++job) {
    CHECK(statuses[job] == 0);
    CHECK(slots_used[job] < 2);
    for (std::size_t other = 0; other < job; ++other)
      at_once = at_once || (time_in(times_of(job) + ".began") < time_in(times_of(other) + ".ended") &&
                            time_in(times_of(other) + ".began") < time_in(times_of(job) + ".ended"));
  }
  CHECK(at_once);  // two jobs ran side by side, one in each slot
  std::filesystem::remove_all(claims);
}

TEST_CASE("jobs on slots, each prepared ahead: beside the job before it, in the other lane, and done first") {
  // A job or preparation claims its slot's lane by making a folder only one holder can make (exit 9
  // if taken); a job also claims its slot. A preparation marks its job prepared as it ends; the job
  // says whether it found the mark. Each writes when it began and ended, after its word.
  const std::string claims = scratch_file("lanes");
  std::filesystem::remove_all(claims);
  std::filesystem::create_directories(claims + "/prepared");
  constexpr std::size_t kJobs = 5, kSlots = 2;
  std::vector<int> statuses(kJobs, -1);
  std::vector<std::size_t> lanes_prepared(kJobs, 9), lanes_run(kJobs, 9), slots_prepared(kJobs, 9), slots_run(kJobs, 9);
  const auto lane_folder = [&](std::size_t slot, std::size_t lane) {
    return claims + "/slot" + std::to_string(slot) + "-lane" + std::to_string(lane);
  };
  run_on_slots_ahead(
      kJobs, kSlots,
      [&](std::size_t job, std::size_t slot, std::size_t lane) {
        lanes_run[job] = lane;
        slots_run[job] = slot;
        const std::string mark = claims + "/prepared/job" + std::to_string(job);
        return Command({"sh", "-c",
                        "mkdir \"$0\" || exit 9; mkdir \"$1\" || exit 9; began=$(date +%s.%N); "
                        "if [ -e \"$2\" ]; then echo prepared; else echo unprepared; fi; sleep 0.4; "
                        "echo \"$began $(date +%s.%N)\"; rmdir \"$0\" \"$1\"",
                        claims + "/slot" + std::to_string(slot), lane_folder(slot, lane), mark},
                       {}, "", claims + "/job" + std::to_string(job) + ".out");
      },
      [&](std::size_t job, std::size_t slot, std::size_t lane) {
        lanes_prepared[job] = lane;
        slots_prepared[job] = slot;
        return Command({"sh", "-c",
                        "mkdir \"$0\" || exit 9; began=$(date +%s.%N); sleep 0.3; touch \"$1\"; "
                        "echo \"- $began $(date +%s.%N)\"; rmdir \"$0\"",
                        lane_folder(slot, lane), claims + "/prepared/job" + std::to_string(job)},
                       {}, "", claims + "/prepare" + std::to_string(job) + ".out");
      },
      [&](std::size_t job, std::size_t, int status) { statuses[job] = status; });
  const auto said = [&](std::size_t job) {
    std::ifstream in(claims + "/job" + std::to_string(job) + ".out");
    std::string word;
    in >> word;
    return word;
  };
  // When a job or a preparation ran, as it wrote: {began, ended}, in seconds.
  const auto ran = [&](const std::string& name) {
    std::ifstream in(claims + "/" + name + ".out");
    std::string word;
    double from = 0, to = 0;
    in >> word >> from >> to;
    return std::pair{from, to};
  };
  for (std::size_t job = 0; job < kJobs; ++job)
    CHECK_MESSAGE(statuses[job] == 0, "job ", job, " met another in its slot or lane");
  // Each slot's first job runs unprepared in lane 0; every other was prepared, in the lane it then ran in.
  std::size_t unprepared = 0;
  for (std::size_t job = 0; job < kJobs; ++job) {
    if (lanes_prepared[job] == 9) {
      ++unprepared;
      CHECK(said(job) == "unprepared");
      CHECK(lanes_run[job] == 0);
    } else {
      CHECK(said(job) == "prepared");
      CHECK(lanes_prepared[job] == lanes_run[job]);
    }
  }
  CHECK(unprepared == kSlots);
  // Each preparation ran beside a job of its slot (the job before it), not after: read from when
  // each ran, not from the wall time, which a loaded machine stretches.
  for (std::size_t job = 0; job < kJobs; ++job) {
    if (lanes_prepared[job] == 9) continue;
    const auto [from, to] = ran("prepare" + std::to_string(job));
    bool beside = false;
    for (std::size_t other = 0; other < kJobs; ++other) {
      const auto [other_from, other_to] = ran("job" + std::to_string(other));
      beside =
          beside || (other != job && slots_run[other] == slots_prepared[job] && from < other_to && to > other_from);
    }
    CHECK_MESSAGE(beside, "job ", job, "'s preparation ran beside no job of its slot");
  }
  std::filesystem::remove_all(claims);
}

TEST_CASE("jobs on slots, none prepared: every job in its slot's one lane (one build folder per GPU)") {
  std::vector<std::size_t> lanes(4, 9);
  std::vector<int> statuses(4, -1);
  run_on_slots_ahead(
      4, 2,
      [&](std::size_t job, std::size_t, std::size_t lane) {
        lanes[job] = lane;
        return Command({"true"}, {}, "", scratch_file("unprepared" + std::to_string(job) + ".out"));
      },
      nullptr, [&](std::size_t job, std::size_t, int status) { statuses[job] = status; });
  for (std::size_t job = 0; job < 4; ++job) {
    CHECK(statuses[job] == 0);
    CHECK(lanes[job] == 0);
  }
}

TEST_CASE("jobs on slots: what a job leaves running is ended with it, and the other jobs run on") {
  const std::string leaked = scratch_file("leaked.txt"), survived = scratch_file("survived.txt");
  std::filesystem::remove(leaked);
  std::filesystem::remove(survived);
  std::vector<int> statuses(2, -1);
  run_on_slots(
      2, 2,
      [&](std::size_t job, std::size_t) {
        // Job 0 ends at once, leaving a grandchild in a session of its own that writes a second
        // later; job 1 runs on past that second, so only ending job 0's leftovers with job 0 stops it.
        if (job == 0)
          return Command({"sh", "-c", "(setsid sh -c 'sleep 1; echo leaked > \"$0\"' \"$0\" &)", leaked}, {}, "",
                         scratch_file("job0.out"));
        return Command({"sh", "-c", "sleep 1.5; echo survived > \"$0\"", survived}, {}, "", scratch_file("job1.out"));
      },
      [&](std::size_t job, std::size_t, int status) { statuses[job] = status; });
  CHECK(statuses[0] == 0);
  CHECK(statuses[1] == 0);
  CHECK(std::filesystem::exists(survived));      // not ended when job 0's leftovers were
  CHECK_FALSE(std::filesystem::exists(leaked));  // job 0's grandchild was ended with job 0, not at the end
  std::filesystem::remove(survived);
}

TEST_CASE("no descriptor of the runner reaches a command, and its standard input is empty") {
  const std::string log = scratch_file("runner_log.txt");
  const int inherited = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // as std::ofstream opens: no O_CLOEXEC
  REQUIRE(inherited > 2);
  const std::string fd = std::to_string(inherited);
  CHECK(run({{"sh", "-c", "if [ -e /proc/self/fd/" + fd + " ]; then echo open; else echo closed; fi"}}).output ==
        "closed\n");
  CHECK(run({{"sh", "-c", "readlink /proc/self/fd/0"}}).output == "/dev/null\n");
  close(inherited);
  std::filesystem::remove(log);
}

TEST_CASE("a file given on descriptor 3 is the one descriptor a command gets beyond its standard streams") {
  const std::string rows = scratch_file("runner_rows.txt");
  std::ofstream(rows) << "before\n";
  const int opened = open(rows.c_str(), O_RDONLY);  // the runner's own, not to be passed on
  REQUIRE(opened >= 0);
  const int inherited = fcntl(opened, F_DUPFD, 10);  // above 3, which the command gets anyway
  close(opened);
  REQUIRE(inherited >= 10);
  const std::string fd = std::to_string(inherited);
  Command appends({"sh", "-c", "echo row >&3; [ -e /proc/self/fd/" + fd + " ] && echo open || echo closed"});
  appends.appended_on_3 = rows;
  CHECK(run(appends).output == "closed\n");
  close(inherited);
  std::ifstream written(rows);
  const std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  CHECK(text == "before\nrow\n");  // appended, not truncated
  std::filesystem::remove(rows);
}

TEST_CASE("calibrate: a lab measured again takes its place in lab order, the other labs' lines kept") {
  // As calibrate's draft is after `./workbook calibrate 01` on a profile of labs 01 to 03: the
  // header, the labs kept (02, 03), then lab 01's new lines, its step comments ("# 01.4: ...") too.
  const std::string draft =
      "# Bars for NVIDIA H200, measured by ./workbook calibrate (each lab's date and seed under its name).\n"
      "# 02_memory\n#   measured on 2026-11-24 with seed 7\n02.1 1 1.79 0.00  # witness ...\n"
      "# 03_transpose\n03.1 1 1.73 22.60  # witness ...\n"
      "# 01_latency\n#   measured on 2026-11-27 with seed 2026\nreference 01.1 4.07  # cycles\n"
      "# 01.3: not measured here\n01.4 1 1.88 43.69  # witness ...\n";
  CHECK(in_lab_order(draft) ==
        "# Bars for NVIDIA H200, measured by ./workbook calibrate (each lab's date and seed under its name).\n"
        "# 01_latency\n#   measured on 2026-11-27 with seed 2026\nreference 01.1 4.07  # cycles\n"
        "# 01.3: not measured here\n01.4 1 1.88 43.69  # witness ...\n"
        "# 02_memory\n#   measured on 2026-11-24 with seed 7\n02.1 1 1.79 0.00  # witness ...\n"
        "# 03_transpose\n03.1 1 1.73 22.60  # witness ...\n");
  CHECK(begins_lab("# 06_reduce_scan"));
  CHECK_FALSE(begins_lab("# 01.4: not measured here"));
  CHECK_FALSE(begins_lab("#   measured on 2026-11-27 with seed 2026"));
}

TEST_CASE("a bars profile: the lines calibration writes are the lines grading reads, and a bad line is named") {
  const std::string path = scratch_file("profile.bars");
  {
    std::ofstream out(path);
    out << "# Bars for NVIDIA H200\n# 01_latency\n"
        << reference_line("01.1", 4.0712) << "  # cycles\n"
        << bar_line("02.4", 2, {14.9261, 82.0}) << "  # witness ...\n"
        << bar_line("02.4", 1, {3.5, 0}) << '\n';
  }
  const BarsProfile profile = read_bars_profile(path);
  CHECK(reference_line("01.1", 4.0712) == "reference 01.1 4.07");
  CHECK(bar_line("02.4", 2, {14.9261, 82.0}) == "02.4 2 14.93 82.00");
  CHECK(profile.reference_values.at("01.1") == doctest::Approx(4.07));
  REQUIRE(profile.bars.at("02.4").size() == 2);
  CHECK(profile.bars.at("02.4")[0].min_speedup == doctest::Approx(3.5));
  CHECK(profile.bars.at("02.4")[1].min_percent_of_reference == doctest::Approx(82.0));
  {
    std::ofstream out(path);
    out << "02.1 1 fast 95\n";
  }
  CHECK_THROWS_WITH(read_bars_profile(path), doctest::Contains(":1: a line is STEP INDEX MIN_SPEEDUP"));
  std::remove(path.c_str());
}

TEST_CASE("a grading's build: where its time went, from ninja's record of what this build made, longest first") {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("workbook-ninja-log-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  {
    std::ofstream record(folder / ".ninja_log");
    record << "# ninja log v5\n0\t9000\t1\tlabs/02_memory/old.o\t1\n";  // an earlier build's
  }
  const workbook::runner::Checkout checkout{folder.string(), "gpu", folder.string(), folder.string(), folder.string()};
  const workbook::runner::Build build(checkout, folder.string(), (folder / "log").string());
  CHECK(build.where_the_time_went().empty());  // nothing built since the object was made
  {
    std::ofstream record(folder / ".ninja_log", std::ios::app);
    record << "10\t110\t1\tlabs/04_sgemm/plan_04_sgemm_starter\t2\n"
              "0\t13300\t1\tsolutions/04_sgemm/CMakeFiles/x.dir/labs/04_sgemm/sgemm.cu.o\t3\n"
              "13300\t15900\t1\tlabs/04_sgemm/liblab04_sgemm_starter.a\t4\n"
              "13300\t14300\t1\tlabs/04_sgemm/CMakeFiles/lab04_sgemm_starter_gpu_dumped\t6\n"
              "13300\t14300\t1\t/b/labs/04_sgemm/CMakeFiles/lab04_sgemm_starter_gpu_dumped\t6\n"
              "15900\t15950\t1\tbuild.ninja\t5\n";
  }
  // Not build.ninja's 0.05 s.
  CHECK(build.where_the_time_went(2) ==
        "sgemm.cu.o of x 13.3 s, liblab04_sgemm_starter.a 2.6 s (and its machine code dumped) and 2 more");
  std::filesystem::remove_all(folder);
}

TEST_CASE("a grading's build: nvcc's passes on a student's file, each once, the GPU ones for each architecture") {
  const std::string table = scratch_file("nvcc_passes.csv");
  CHECK(nvcc_passes(table).empty());  // no table: the file was not compiled for this grading
  {
    // As nvcc --time writes it (lab 04's reference file for sm_90 and sm_90a, two cores, times rounded).
    std::ofstream rows(table);
    rows << "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
            "sgemm.cu , gcc (preprocessing 4) , sgemm.cu  , a.cpp4.ii ,  , nvcc , 113.7 , ms\n"
            "sgemm.cu , gcc (preprocessing 1) , sgemm.cu  , a.compute_90.cpp1.ii , compute_90 , nvcc , 161.4 , ms\n"
            "sgemm.cu , gcc (preprocessing 1) , sgemm.cu  , a.compute_90a.cpp1.ii , compute_90a , nvcc , 112.9 , ms\n"
            "sgemm.cu , cudafe++ , a.cpp4.ii  , a.compute_90a.cudafe1.cpp , compute_90a , nvcc , 843.9 , ms\n"
            "sgemm.cu , cicc ,  a.compute_90a.cpp1.ii  , a.compute_90a.ptx , compute_90a , nvcc , 2929.4 , ms\n"
            "sgemm.cu , cicc ,  a.compute_90.cpp1.ii  , a.compute_90.ptx , compute_90 , nvcc , 2981.4 , ms\n"
            "sgemm.cu , ptxas , a.compute_90a.ptx  , a.compute_90a.cubin , sm_90a , nvcc , 1628.3 , ms\n"
            "sgemm.cu , ptxas , a.compute_90.ptx  , a.compute_90.cubin , sm_90 , nvcc , 1671.0 , ms\n"
            "sgemm.cu , fatbinary , a.compute_90.cubin a.compute_90a.cubin  , a.fatbin ,  , nvcc , 31.9 , ms\n"
            "sgemm.cu , gcc (compiling) ,   , sgemm.o , compute_90a , nvcc , 2367.1 , ms\n"
            " , nvcc (driver) ,  , sgemm.o ,  , nvcc , 0.2 , ms\n"
            "a, path, with a comma , cicc , x , y , compute_90 , nvcc , 99999 , ms\n";  // not misread: left out
  }
  CHECK(nvcc_passes(table) ==
        "preprocessing 0.4 s, cudafe++ 0.8 s, cicc 2.9 s for compute_90a and 3.0 s for compute_90, "
        "ptxas 1.6 s for sm_90a and 1.7 s for sm_90, fatbinary 0.0 s, host compiler 2.4 s");
  {
    // An H200 host's nvcc names its host compiler g++ (lab 02's file, one architecture).
    std::ofstream rows(table);
    rows << "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
            "memory.cu , g++ (preprocessing 4) , memory.cu  , a.cpp4.ii ,  , nvcc , 212.0 , ms\n"
            "memory.cu , g++ (preprocessing 1) , memory.cu  , a.compute_90.cpp1.ii , compute_90 , nvcc , 188.0 , ms\n"
            "memory.cu , cudafe++ , a.cpp4.ii  , a.compute_90.cudafe1.cpp , compute_90 , nvcc , 1210.0 , ms\n"
            "memory.cu , cicc ,  a.compute_90.cpp1.ii  , a.compute_90.ptx , compute_90 , nvcc , 1190.0 , ms\n"
            "memory.cu , ptxas , a.compute_90.ptx  , a.compute_90.cubin , sm_90 , nvcc , 160.0 , ms\n"
            "memory.cu , fatbinary , a.compute_90.cubin  , a.fatbin ,  , nvcc , 20.0 , ms\n"
            "memory.cu , g++ (compiling) ,   , memory.o , compute_90 , nvcc , 1390.0 , ms\n";
  }
  CHECK(nvcc_passes(table) ==
        "preprocessing 0.4 s, cudafe++ 1.2 s, cicc 1.2 s for compute_90, ptxas 0.2 s for sm_90, fatbinary 0.0 s, host "
        "compiler 1.4 s");
  {
    // A host half: PTX alone, and a row nvcc gives no name (this machine's nvcc 13.0, times rounded).
    std::ofstream rows(table);
    rows << "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
            "sgemm.cu , gcc (preprocessing 1) , sgemm.cu  , a.cpp1.ii , compute_90a , nvcc , 266.8 , ms\n"
            "sgemm.cu , gcc (preprocessing 4) , sgemm.cu  , a.cpp4.ii ,  , nvcc , 267.6 , ms\n"
            "sgemm.cu , cudafe++ , a.cpp4.ii  , a.cudafe1.cpp , compute_90a , nvcc , 1648.3 , ms\n"
            "sgemm.cu , cicc ,  a.cpp1.ii  , a.ptx , compute_90a , nvcc , 2239.6 , ms\n"
            "sgemm.cu ,  , a.ptx  , a.ptx , compute_90a , nvcc , 106.8 , ms\n"
            "sgemm.cu , fatbinary , a.ptx  , a.fatbin ,  , nvcc , 13.1 , ms\n"
            "sgemm.cu , gcc (compiling) ,   , host.o , compute_90a , nvcc , 2994.0 , ms\n";
  }
  CHECK(nvcc_passes(table) ==
        "preprocessing 0.5 s, cudafe++ 1.6 s, cicc 2.2 s for compute_90a, a pass nvcc does not name 0.1 s, fatbinary "
        "0.0 s, host compiler 3.0 s");
  std::filesystem::remove(table);
}
