// A submission's intake, and a class: each student's archive or folder unpacked safely, the one
// file of each lab they may edit taken from it, and every submission of a folder graded in turn.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/as_data.h"
#include "runner/build.h"
#include "runner/collect.h"
#include "runner/commands.h"
#include "runner/instructor_copy.h"
#include "runner/process.h"

namespace workbook::runner {

namespace {

namespace fs = std::filesystem;

// A submission's intake: take_submission() unpacks it (an archive through grader/runner/unpack.py, which takes
// no owner, mode, link or special file from it, within caps; a folder as its plain files) into
// results/submissions/NAME, and takes from it the one file of each lab a student may edit.

// The plain files under `folder`, by their paths relative to it, in byte order; links not followed.
std::vector<std::string> plain_files(const fs::path& folder) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator(); ++it)
    if (it->symlink_status().type() == fs::file_type::regular)
      files.push_back(fs::relative(it->path(), folder).string());
  std::sort(files.begin(), files.end());
  return files;
}

// An environment variable's whole number, or `fallback` where it is unset or not one.
std::uint64_t limit_from(const char* variable, std::uint64_t fallback) {
  const char* set = std::getenv(variable);
  if (set == nullptr || *set == '\0' || std::string(set).find_first_not_of("0123456789") != std::string::npos)
    return fallback;
  return std::stoull(set);
}

// Why a submitted folder is too large to take, or "": the limits unpack.py holds an archive to (its
// bytes and its entries, WORKBOOK_UNPACK_MAX_MIB and WORKBOOK_UNPACK_MAX_FILES), counted over its
// plain files without reading them, and stopped at the first entry past a limit.
std::string folder_over_limits(const fs::path& folder) {
  const std::uint64_t max_bytes = limit_from("WORKBOOK_UNPACK_MAX_MIB", 64) << 20;
  const std::uint64_t max_entries = limit_from("WORKBOOK_UNPACK_MAX_FILES", 10000);
  std::uint64_t bytes = 0, entries = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(folder, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (++entries > max_entries) return "it holds more than " + std::to_string(max_entries) + " entries";
    if (it->symlink_status().type() != fs::file_type::regular) continue;
    bytes += it->file_size(error);
    if (bytes > max_bytes) return "it holds more than " + std::to_string(max_bytes >> 20) + " MiB";
  }
  if (error) return "it cannot be read (" + error.message() + ")";
  return "";
}

}  // namespace

std::string archive_extension(const std::string& entry) {
  std::string name = fs::path(entry).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::string extension : {".zip", ".tgz", ".tar.gz", ".tar"})
    if (name.size() >= extension.size() &&
        name.compare(name.size() - extension.size(), extension.size(), extension) == 0)
      return extension;
  return "";
}

std::optional<std::string> submission_name(const std::string& entry) {
  std::string name = fs::path(entry).filename().string();
  name.resize(name.size() - archive_extension(entry).size());
  if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos) return std::nullopt;
  // A name that would not print as itself (a control character, a C1 control, bytes that are not
  // UTF-8) names no folder an instructor can read or type, and would be the student's text in every
  // line and file that names them.
  if (line_as_data(name) != name) return std::nullopt;
  return name;
}

namespace {

// A failed row for every step of `labs` (none: every lab), each saying why it was not graded.
std::vector<StepRow> not_graded_rows(const Checkout& checkout, const std::vector<std::string>& labs,
                                     const std::string& why) {
  std::vector<StepRow> rows;
  for (const std::string& lab : labs.empty() ? checkout.labs() : labs) {
    // Each step by the name its graded rows have, as the lab's judge describes them (grade-class
    // builds them first); where no judge can be built (this is a grading's way out), the lab alone.
    std::vector<LabStep> steps;
    try {
      for (const StepInfo& step : lab_steps(checkout, lab)) steps.push_back(step);
    } catch (const Fatal&) {
      steps = {{lab, lab, ""}};
    }
    for (const LabStep& step : steps) rows.push_back(failed_row(step, "not graded: " + why));
  }
  return rows;
}

}  // namespace

void write_not_graded_json(const Checkout& checkout, const std::vector<std::string>& labs,
                           const std::string& points_path, const std::string& seed, const std::string& path,
                           const std::string& why) {
  const std::vector<StepRow> rows = not_graded_rows(checkout, labs, why);
  Points points;
  if (!points_path.empty() && fs::exists(points_path)) points = read_points(points_path);
  std::ofstream out(path);
  write_gradescope_json(out, rows, points, seed);
}

