// Whether a file is a copy of one of the instructor tree's (solutions/), as is or edited: the
// handout refuses to write one into a student's copy, and a grading refuses to grade one as a
// student's work.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace workbook::runner {

// What identifies a file of the instructor tree in a copy: its bytes, and for a text file its
// distinctive lines (whitespace collapsed; blank, short and comment-only lines left out), so that a
// solution with a comment added, or reindented, is still found.
struct InstructorFile {
  std::string path, content;  // path: relative to the checkout's root
  std::set<std::string> lines;
};

// Every file of `root`/`folder` (solutions/, or one lab's solution folder alone), none where the
// checkout has no solutions/ (a student's copy).
std::vector<InstructorFile> instructor_files(const std::string& root, const std::string& folder = "solutions");

// The instructor file `content` is a copy of, with how much of it ("solutions/02_memory/memory.cu
// (87% of its lines)"): "" when none.
std::string copy_of_instructor_file(const std::string& content, const std::vector<InstructorFile>& instructor);

}  // namespace workbook::runner
