#include "protocol/as_data.h"

#include <cstddef>

namespace workbook {

namespace {

// How a well-formed UTF-8 sequence that starts with a given byte goes on (the Unicode Standard's
// table 3-7): its length, and the range its second byte must lie in, which is what rules out
// overlong forms (after 0xE0, 0xF0), UTF-16 surrogates (after 0xED) and code points past U+10FFFF
// (after 0xF4). Length 0: no sequence starts with this byte.
struct Utf8Start {
  std::size_t length = 0;
  unsigned char second_low = 0x80, second_high = 0xBF;
};

Utf8Start utf8_start(unsigned char byte) {
  if (byte < 0x80) return {1};
  if (byte >= 0xC2 && byte <= 0xDF) return {2};
  if (byte == 0xE0) return {3, 0xA0, 0xBF};
  if (byte == 0xED) return {3, 0x80, 0x9F};
  if (byte >= 0xE1 && byte <= 0xEF) return {3};
  if (byte == 0xF0) return {4, 0x90, 0xBF};
  if (byte >= 0xF1 && byte <= 0xF3) return {4};
  if (byte == 0xF4) return {4, 0x80, 0x8F};
  return {};
}

// How many bytes at the start of `text` go on as the sequence its first byte starts: its whole
// length when it is well formed and all there; fewer when it is cut short or broken.
std::size_t utf8_bytes_in_order(std::string_view text) {
  const Utf8Start start = utf8_start(static_cast<unsigned char>(text.front()));
  if (start.length == 0) return 0;
  std::size_t in_order = 1;
  for (; in_order < start.length && in_order < text.size(); ++in_order) {
    const auto byte = static_cast<unsigned char>(text[in_order]);
    const unsigned char low = in_order == 1 ? start.second_low : 0x80, high = in_order == 1 ? start.second_high : 0xBF;
    if (byte < low || byte > high) break;
  }
  return in_order;
}

void append_hex(std::string& out, unsigned char byte) {
  constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xF];
}

std::string as_data(std::string_view text, bool one_line) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte >= 0x20 && byte < 0x7F) {
      out += static_cast<char>(byte);
      ++at;
    } else if ((byte == '\n' || byte == '\t') && !one_line) {
      out += static_cast<char>(byte);
      ++at;
    } else if (byte == '\n' || byte == '\r' || byte == '\t') {
      out += byte == '\n' ? "\\n" : byte == '\r' ? "\\r" : "\\t";
      ++at;
    } else if (byte < 0x80) {  // the other C0 controls, and DEL
      append_hex(out, byte);
      ++at;
    } else {
      const std::size_t length = utf8_start(byte).length;
      const std::size_t in_order = utf8_bytes_in_order(text.substr(at));
      const bool c1_control = byte == 0xC2 && in_order == 2 && static_cast<unsigned char>(text[at + 1]) <= 0x9F;
      if (in_order == length && length > 0 && !c1_control) {
        out.append(text.substr(at, length));
        at += length;
      } else if (c1_control) {
        append_hex(out, byte);
        append_hex(out, static_cast<unsigned char>(text[at + 1]));
        at += 2;
      } else {  // not well formed: this byte is shown, and the next is read afresh
        append_hex(out, byte);
        ++at;
      }
    }
  }
  return out;
}

// How many bytes at the end of `text` begin a UTF-8 character whose end has not come yet: 0 when
// the text ends whole (or ends in bytes that no continuation could make well formed).
std::size_t cut_character_at_end(std::string_view text) {
  for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const std::string_view tail = text.substr(text.size() - back);
    const auto first = static_cast<unsigned char>(tail.front());
    if (first < 0x80) return 0;
    if (first >= 0xC0) return utf8_start(first).length > back && utf8_bytes_in_order(tail) == back ? back : 0;
  }
  return 0;
}

}  // namespace

std::string text_as_data(std::string_view text) { return as_data(text, /*one_line=*/false); }

std::string line_as_data(std::string_view text) { return as_data(text, /*one_line=*/true); }

AsDataStreambuf::~AsDataStreambuf() {
  pass_on(/*even_a_cut_character=*/true);
  destination_->pubsync();
}

bool AsDataStreambuf::pass_on(bool even_a_cut_character) {
  const std::size_t whole = held_.size() - (even_a_cut_character ? 0 : cut_character_at_end(held_));
  const std::string shown = text_as_data(std::string_view(held_).substr(0, whole));
  held_.erase(0, whole);
  return destination_->sputn(shown.data(), static_cast<std::streamsize>(shown.size())) ==
         static_cast<std::streamsize>(shown.size());
}

AsDataStreambuf::int_type AsDataStreambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  held_ += traits_type::to_char_type(c);
  return pass_on(false) ? c : traits_type::eof();
}

std::streamsize AsDataStreambuf::xsputn(const char* text, std::streamsize size) {
  held_.append(text, static_cast<std::size_t>(size));
  return pass_on(false) ? size : 0;
}

int AsDataStreambuf::sync() { return pass_on(false) && destination_->pubsync() == 0 ? 0 : -1; }

void AsDataFile::open(const std::string& path, std::ios::openmode mode) {
  if (file_.open(path, mode | std::ios::out) == nullptr) setstate(std::ios::failbit);
  else clear();
}

// A line break cannot be left in a field: a spreadsheet would keep it, and a terminal obey it.
std::string csv_field(std::string_view given) {
  std::string text = line_as_data(given);
  // A field a spreadsheet would read as a formula (a student's name or words starting with = + - @)
  // is kept as text: a leading ' is how spreadsheets mark one.
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) text.insert(0, 1, '\'');
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

}  // namespace workbook