namespace {

// Each lab's file as a submission holds it, labs/NN_topic/<topic>.cu, and its lab.
std::map<std::string, std::string> lab_files(const Checkout& checkout) {
  std::map<std::string, std::string> lab_of_file;
  for (const fs::directory_entry& lab : fs::directory_iterator(checkout.root + "/labs"))
    if (lab.is_directory() && fs::exists(lab.path() / "CMakeLists.txt")) {
      const std::string name_of_lab = lab.path().filename().string();
      lab_of_file["labs/" + name_of_lab + "/" + checkout.topic_of(name_of_lab) + ".cu"] = name_of_lab;
    }
  return lab_of_file;
}

// The submission's plain files into `unpacked`: an archive through unpack.py (within its limits,
// without modes, links or special files), a folder's plain files with our own modes. Refused with
// the reason, its results folder removed, where it cannot be read or is neither.
void unpack_into(const std::string& root, const std::string& path, const std::string& unpacked,
                 const std::string& results, const std::string& submitted) {
  const std::string extension = archive_extension(path).empty() ? "" : archive_extension(path).substr(1);
  if (!extension.empty() && !fs::is_directory(path)) {
    const Outcome unpacking = run({{"python3", root + "/grader/runner/unpack.py", path, unpacked}});
    std::string said = unpacking.output;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    if (unpacking.status == 1) {
      fs::remove_all(results);
      const std::string why = said.rfind("refused: ", 0) == 0 ? said.substr(9) : said;
      throw Fatal(kExitUsage, "--submission: " + submitted + " is refused: " + why);
    }
    if (unpacking.status != 0) {
      fs::remove_all(results);
      throw Fatal(kExitUsage,
                  "--submission: " + submitted + " is not a " + extension + " archive that can be read (" + said + ")");
    }
    std::string skipped = said;
    std::replace(skipped.begin(), skipped.end(), '\n', ';');
    // Members' names, the student's text: unpack.py writes them as data already, and so does this.
    if (!skipped.empty()) say("submission: " + line_as_data(skipped) + ": only plain files are taken");
  } else if (fs::is_directory(path)) {
    for (const std::string& file : plain_files(path)) {  // plain files only, with our own modes
      fs::create_directories(fs::path(unpacked + "/" + file).parent_path());
      fs::copy_file(fs::path(path) / file, unpacked + "/" + file);
      fs::permissions(unpacked + "/" + file,
                      fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    }
  } else {
    throw Fatal(kExitUsage, "--submission: " + submitted + " is neither a folder nor a .tar, .tar.gz, .tgz or .zip");
  }
}

// Each lab's file of the unpacked submission copied to RESULTS/taken/ (a file taken before with the
// same bytes keeps its time: `taken_before`), the labs it gives in `labs` and `taken`, every other
// file in `ignored`. Each lab's labs/NN_topic/<topic>.cu, perhaps inside the student's own top
// folder ("alice/labs/...").
void take_lab_files(const std::map<std::string, std::string>& lab_of_file, const std::string& unpacked,
                    const std::string& results,
                    const std::map<std::string, std::pair<std::string, fs::file_time_type>>& taken_before,
                    std::set<std::string>& labs, std::vector<std::string>& taken, std::vector<std::string>& ignored) {
  // A flat upload (Gradescope's, of the file alone): <topic>.cu at the top, or in the student's own
  // top folder, is its lab's file, the topic naming the lab; labs/NN_topic/<topic>.cu comes first.
  const auto flat_upload_of = [&](const std::string& file) -> std::string {
    const fs::path path(file);
    const auto depth = std::distance(path.begin(), path.end());
    if (depth > 2) return "";
    for (const auto& [lab_file, lab] : lab_of_file)
      if (path.filename() == fs::path(lab_file).filename()) return lab_file;
    return "";
  };
  std::vector<std::string> files = plain_files(unpacked);
  std::stable_partition(files.begin(), files.end(),
                        [&](const std::string& file) { return flat_upload_of(file).empty(); });
  for (const std::string& file : files) {
    std::string wanted = flat_upload_of(file);
    for (const auto& [lab_file, lab] : lab_of_file)
      if (file == lab_file || file.ends_with("/" + lab_file)) wanted = lab_file;
    if (!wanted.empty() && !labs.contains(lab_of_file.at(wanted))) {
      fs::create_directories(fs::path(results + "/taken/" + wanted).parent_path());
      fs::copy_file(unpacked + "/" + file, results + "/taken/" + wanted);
      if (const auto before = taken_before.find(wanted);
          before != taken_before.end() && before->second.first == read_text(results + "/taken/" + wanted))
        fs::last_write_time(results + "/taken/" + wanted, before->second.second);
      labs.insert(lab_of_file.at(wanted));
      taken.push_back(wanted);
    } else {
      ignored.push_back(file);
    }
  }
}

// The labs whose taken file is the instructor's solution, as is or edited, with the file it copies.
std::map<std::string, std::string> copies_of_solutions(const std::string& root, const std::string& results,
                                                       const std::vector<std::string>& taken,
                                                       const std::map<std::string, std::string>& lab_of_file) {
  // A lab's file that is the instructor's solution, as is or edited, is not the student's work: it is
  // kept in taken/ and not graded (the instructor is told which file it copies; the student is not).
  std::map<std::string, std::string> copied;
  if (const char* allowed = std::getenv("WORKBOOK_GRADE_SOLUTION_COPIES");
      allowed == nullptr || std::string(allowed) != "1") {
    for (const std::string& file : taken) {
      const std::string lab = lab_of_file.at(file);
      // The lab's reference solution: its file and the headers beside it, not its proofs or NOTES.
      std::vector<InstructorFile> solution = instructor_files(root, "solutions/" + lab);
      std::erase_if(solution, [&](const InstructorFile& one) {
        return fs::path(one.path).parent_path() != fs::path("solutions") / lab;
      });
      if (const std::string same = copy_of_instructor_file(read_text(results + "/taken/" + file), solution);
          !same.empty())
        copied[lab] = same;
    }
  }
  return copied;
}

}  // namespace

Submission take_submission(const Checkout& checkout, const std::string& path, const std::string& given_name,
                           const std::string& given_results) {
  const std::string& root = checkout.root;
  if (!fs::exists(fs::symlink_status(path))) throw Fatal(kExitUsage, "--submission: " + path + " does not exist");
  // The submission by its own name in what it is told: a reason reaches the student's results.json,
  // and the folder it lies in on the grading machine is the instructor's.
  const std::string submitted = "'" + line_as_data(fs::path(path).filename().string()) + "'";
  const std::optional<std::string> name =
      given_name.empty() ? submission_name(path) : std::optional<std::string>(given_name);
  if (!name)
    throw Fatal(kExitUsage, "--submission: '" + line_as_data(fs::path(path).filename().string()) +
                                "' gives no name to keep its results under: name the archive or folder for its student "
                                "(not empty, not starting with '.')");
  const std::string results = given_results.empty() ? checkout.results + "/submissions/" + *name : given_results;
  const std::string unpacked = results + "/unpacked";
  // A folder within the limits an archive is unpacked within, measured before anything is copied.
  if (fs::is_directory(path))
    if (const std::string why = folder_over_limits(path); !why.empty())
      throw Fatal(kExitUsage, "--submission: " + submitted + " is refused: " + why);
  // A file taken again with the same bytes keeps its time, so that its build is not redone: grade-class
  // --build-ahead takes and builds a student's files while the GPU grades the student before, then
  // takes them again to grade them.
  std::map<std::string, std::pair<std::string, fs::file_time_type>> taken_before;
  if (fs::is_directory(results + "/taken"))
    for (const std::string& file : plain_files(results + "/taken"))
      taken_before[file] = {read_text(results + "/taken/" + file), fs::last_write_time(results + "/taken/" + file)};
  fs::remove_all(results);
  fs::create_directories(unpacked);
  unpack_into(root, path, unpacked, results, submitted);
  const std::map<std::string, std::string> lab_of_file = lab_files(checkout);
  std::set<std::string> labs;
  std::vector<std::string> taken, ignored;
  take_lab_files(lab_of_file, unpacked, results, taken_before, labs, taken, ignored);
  const std::map<std::string, std::string> copied = copies_of_solutions(root, results, taken, lab_of_file);
  fs::remove_all(unpacked);  // what is graded is in taken/; the rest is listed in ignored.txt
  std::ofstream ignored_list(results + "/ignored.txt");
  for (const std::string& file : ignored)
    ignored_list << line_as_data(file) << '\n';  // a name of the student's, one a line
  std::string taken_text;
  for (const std::string& file : taken) taken_text += file + " ";
  say("submission " + *name + ": takes " +
      (taken.empty() ? "no lab file (a lab file is labs/NN_topic/<topic>.cu, or <topic>.cu alone, a plain file)"
                     : taken_text));
  if (!ignored.empty())
    say("submission " + *name + ": ignores " + std::to_string(ignored.size()) +
        " other files (only each lab's <topic>.cu is graded; the list: " + checkout.shown(results) + "/ignored.txt)");
  return {*name, results, {labs.begin(), labs.end()}, copied};
}

namespace {

// A class: grade_class() grades every submission in a folder in turn, each in a grading of its own, so
// that one that does not compile, crashes or hangs gets its reason and the next one runs.

// The class's own files and folders, beside its students' folders in results/class: no student is
// given one of these names.
constexpr const char* kSummaryFile = "summary.txt";
constexpr const char* kClassCsv = "class.csv";
constexpr const char* kGradebookFile = "gradebook.csv";
constexpr const char* kSlurmFolder = "slurm";
constexpr const char* kJudgesBuildLog = "build.log";  // Build's log of the judges, built once for the class
const std::set<std::string> kClassOwnNames = {kSummaryFile, kClassCsv, kGradebookFile, kSlurmFolder, kJudgesBuildLog};

// A student's name made from an entry of the class folder that is safe to keep results under and
// prints as itself: its name without an archive's extension, each byte outside letters, digits and
// ._+@- made '_' unless the whole is printable UTF-8 (a name like chloé stays as it is), a leading
// '.' made '_', and "_" for nothing at all.
std::string safe_student_name(const std::string& entry) {
  std::string name = fs::path(entry).filename().string();
  name.resize(name.size() - archive_extension(entry).size());
  const bool printable_utf8 = line_as_data(name) == name;
  for (char& c : name) {
    const unsigned char byte = static_cast<unsigned char>(c);
    const bool plain = std::isalnum(byte) || std::string_view("._+@-").find(c) != std::string_view::npos;
    if (!plain && !(printable_utf8 && byte >= 0x80)) c = '_';
  }
  if (name.empty()) name = "_";
  if (name.front() == '.') name.front() = '_';
  return name;
}

// The GPUs a class is graded on, one student at a time on each: as CUDA_VISIBLE_DEVICES names them
// (an index or a UUID each). `chosen` is --gpus: "all" (or nothing) for every GPU visible, else a
// comma-separated list. One "" entry: a single grading at a time, in the environment as it is (one
// GPU, or none: then each grading is built and says there is no GPU, as grade does).
std::vector<std::string> class_gpus(const std::string& chosen) {
  const auto split = [](const std::string& list) {
    std::vector<std::string> items;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
      if (!item.empty()) items.push_back(item);
    return items;
  };
  // The GPUs nvidia-smi sees here, by index and by UUID ("" where it cannot say).
  std::vector<std::string> indices, uuids;
  if (on_path("nvidia-smi")) {
    const Outcome listing = run({{"nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"}});
    if (listing.status == 0)
      for (const std::string& line : lines_of(listing.output))
        if (std::smatch m; std::regex_match(line, m, std::regex("([0-9]+), *(\\S+)"))) {
          indices.push_back(m[1]);
          uuids.push_back(m[2]);
        }
  }
  if (!chosen.empty() && chosen != "all") {
    // An index, or a UUID as nvidia-smi -L prints it (GPU-..., MIG-...); where nvidia-smi lists the
    // GPUs, one of them: a mistyped GPU would grade its students on no GPU at all.
    static const std::regex device("[0-9]+|(GPU|MIG)-[A-Za-z0-9-]+");
    const std::vector<std::string> listed = split(chosen);
    if (listed.empty())
      throw Fatal(kExitUsage, "--gpus takes 'all' or a comma-separated list of GPUs (0,1,3), not '" + chosen + "'");
    for (const std::string& gpu : listed) {
      if (!std::regex_match(gpu, device))
        throw Fatal(kExitUsage,
                    "--gpus: '" + gpu +
                        "' is not a GPU as CUDA_VISIBLE_DEVICES names one (an index like 2, or a UUID like GPU-...)");
      const bool known = std::find(indices.begin(), indices.end(), gpu) != indices.end() ||
                         std::find(uuids.begin(), uuids.end(), gpu) != uuids.end() || gpu.starts_with("MIG-");
      if (!indices.empty() && !known) {
        std::string seen;
        for (const std::string& index : indices) seen += (seen.empty() ? "" : ",") + index;
        throw Fatal(kExitUsage, "--gpus: there is no GPU " + gpu + " here (nvidia-smi lists " + seen + ")");
      }
    }
    if (std::set<std::string>(listed.begin(), listed.end()).size() != listed.size())
      throw Fatal(kExitUsage,
                  "--gpus names a GPU twice: two students timed at once on one GPU would disturb each other");
    return listed;
  }
  std::vector<std::string> visible = indices;
  if (const char* set = std::getenv("CUDA_VISIBLE_DEVICES"); set != nullptr) visible = split(set);
  if (visible.size() <= 1) return {""};
  return visible;
}

// grade-class --slurm: what the instructor asks of Slurm, and the hidden options of the jobs it submits.
struct SlurmRequest {
  bool submit = false, wait = false, merge = false;
  int tasks = 0;  // 0: one task per student, at most 64
  int task = -1;  // a task's own index (its script passes $SLURM_ARRAY_TASK_ID)
  std::string partition, time = "04:00:00", account, gres = "gpu:1", array_job;
  std::vector<std::string> extra;  // --slurm-option, as sbatch takes them
  bool build_ahead = true;         // grade-class's default, or --no-build-ahead: passed on to each task
};

bool read_slurm_option(const std::string& word, Words& words, SlurmRequest& slurm) {
  static const std::regex whole("[0-9]{1,5}"), plain("[A-Za-z0-9_.:,=/+-]+");
  const auto plain_value = [&](const char* what) {
    const std::string value = words.value(what);
    if (!std::regex_match(value, plain))
      throw Fatal(kExitUsage, word + ": '" + value + "' is not a value sbatch takes");
    return value;
  };
  if (word == "--slurm") slurm.submit = true;
  else if (word == "--slurm-wait") slurm.submit = slurm.wait = true;
  else if (word == "--partition") slurm.partition = plain_value("a partition");
  else if (word == "--time") slurm.time = plain_value("a time limit, like 01:30:00");
  else if (word == "--account") slurm.account = plain_value("an account");
  else if (word == "--gres") slurm.gres = plain_value("a resource, like gpu:1 or gpu:h100:1 (none: ask for no GPU)");
  else if (word == "--slurm-option") {
    const std::string option = words.value("an sbatch option, like --qos=class");
    if (!option.starts_with("--") || !std::regex_match(option, plain))
      throw Fatal(kExitUsage, "--slurm-option takes one sbatch option written --name=value, not '" + option + "'");
    slurm.extra.push_back(option);
  } else if (word == "--slurm-tasks" || word == "--slurm-task") {
    const std::string value = words.value("a number");
    if (!std::regex_match(value, whole) || (word == "--slurm-tasks" && std::stoi(value) == 0))
      throw Fatal(kExitUsage, word + " takes a whole number" + std::string(word == "--slurm-tasks" ? " from 1" : "") +
                                  ", not '" + value + "'");
    (word == "--slurm-tasks" ? slurm.tasks : slurm.task) = std::stoi(value);
  } else if (word == "--slurm-merge") slurm.merge = true;
  else if (word == "--slurm-array-job") slurm.array_job = plain_value("a job id");
  else return false;
  return true;
}

// A word for a bash script, quoted whole.
std::string quoted(const std::string& word) {
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

// Slurm's tools, asked for before anything of a class is touched.
void require_slurm() {
  for (const char* tool : {"sbatch", "squeue"})
    if (!on_path(tool))
      throw Fatal(kExitMissingTools,
                  std::string("grade-class --slurm needs Slurm's ") + tool + ", which is not on PATH here");
}

// Writes the class's two job scripts into results/class/slurm/ and submits them: a job array, one
// task per share of the class (each with one GPU, grading its students in turn as grade-class does
// on one GPU), and a merge that runs when the array has ended however it ended (afterany), writing
// the class CSV, summary and gradebook. Slurm places, retries and limits; nothing here waits for a
// GPU or counts time.
int submit_to_slurm(const Checkout& checkout, const std::string& dir, const std::vector<std::string>& labs,
                    const std::vector<std::string>& passed_on, const std::string& points_path, const std::string& seed,
                    SlurmRequest slurm, std::size_t submissions) {
  if (slurm.tasks == 0) slurm.tasks = static_cast<int>(std::min<std::size_t>(submissions, 64));
  slurm.tasks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(slurm.tasks), submissions));
  const std::string class_dir = checkout.results + "/class", scripts = class_dir + "/" + kSlurmFolder;
  fs::create_directories(scripts);
  std::vector<std::string> command = {checkout.build_dir + "/grader/workbook_runner",
                                      "grade-class",
                                      "--root=" + checkout.root,
                                      "--preset=" + checkout.preset,
                                      "--caller=" + checkout.caller,
                                      "--results=" + checkout.results,
                                      "--",
                                      dir};
  command.insert(command.end(), labs.begin(), labs.end());
  command.insert(command.end(), passed_on.begin(), passed_on.end());
  command.insert(command.end(), {"--seed", seed, "--slurm-tasks", std::to_string(slurm.tasks)});
  command.push_back(slurm.build_ahead ? "--build-ahead" : "--no-build-ahead");
  if (!points_path.empty()) command.insert(command.end(), {"--points", points_path});
  std::string line;
  for (const std::string& word : command) line += quoted(word) + " ";
  const auto header = [&](std::ofstream& script, const std::string& name, const std::string& output) {
    script << "#!/usr/bin/env bash\n"
           << "# Written by ./workbook grade-class --slurm; submitted by it. Runs from the checkout.\n"
           << "#SBATCH --job-name=" << name << "\n#SBATCH --output=" << output << "\n#SBATCH --time=" << slurm.time
           << '\n';
    if (!slurm.partition.empty()) script << "#SBATCH --partition=" << slurm.partition << '\n';
    if (!slurm.account.empty()) script << "#SBATCH --account=" << slurm.account << '\n';
    for (const std::string& option : slurm.extra) script << "#SBATCH " << option << '\n';
  };
  {
    std::ofstream task(scripts + "/task.sh");
    header(task, "workbook-class", scripts + "/task-%a.out");
    task << "#SBATCH --array=0-" << slurm.tasks - 1 << "\n#SBATCH --ntasks=1\n";
    if (slurm.gres != "none") task << "#SBATCH --gres=" << slurm.gres << '\n';
    task << "cd " << quoted(checkout.root) << " || exit 1\nexec " << line << "--slurm-task \"$SLURM_ARRAY_TASK_ID\"\n";
  }
  const Outcome array = run({{"sbatch", "--parsable", "--chdir=" + checkout.root, scripts + "/task.sh"}});
  std::string array_job = lines_of(array.output).empty() ? "" : lines_of(array.output).back();
  array_job = array_job.substr(0, array_job.find(';'));  // "id;cluster" on a federation
  if (array.status != 0 || !std::regex_match(array_job, std::regex("[0-9]+")))
    throw Fatal(kExitFailed, "sbatch refused the class's job array: " + array.output);
  {
    std::ofstream merge(scripts + "/merge.sh");
    header(merge, "workbook-class-merge", scripts + "/merge.out");
    merge << "cd " << quoted(checkout.root) << " || exit 1\nexec " << line << "--slurm-merge --slurm-array-job "
          << array_job << '\n';
  }
  std::vector<std::string> merge_argv = {"sbatch", "--parsable", "--chdir=" + checkout.root,
                                         "--dependency=afterany:" + array_job};
  if (slurm.wait) merge_argv.push_back("--wait");
  merge_argv.push_back(scripts + "/merge.sh");
  say("submitted the class to Slurm: job array " + array_job + " (" + std::to_string(slurm.tasks) + " tasks, " +
      std::to_string(submissions) + " submissions, each task with " +
      (slurm.gres == "none" ? "no GPU asked" : slurm.gres) + "); their logs: " + checkout.shown(scripts) +
      "/task-N.out");
  const Outcome merging = run(merge_argv);
  std::string merge_job = lines_of(merging.output).empty() ? "" : lines_of(merging.output).front();
  merge_job = merge_job.substr(0, merge_job.find(';'));
  if (!std::regex_match(merge_job, std::regex("[0-9]+")))
    throw Fatal(kExitFailed, "sbatch refused the class's merge job (the array " + array_job +
                                 " is queued: scancel it): " + merging.output);
  if (!slurm.wait) {
    say("the merge, job " + merge_job + ", writes " + checkout.shown(class_dir) +
        "/summary.txt, class.csv and gradebook.csv when the array has "
        "ended (squeue -j " +
        array_job + "," + merge_job + " shows where they are)");
    return 0;
  }
  std::cout << read_text(class_dir + "/summary.txt");
  say("merged by job " + merge_job +
      (merging.status == 0 ? "" : " (it ended with status " + std::to_string(merging.status) + ")") + ": " +
      checkout.shown(class_dir) + "/summary.txt, class.csv, gradebook.csv");
  return merging.status == 0 ? 0 : kExitFailed;
}

// A student's line of the summary: steps passed, score, and what went wrong when something did.
std::string summary_line(const std::string& name, int passed, int total, double score, const std::string& note) {
  std::ostringstream text;
  text << std::left << std::setw(24) << line_as_data(name) << ' ' << std::right << std::setw(3) << passed << " of "
       << std::left << std::setw(3) << total << " steps  score " << std::setw(7) << fixed(score, 2) << ' '
       << line_as_data(note);
  return text.str();
}

std::string first_error(const std::string& console) {
  for (const std::string& line : lines_of(console))
    if (line.rfind("[workbook] error: ", 0) == 0) return line.substr(18);
  return "";
}

// An earlier class's folder (every student's results.json, the class CSV, the gradebook) is moved
// aside under the time it was last written, results/class-YYYY-MM-DD-HHMMSS, never deleted: an
// instructor who grades again, or runs the tests, keeps what was graded. Returns where it went
// ("" when there was none).
std::string keep_previous_class(const std::string& class_dir) {
  if (!fs::exists(fs::symlink_status(class_dir))) return "";
  if (fs::is_directory(class_dir) && fs::is_empty(class_dir)) {
    fs::remove(class_dir);
    return "";
  }
  struct stat written {};
  const std::string summary = class_dir + "/summary.txt";
  if (stat(fs::exists(summary) ? summary.c_str() : class_dir.c_str(), &written) != 0) written.st_mtime = time(nullptr);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%d-%H%M%S", localtime(&written.st_mtime));
  std::string kept = class_dir + "-" + date;
  for (int again = 2; fs::exists(fs::symlink_status(kept)); ++again)
    kept = class_dir + "-" + date + "-" + std::to_string(again);
  fs::rename(class_dir, kept);
  return kept;
}

// What `./workbook grade-class FOLDER [LAB...] ...` asks for, read and checked before anything moves.
struct ClassRequest {
  std::string dir, points_path, seed, gpus_chosen;
  std::vector<std::string> labs;
  std::vector<std::string> passed_on;  // the options each student's grading takes as they are
  // Each GPU builds its next student while it grades one (the default since it was measured on one
  // H100: the same verdicts and the same % of the reference within 0.52%, a solved student 127-129 s
  // instead of 181-186 s: docs/instructors.md, "Every GPU of a host"); --no-build-ahead builds each
  // as their grading begins.
  bool build_ahead = true;
  SlurmRequest slurm;
};

ClassRequest read_class_request(const Checkout& checkout, Words words) {
  ClassRequest r;
  r.points_path = checkout.root + "/classroom/points.conf";
  for (std::string word; words.next(word);) {
    if (read_slurm_option(word, words, r.slurm)) continue;
    if (word == "--points") {
      r.points_path = checkout.from_caller(words.value("a file"));
      if (!std::ifstream(r.points_path)) throw Fatal(kExitUsage, "--points: cannot read " + r.points_path);
    } else if (word == "--seed") {
      r.seed = checked_seed(words.value("a value"));
    } else if (word == "--timeout") {
      r.passed_on.insert(r.passed_on.end(), {word, words.value("a value")});
    } else if (word == "--no-device-trace") {
      throw Fatal(kExitUsage, std::string("grade-class ") + kNoDeviceTraceAnyMore);
    } else if (word == "--gpus") {
      r.gpus_chosen = words.value("'all' or a list like 0,1");
    } else if (word == "--build-ahead" || word == "--no-build-ahead") {
      r.build_ahead = r.slurm.build_ahead = word == "--build-ahead";
    } else if (word.starts_with("-")) {
      throw unknown_option(checkout, "grade-class", word);
    } else if (r.dir.empty()) {
      r.dir = checkout.from_caller(word);
    } else {
      r.labs.push_back(checkout.lab_named(word));
    }
  }
  if (r.dir.empty())
    throw Fatal(kExitUsage, "grade-class needs the folder of submissions, e.g. ./workbook grade-class submissions/");
  // Every student is graded on the same labs, those named or else all, out of the same maximum: a
  // lab missing from a submission fails its steps as not in it.
  if (r.labs.empty()) r.labs = checkout.labs();
  if (!fs::is_directory(r.dir)) throw Fatal(kExitUsage, "grade-class: " + r.dir + " is not a folder");
  return r;
}

// A student of the class: every entry of the folder, in name order, graded or not, so that the
// summary and the class CSV keep that order however many GPUs grade at once.
struct Student {
  std::string entry, name;  // name: unique in the class, safe as a folder's (list_students)
  std::string line;         // their line of the summary
  std::vector<StepRow> rows;
  int total = 0;            // the steps graded: every student's count, graded or not
  bool not_graded = false;  // nothing of theirs was graded: `note` says why
  std::string note;
};

// A class being graded: what it was asked, where its results go, its students.
struct Class {
  const Checkout& checkout;
  ClassRequest request;
  std::string class_dir;
  Points points;
  std::vector<std::string> gpus;      // one grading at a time on each ("" for the one CUDA shows)
  std::vector<Student> students;      // every entry, in name order
  std::vector<std::size_t> to_grade;  // indices of the named ones: the jobs
  std::vector<std::chrono::steady_clock::time_point> began;  // each job's grading's start
  int steps_of_class = 0;  // every lab's steps, counted once: a student not graded fails them all
  bool no_gpu = false;     // some grading found no GPU

