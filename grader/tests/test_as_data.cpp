#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include "harness/grade_step.h"
#include "judge/planner_process.h"
#include "protocol/as_data.h"
#include "runner/commands.h"

using namespace std::string_literals;
using workbook::line_as_data;
using workbook::text_as_data;

TEST_CASE("a student's text as data: every control byte is written visibly, as a C string literal writes it") {
  CHECK(text_as_data("\x1b[2K\rPASS") == "\\x1b[2K\\rPASS");  // the erased FAIL line, written over
  CHECK(text_as_data("a\bb") == "a\\x08b");                   // backspace
  CHECK(text_as_data("ring\a") == "ring\\x07");               // BEL
  CHECK(text_as_data("nul\0here"s) == "nul\\x00here");
  CHECK(text_as_data("del\x7f") == "del\\x7f");
  CHECK(text_as_data("\x1b]0;title\x07") == "\\x1b]0;title\\x07");  // an OSC, which retitles the window
}

TEST_CASE("a student's text as data: C1 controls and bytes that are not UTF-8 are written byte by byte") {
  CHECK(text_as_data("\xc2\x9b"
                     "2K") == "\\xc2\\x9b2K");      // CSI as one C1 character, U+009B
  CHECK(text_as_data("\xc2\x85") == "\\xc2\\x85");  // NEL
  CHECK(text_as_data("a\x9b"
                     "b") == "a\\x9bb");                              // CSI as a lone byte (Latin-1), not UTF-8
  CHECK(text_as_data("\xc0\x9b") == "\\xc0\\x9b");                    // an overlong form of ESC's neighbour
  CHECK(text_as_data("\xed\xa0\x80") == "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  CHECK(text_as_data("\xf5\x80\x80\x80") == "\\xf5\\x80\\x80\\x80");  // past U+10FFFF
  CHECK(text_as_data("cut \xe2\x82") == "cut \\xe2\\x82");            // a character cut short
  CHECK(text_as_data("\xe2\x82"
                     "A") ==
        "\\xe2\\x82"
        "A");  // broken: the byte after is read afresh
}

TEST_CASE("a student's text as data: ordinary text, UTF-8 and backslashes included, is left as it is") {
  for (const std::string ordinary : {"TODO(02.2) not implemented", "n = 33: 1 of 33 elements differ",
                                     "café, naïve, Ångström", "x \xe2\x86\x92 y \xe2\x89\xa4 z", "\xf0\x9f\x98\x80",
                                     "\xc2\xa0no-break space", "C:\\path\\x1b is text", "two\nlines\tand a tab"})
    CHECK(text_as_data(ordinary) == ordinary);
}

TEST_CASE("a student's text as data, one line: newlines and tabs escaped too") {
  CHECK(line_as_data("two\nlines\tand a tab\r") == "two\\nlines\\tand a tab\\r");
  CHECK(line_as_data("café") == "café");
  CHECK(text_as_data("a\r\nb") == "a\\r\nb");  // a text of several lines keeps its lines, not its carriage returns
}

TEST_CASE("a student's text as data: written twice is written once, so every boundary may apply it") {
  const std::string hostile = "\x1b[31mFAIL\x1b[0m\r\b\b\bPASS\n\xc2\x9b\xff\0end"s;
  CHECK(text_as_data(text_as_data(hostile)) == text_as_data(hostile));
  CHECK(line_as_data(line_as_data(hostile)) == line_as_data(hostile));
  CHECK(line_as_data(text_as_data(hostile)) == line_as_data(hostile));
  for (const char byte : line_as_data(hostile)) CHECK((byte >= 0x20 && byte < 0x7f));
}

TEST_CASE("a stream written as data: escaped as it goes, a UTF-8 character split between writes judged whole") {
  std::ostringstream console;
  {
    workbook::AsDataStreambuf as_data(console.rdbuf());
    std::ostream out(&as_data);
    out << "caf\xc3" << std::flush;  // é cut in two by a flush
    out << "\xa9 \x1b[2K" << '\r' << "PASS\n";
    out << "\xc2" << std::flush << "\x9b"
        << "J";         // a C1 control split the same way
    out << "\xe2\x82";  // cut, and never finished
  }
  CHECK(console.str() == "café \\x1b[2K\\rPASS\n\\xc2\\x9bJ\\xe2\\x82");
}

TEST_CASE("a file written as data holds no raw control byte") {
  const std::string path = (std::filesystem::temp_directory_path() / "workbook-as-data-test.log").string();
  {
    workbook::AsDataFile log(path, std::ios::trunc);
    REQUIRE(log);
    log << "[workbook] 02.2 ... FAIL\n"
        << "| \x1b[1A\x1b[2K\r[workbook] 02.2 ... PASS\n";
  }
  std::ifstream in(path);
  const std::string written{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CHECK(written == "[workbook] 02.2 ... FAIL\n| \\x1b[1A\\x1b[2K\\r[workbook] 02.2 ... PASS\n");
  std::filesystem::remove(path);
  workbook::AsDataFile nowhere("/nonexistent-folder/grade.log", std::ios::trunc);
  CHECK_FALSE(nowhere);
}

TEST_CASE("what a student's code prints is shown as data, each line after \"| \"") {
  std::ostringstream shown;
  std::streambuf* const console = std::cout.rdbuf(shown.rdbuf());
  const std::string printed =
      "result\t42\n\x1b[1A\x1b[2K\r[workbook] 02.2 ... PASS\n\xc2\x9b"
      "2J";
  workbook::show_students_output("kernels", printed, printed.size());
  std::cout.rdbuf(console);
  CHECK(shown.str().find("\n| result\t42\n| \\x1b[1A\\x1b[2K\\r[workbook] 02.2 ... PASS\n| \\xc2\\x9b2J\n") !=
        std::string::npos);
  CHECK(shown.str().find('\x1b') == std::string::npos);
}

TEST_CASE("what a student's launcher throws becomes a reason of one line, as data") {
  const auto thrown = [](const std::string& message) {
    return workbook::failure_of([&]() -> std::string { throw std::runtime_error(message); });
  };
  CHECK(thrown("\x1b[2K\rPASS") == "the launcher threw: \\x1b[2K\\rPASS");
  CHECK(thrown("two\nlines") == "the launcher threw: two\\nlines");
  CHECK(workbook::failure_of([]() -> std::string { throw workbook::NotImplemented("TODO(02.2)\x1b[2K"); }) ==
        "TODO(02.2)\\x1b[2K");
  CHECK(thrown("rows must be positive") == "the launcher threw: rows must be positive");
}

TEST_CASE("a submission whose name would not print as itself names no student, and is listed as data") {
  CHECK(workbook::runner::submission_name("/class/alice.tgz") == "alice");
  CHECK(workbook::runner::submission_name("/class/chlo\xc3\xa9.zip") ==
        "chlo\xc3\xa9");  // UTF-8: a name like any other
  CHECK_FALSE(workbook::runner::submission_name("/class/eve\x1b[2K.tar"));
  CHECK_FALSE(workbook::runner::submission_name("/class/eve\rmallory"));
  CHECK_FALSE(
      workbook::runner::submission_name("/class/eve\xc2\x9b"
                                        "2K"));                          // a C1 control
  CHECK_FALSE(workbook::runner::submission_name("/class/eve\xff.zip"));  // not UTF-8
}
