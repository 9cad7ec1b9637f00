#include <replay/report/json_text.hpp>

#include <charconv>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace replay {

namespace {
// A string nlohmann writes as it is: printable ASCII without '"' or '\'.
bool plain(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

void append_escaped(std::string& out, std::string_view s) {
  if (plain(s)) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  // Escaped, and bytes that are not UTF-8 as U+FFFD, as dump_document does.
  out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

void JsonText::newline_indent(std::size_t depth) {
  out_ += '\n';
  out_.append(static_cast<std::size_t>(base_) + 2 * depth, ' ');
}

void JsonText::before_value() {
  if (depth_ == 0) return;
  Level& l = levels_[depth_ - 1];
  if (!l.array) {
    if (!after_key_) throw std::logic_error("JsonText: a value in an object without its key");
    after_key_ = false;
    return;
  }
  if (l.any) out_ += ',';
  newline_indent(depth_);
  l.any = true;
}

JsonText& JsonText::key(std::string_view k) {
  if (depth_ == 0 || levels_[depth_ - 1].array || after_key_)
    throw std::logic_error("JsonText: a key outside an object, or two keys in a row");
  Level& l = levels_[depth_ - 1];
  if (l.any) {
    if (!(std::string_view(l.last_key) < k))
      throw std::logic_error("JsonText: key \"" + std::string(k) + "\" after \"" + l.last_key +
                             "\" (keys go in byte order, as nlohmann::json writes them)");
    out_ += ',';
  }
  l.last_key.assign(k);
  l.any = true;
  newline_indent(depth_);
  append_escaped(out_, k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonText::open(char c, bool array) {
  before_value();
  out_ += c;
  if (levels_.size() == depth_) levels_.emplace_back();
  Level& l = levels_[depth_++];
  l.array = array;
  l.any = false;
  l.last_key.clear();
}

void JsonText::close(char c) {
  const bool array = c == ']';
  if (depth_ == 0 || levels_[depth_ - 1].array != array || after_key_)
    throw std::logic_error("JsonText: a container closed that is not open");
  if (levels_[depth_ - 1].any) newline_indent(depth_ - 1);
  out_ += c;
  --depth_;
}

void JsonText::begin_object() { open('{', false); }
void JsonText::end_object() { close('}'); }
void JsonText::begin_array() { open('[', true); }
void JsonText::end_array() { close(']'); }

void JsonText::null() {
  before_value();
  out_ += "null";
}

void JsonText::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
}

void JsonText::unsigned_number(std::uint64_t n) {
  before_value();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, n);
  out_.append(buf, r.ptr);
}

void JsonText::signed_number(std::int64_t n) {
  before_value();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, n);
  out_.append(buf, r.ptr);
}

void JsonText::number(double x) {
  before_value();
  if (!std::isfinite(x)) {
    out_ += "null";
    return;
  }
  // The formatter nlohmann's serializer calls for a double (Grisu2, shortest
  // round trip, ".0" on integers); json_text_test holds it equal to dump().
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, x);
  out_.append(buf, static_cast<std::size_t>(end - buf));
}

void JsonText::string(std::string_view s) {
  before_value();
  append_escaped(out_, s);
}

}  // namespace replay