  const SlurmRequest& slurm() const { return request.slurm; }
  std::string own(const Student& student) const { return class_dir + "/" + student.name; }
  // Where their submission's grading keeps what it took, its grade.log (the data keys a replay needs)
  // and its rows: in the class's folder, so that a class moved aside keeps them.
  std::string submission_results(const Student& student) const { return own(student) + "/submission"; }
};

// The class's students, every entry of its folder in name order, each with a name of its own: made
// safe (safe_student_name), none of the class's own files, and two entries for one name (alice/ and
// alice.zip) told apart by a number (alice, alice-2), said on the console. An entry that is neither a
// folder nor an archive the workbook reads is a student too, not graded, with the reason.
void list_students(Class& c, const std::vector<std::string>& entries) {
  for (const std::string& lab : c.request.labs) c.steps_of_class += static_cast<int>(c.checkout.step_ids(lab).size());
  std::set<std::string> taken = kClassOwnNames;
  for (const std::string& entry : entries) taken.insert(safe_student_name(entry));  // each entry's own name first
  std::set<std::string> given;
  for (const std::string& entry : entries) {
    Student student;
    student.entry = entry;
    const std::string wanted = safe_student_name(entry);
    student.name = wanted;
    for (int again = 2; given.contains(student.name) || kClassOwnNames.contains(student.name) ||
                        (student.name != wanted && taken.contains(student.name));
         ++again)
      student.name = wanted + "-" + std::to_string(again);
    given.insert(student.name);
    const std::string shown_entry = "'" + line_as_data(fs::path(entry).filename().string()) + "'";
    if (student.name != fs::path(entry).filename().string() && student.name != submission_name(entry).value_or(""))
      say(shown_entry + " is the student " + student.name +
          (student.name == wanted            ? ""
           : kClassOwnNames.contains(wanted) ? " (" + wanted + " is one of the class's own files)"
                                             : " (another entry gives " + wanted + ")"));
    if (fs::is_directory(entry) || !archive_extension(entry).empty()) {
      c.to_grade.push_back(c.students.size());
    } else {
      student.not_graded = true;
      student.total = c.steps_of_class;
      student.note =
          shown_entry +
          " is not a submission the workbook reads: hand in a folder, or a .zip, .tar, .tar.gz or .tgz of one";
      student.line = summary_line(student.name, 0, student.total, 0, student.note);
      std::cout << student.line << std::endl;
    }
    c.students.push_back(student);
  }
  c.began.resize(c.to_grade.size());
}

// A student's grading, a run of this program of its own: one that crashes the grading is that
// student's failure, and the next one runs. `slot`: the GPU (or Slurm task) it runs on; `lane`
// (--build-ahead): which of the slot's two build folders, one grading while the next student builds
// in the other; `ahead`: that build, which grades nothing.
Command grading_command(Class& c, std::size_t job, std::size_t slot, std::size_t lane, bool ahead) {
  const Student& student = c.students[c.to_grade[job]];
  const std::string own = c.own(student);
  fs::create_directories(own);
  const Checkout& checkout = c.checkout;
  std::vector<std::string> argv = {checkout.build_dir + "/grader/workbook_runner",
                                   "grade",
                                   "--root=" + checkout.root,
                                   "--preset=" + checkout.preset,
                                   "--caller=" + checkout.caller,
                                   "--results=" + checkout.results,
                                   "--",
                                   "--submission",
                                   student.entry,
                                   "--as",
                                   student.name,
                                   "--submission-results",
                                   c.submission_results(student),
                                   "--judges-built"};
  argv.insert(argv.end(), c.request.labs.begin(), c.request.labs.end());
  argv.insert(argv.end(), c.request.passed_on.begin(), c.request.passed_on.end());
  if (!c.request.points_path.empty()) argv.insert(argv.end(), {"--points", c.request.points_path});
  argv.insert(argv.end(), {"--json", own + "/results.json"});
  std::vector<std::pair<std::string, std::string>> env;
  // The build folder (and the range of step users) this grading takes: one per GPU, or per Slurm
  // task (tasks may run at once on one node), and per lane.
  const std::size_t folders = c.slurm().task >= 0 ? static_cast<std::size_t>(c.slurm().tasks) : c.gpus.size();
  const std::size_t folder = (c.slurm().task >= 0 ? static_cast<std::size_t>(c.slurm().task) : slot) + lane * folders;
  if (!c.gpus[slot].empty()) env.emplace_back("CUDA_VISIBLE_DEVICES", c.gpus[slot]);
  if (!c.gpus[slot].empty() || folder > 0) argv.insert(argv.end(), {"--class-slot", std::to_string(folder)});
  if (ahead) {
    argv.push_back("--build-only");
    return Command(argv, env, "", own + "/build-ahead.txt");
  }
  c.began[job] = std::chrono::steady_clock::now();
  return Command(argv, env, "", own + "/grade.txt");
}

// A student's grading has ended with `status`: their rows, their points and their line of the
// summary, with a note that says why wherever nothing passed.
void take_verdict(Class& c, std::size_t job, std::size_t slot, int status) {
  Student& student = c.students[c.to_grade[job]];
  const std::string console = read_text(c.own(student) + "/grade.txt");
  // The rows this runner itself wrote for the submission's grading.
  const std::string rows_path = c.submission_results(student) + "/grade-rows.tsv";
  if (status != kExitUsage && fs::exists(rows_path)) student.rows = read_rows(rows_path);
  int passed = 0;
  double score = 0;
  bool hung = false, broken = false, gpu_missing = status == kExitNoGpu;
  for (const StepVerdict& v : verdicts(student.rows)) {
    student.total += v.applicable ? 1 : 0;
    passed += v.applicable && v.passed ? 1 : 0;
    score += c.points.score(v);
  }
  for (const StepRow& row : student.rows) {
    hung = hung || row.reason.rfind("did not finish within", 0) == 0;
    broken = broken || row.reason.starts_with(row.step.lab + " does not compile");
    gpu_missing = gpu_missing || row.reason == kNoGpuReason;  // beside a lab that failed unbuilt, the exit is 1
  }
  std::string& note = student.note;
  // A lab file that copies the instructor's solution: the instructor reads which, here.
  if (const std::string copied = read_text(c.submission_results(student) + "/copied.txt"); !copied.empty())
    note = lines_of(copied).front();
  if (gpu_missing) {
    note = "no GPU visible";
    c.no_gpu = true;
  } else if (student.total == 0 || (status != 0 && status != 1)) {
    note = first_error(console);
  }
  // Nothing passed and nothing above says why: the first step's reason (an empty submission's
  // "not in the submission", a starter's TODO), so that no student's line is left without one.
  if (note.empty() && passed == 0 && !broken && !hung)
    for (const StepRow& row : student.rows)
      if (row.verdict == Verdict::kFail && !row.reason.empty()) {
        note = row.reason.size() > 120 ? row.reason.substr(0, 117) + "..." : row.reason;
        break;
      }
  const std::string shown_own = c.checkout.shown(c.class_dir) + "/" + student.name;
  if (student.total == 0) {
    student.not_graded = true;
    student.total = c.steps_of_class;
    if (note.empty()) note = "its grading ended without a verdict (see " + shown_own + "/grade.txt)";
  }
  if (broken) note += std::string(note.empty() ? "" : "; ") + "does not compile (see " + shown_own + "/grade.txt)";
  if (hung) note += (note.empty() ? "" : "; ") + std::string("a step hung and was stopped");
  student.line = summary_line(student.name, passed, student.total, score, note);
  std::cout << student.line;
  // How long their grading took (and on which GPU, where there are several): for planning a class.
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - c.began[job]).count();
  if (c.gpus.size() > 1) std::cout << "  (GPU " << c.gpus[slot] << ", " << seconds << " s)";
  else std::cout << "  (" << seconds << " s)";
  std::cout << std::endl;
}

