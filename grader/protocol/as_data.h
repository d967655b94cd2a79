// Any text as data: what a student's file says (what its launchers throw, what its host code and
// kernels print, its archive's member names, its submission's name) crosses into the grader's
// processes and out to an instructor's terminal and files. Written there as it came, an escape
// sequence would be the terminal's command, not text: "\x1b[2K\r" erases a FAIL line and writes
// PASS over it, in the console and in every `cat` of grade.log. So every such text is written
// through here, whoever wrote it, and a byte that would not print as itself is written visibly.
//
// The convention is a C string literal's: "\n", "\r" and "\t" as C writes them, every other such
// byte as "\x" and its two lowercase hex digits ("\x1b" for ESC, "\x00" for NUL, "\x7f" for DEL).
// Such a byte is any control character (0x00-0x1F and 0x7F), each byte of a C1 control (U+0080-
// U+009F, in UTF-8 0xC2 0x80-0x9F: many terminals obey them as they do ESC sequences), and each
// byte that is not part of well-formed UTF-8 (a stray continuation, an overlong form, a surrogate,
// a cut sequence). Everything else, UTF-8 text like "é" included, is left as it is, and so is a
// backslash: the result is for reading, not for reading back, and applying it again changes
// nothing, so each boundary may apply it without knowing whether an earlier one did.
#pragma once

#include <fstream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace workbook {

// A text of several lines (prints, a log): '\n' and '\t' kept, everything else above escaped.
std::string text_as_data(std::string_view text);
// A field of one line (a reason, a name, a CSV cell, a table's cell): '\n' and '\t' escaped too, so
// that the text can neither start a line that passes for the grader's nor break a table's columns.
std::string line_as_data(std::string_view text);
// A CSV field as RFC 4180 writes it, of one line of data (line_as_data): quoted when it holds a comma
// or a quote ("06.8 Blelloch, conflict-free"), its quotes doubled, and a field a spreadsheet would
// read as a formula (starting with = + - @) kept as text by a leading '. Python's csv reads it back.
std::string csv_field(std::string_view text);

// A stream buffer that passes on everything written to it as text_as_data(), to `destination`: a
// console or a file that no path of the program's can write raw to, whether or not it escaped its
// text itself. A UTF-8 character split between two writes is held until its end comes, so that it
// is judged whole; what is held at the end is passed on, escaped, when the buffer is destroyed.
class AsDataStreambuf : public std::streambuf {
 public:
  explicit AsDataStreambuf(std::streambuf* destination) : destination_(destination) {}
  ~AsDataStreambuf() override;
  AsDataStreambuf(const AsDataStreambuf&) = delete;
  AsDataStreambuf& operator=(const AsDataStreambuf&) = delete;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize size) override;
  int sync() override;

 private:
  // False when the destination took less than it was given.
  bool pass_on(bool even_a_cut_character);

  std::streambuf* destination_;
  std::string held_;
};

// A file written as data (AsDataStreambuf): grade.log and the class's summary.txt, which hold what
// students' files printed and said beside the grader's own lines.
class AsDataFile : public std::ostream {
 public:
  AsDataFile() : std::ostream(&as_data_) {}
  AsDataFile(const std::string& path, std::ios::openmode mode) : AsDataFile() { open(path, mode); }
  // As std::ofstream::open: the stream fails when the file cannot be opened.
  void open(const std::string& path, std::ios::openmode mode);

 private:
  std::filebuf file_;
  AsDataStreambuf as_data_{&file_};  // after file_: destroyed first, passing on what it holds
};

}  // namespace workbook