// A Slurm task's share of the class, in turn, on the GPU Slurm gave it; each student's exit status
// is left for the merge.
void grade_slurm_share(Class& c, const std::function<Command(std::size_t, std::size_t, std::size_t)>& building_ahead) {
  std::vector<std::size_t> mine;
  for (std::size_t job = 0; job < c.to_grade.size(); ++job)
    if (static_cast<int>(job % static_cast<std::size_t>(c.slurm().tasks)) == c.slurm().task) mine.push_back(job);
  const auto graded_here = [&](std::size_t i, std::size_t slot, int status) {
    std::ofstream(c.own(c.students[c.to_grade[mine[i]]]) + "/exit-status") << status << '\n';
    take_verdict(c, mine[i], slot, status);
  };
  run_on_slots_ahead(
      mine.size(), 1,
      [&](std::size_t i, std::size_t slot, std::size_t lane) { return grading_command(c, mine[i], slot, lane, false); },
      building_ahead
          ? [&](std::size_t i, std::size_t slot, std::size_t lane) { return building_ahead(mine[i], slot, lane); }
          : std::function<Command(std::size_t, std::size_t, std::size_t)>(),
      graded_here);
}

// The Slurm merge: what the tasks left. A student whose task ended before their grading did
// (failed, cancelled, out of time) has no exit status, and gets a failed row saying so, never no row.
void merge_slurm_tasks(Class& c) {
  for (std::size_t job = 0; job < c.to_grade.size(); ++job) {
    Student& student = c.students[c.to_grade[job]];
    std::ifstream status_file(c.own(student) + "/exit-status");
    int status = -1;
    if (status_file >> status) {
      take_verdict(c, job, 0, status);
      continue;
    }
    const std::string task = std::to_string(job % static_cast<std::size_t>(c.slurm().tasks));
    student.note = "its Slurm task (" + (c.slurm().array_job.empty() ? "" : "job " + c.slurm().array_job + ", ") +
                   "task " + task + ") ended before grading it: failed, cancelled or out of time (" +
                   c.checkout.shown(c.class_dir) + "/slurm/task-" + task + ".out)";
    student.not_graded = true;
    student.total = c.steps_of_class;
    student.line = summary_line(student.name, 0, student.total, 0, student.note);
    std::cout << student.line << std::endl;
  }
}

// The class's files: the summary's lines, every step in class.csv (a failed row per step, saying
// why, for a student not graded, whose results.json says so too), and the gradebook.
void write_class_files(const Class& c, std::ostream& summary) {
  const std::string csv = c.class_dir + "/" + kClassCsv;
  const ClassRequest& r = c.request;
  std::vector<std::string> students;        // every named submission, graded or not: the gradebook's rows
  std::map<std::string, LabScores> scores;  // their points, lab by lab
  for (const Student& student : c.students) {
    summary << student.line << '\n';
    students.push_back(student.name);
    const std::string own = c.own(student);
    if (student.not_graded) {
      const std::vector<StepRow> rows = not_graded_rows(c.checkout, r.labs, student.note);
      append_class_csv(csv, student.name, rows, c.points, r.seed);
      scores[student.name] = lab_scores(rows, c.points);
      fs::create_directories(own);  // a student whose Slurm task never started has no folder yet
      if (!fs::exists(own + "/results.json") ||
          fs::file_size(own + "/results.json") == 0)  // the grading's own, when it wrote one
        write_not_graded_json(c.checkout, r.labs, r.points_path, r.seed, own + "/results.json", student.note);
    } else {
      append_class_csv(csv, student.name, student.rows, c.points, r.seed);
      scores[student.name] = lab_scores(student.rows, c.points);
    }
  }
  summary.flush();
  // The scores in the form gradebooks import: a row per student, a column of points per lab.
  std::ofstream gradebook(c.class_dir + "/" + kGradebookFile);
  write_gradebook(gradebook, students, r.labs, scores);
  const std::string shown_class = c.checkout.shown(c.class_dir);
  say("class table: " + shown_class + "/summary.txt; every step: " + shown_class +
      "/class.csv; points per lab, to import into a "
      "gradebook: " +
      shown_class + "/gradebook.csv; per student: " + shown_class + "/NAME/");
}

}  // namespace

namespace {

// The class's submissions, in name order: a folder or an archive each.
std::vector<std::string> class_entries(const ClassRequest& r) {
  std::vector<std::string> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(r.dir)) entries.push_back(entry.path().string());
  std::sort(entries.begin(), entries.end());
  if (entries.empty())
    throw Fatal(kExitUsage, "grade-class: " + r.dir + " holds no submission (a folder or an archive each)");
  return entries;
}

// The previous class moved aside to a dated folder (its path, "" where there was none) and this
// class's folder made.
std::string start_class_folder(const Class& c) {
  const std::string previous_class = keep_previous_class(c.class_dir);
  if (!previous_class.empty())
    say("the previous class's results are kept in " + c.checkout.shown(previous_class) + "; this class's go to " +
        c.checkout.shown(c.class_dir));
  fs::create_directories(c.class_dir);
  return previous_class;
}

// The class as a Slurm job array; where nothing was queued, the previous class goes back where it was.
int submit_class_to_slurm(const Class& c, std::size_t submissions, const std::string& previous_class) {
  const ClassRequest& r = c.request;
  try {
    return submit_to_slurm(c.checkout, r.dir, r.labs, r.passed_on, r.points_path, r.seed, r.slurm, submissions);
  } catch (const Fatal&) {
    if (!previous_class.empty()) {
      fs::remove_all(c.class_dir);
      fs::rename(previous_class, c.class_dir);
      say("nothing was submitted: the previous class's results are back in " + c.checkout.shown(c.class_dir));
    }
    throw;
  }
}

// What this grading does, said before it starts: whose submissions, the seed (in the summary too),
// the GPUs.
void announce_grading(const Class& c, std::size_t submissions, AsDataFile& summary) {
  const ClassRequest& r = c.request;
  const SlurmRequest& slurm = r.slurm;
  if (slurm.task >= 0)
    say("Slurm task " + std::to_string(slurm.task) + " of " + std::to_string(slurm.tasks) + ": grading its share of " +
        r.dir + " (in name order, submission " + std::to_string(slurm.task + 1) + " and each " +
        std::to_string(slurm.tasks) + " after it), one after another");
  else if (!slurm.merge)
    say("grading " + std::to_string(submissions) + " submissions from " + r.dir + "; each one's log in " +
        c.checkout.shown(c.class_dir) + "/NAME/");
  if (slurm.task < 0) {
    const std::string line = "seed " + r.seed + " for every submission (./workbook grade-class " + r.dir + " --seed " +
                             r.seed + " replays it)";
    std::cout << line << std::endl;
    summary << line << '\n';
  }
  if (c.gpus.size() > 1) {
    std::string list;
    for (const std::string& gpu : c.gpus) list += (list.empty() ? "" : ",") + gpu;
    say("grading on " + std::to_string(c.gpus.size()) + " GPUs (" + list +
        "), one student at a time on each; each GPU's "
        "students build in a folder of their own (build/submissions-" +
        c.checkout.preset + "-slotN)");
  }
}

}  // namespace

int grade_class(const Checkout& checkout, Words words) {
  Class c{checkout, read_class_request(checkout, std::move(words)), checkout.results + "/class", {}, {}, {}, {}, {}, 0,
          false};
  ClassRequest& r = c.request;
  const SlurmRequest& slurm = r.slurm;
  if (slurm.submit) require_slurm();  // before anything of the previous class is moved
  if (!std::ifstream(r.points_path)) r.points_path.clear();
  if (!r.points_path.empty()) {
    check_points(checkout, r.points_path);
    c.points = read_points(r.points_path);
  }
  const std::vector<std::string> entries = class_entries(r);
  // A Slurm task or the merge works in the class folder its submission made; anything else starts it afresh.
  const bool slurm_job = slurm.task >= 0 || slurm.merge;
  c.gpus = slurm_job ? std::vector<std::string>{""} : class_gpus(r.gpus_chosen);  // checked before anything moves
  const std::string previous_class = slurm_job ? "" : start_class_folder(c);
  // One seed for the whole class: every student's kernels see the same inputs and drawn sizes.
  if (r.seed.empty()) {
    if (slurm_job)
      throw Fatal(kExitUsage, "grade-class: a Slurm task or merge is given the class's seed by its script");
    r.seed = drawn_seed();
  }
  // The labs' judges, once for the class (a Slurm class's when it is submitted): each student's build
  // folder then compiles their files alone, and no two gradings at once build in the checkout's.
  if (!slurm_job) {
    // Said before minutes of building, not after them: without a GPU nothing will be graded.
    if (!on_path("nvidia-smi") || gpu_name().empty())
      say("no CUDA GPU is visible here: the submissions will be built and audited, not graded");
    say("building the labs' judges once, for every student (build/" + checkout.preset + ")");
    Build(checkout, checkout.build_dir, c.class_dir).judges(r.labs);
  }
  if (slurm.submit) return submit_class_to_slurm(c, entries.size(), previous_class);
  // Every student's line, their name and what went wrong in their own words among it: as data.
  AsDataFile summary;
  if (slurm.task < 0) summary.open(c.class_dir + "/" + kSummaryFile, std::ios::trunc);
  r.passed_on.insert(r.passed_on.end(), {"--seed", r.seed});
  announce_grading(c, entries.size(), summary);
  list_students(c, entries);
  const auto grading = [&](std::size_t job, std::size_t slot, std::size_t lane) {
    return grading_command(c, job, slot, lane, false);
  };
  const std::function<Command(std::size_t, std::size_t, std::size_t)> building_ahead =
      r.build_ahead ? std::function<Command(std::size_t, std::size_t, std::size_t)>(
                          [&](std::size_t job, std::size_t slot, std::size_t lane) {
                            return grading_command(c, job, slot, lane, true);
                          })
                    : nullptr;
  const auto graded = [&](std::size_t job, std::size_t slot, int status) { take_verdict(c, job, slot, status); };
  if (slurm.task >= 0) {
    grade_slurm_share(c, building_ahead);
    return 0;
  }
  if (slurm.merge) merge_slurm_tasks(c);
  else run_on_slots_ahead(c.to_grade.size(), c.gpus.size(), grading, building_ahead, graded);
  write_class_files(c, summary);
  if (c.no_gpu) {  // as grade says it: built and audited, not graded
    say("no CUDA GPU is visible here: the submissions were built and audited, not graded");
    return kExitNoGpu;
  }
  return 0;
}

}  // namespace workbook::runner
