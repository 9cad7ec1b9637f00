#include <replay/report/json_flows_scan.hpp>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace replay {

namespace {
bool space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

FlowsScan::FlowsScan(std::FILE* file, std::string name, bool keep_rest, std::size_t buffer_bytes)
    : file_(file), name_(std::move(name)), keep_rest_(keep_rest), buf_(buffer_bytes) {}

void FlowsScan::fail_read() const {
  throw ScanError(fmt::format("{}: cannot read the file: {}", name_, std::strerror(errno)));
}

void FlowsScan::fail(const std::string& what) const {
  throw ScanError(fmt::format("{}: not a JSON document (byte {}): {}", name_, offset_ + pos_, what));
}

bool FlowsScan::next(std::string& out) {
  if (!in_flows_ && (flows_seen_ || ended_)) return false;
  out.clear();
  return scan(&out);
}

const std::string& FlowsScan::rest() {
  while (!ended_) scan(nullptr);
  // Only blanks may follow the document.
  for (;;) {
    for (; pos_ < len_; ++pos_)
      if (!space(buf_[pos_])) fail("more after the document's last '}'");
    offset_ += len_;
    len_ = std::fread(buf_.data(), 1, buf_.size(), file_);
    pos_ = 0;
    if (len_ == 0) break;
  }
  if (std::ferror(file_)) fail_read();
  return rest_;
}

bool FlowsScan::scan(std::string* element) {
  for (;;) {
    if (pos_ == len_) {
      offset_ += len_;
      len_ = std::fread(buf_.data(), 1, buf_.size(), file_);
      pos_ = 0;
      if (len_ == 0) {
        if (std::ferror(file_)) fail_read();
        fail(began_ ? "it ends before its last '}' (truncated?)" : "no JSON object in it");
      }
    }
    const char c = buf_[pos_++];
    // Where the byte goes: the element being read, nowhere (between the
    // elements, or an element skipped), or the rest of the document.
    const auto emit = [&](char b) {
      if (in_element_) {
        if (element) element->push_back(b);
      } else if (!in_flows_ && keep_rest_) {
        rest_.push_back(b);
      }
    };
    if (in_string_) {
      emit(c);
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        collect_str_ = false;
        continue;
      }
      if (collect_str_) str_.push_back(c);
      continue;
    }
    switch (c) {
      case '"':
        if (depth_ == 0) fail("no JSON object in it");
        if (in_flows_ && !in_element_) fail("a \"flows\" entry that is not an object");
        in_string_ = true;
        collect_str_ = depth_ == 1;
        if (collect_str_) str_.clear();
        emit(c);
        break;
      case ':':
        if (depth_ == 1) key_ = str_;
        emit(c);
        break;
      case '{':
      case '[':
        if (depth_ == 0) {
          if (began_ || c != '{') fail("no JSON object in it");
          began_ = true;
        }
        if (depth_ == 1 && c == '[' && key_ == "flows") {
          if (flows_seen_) fail("two \"flows\" arrays");
          emit(c);  // the rest keeps "[" and "]" of "flows"
          flows_seen_ = in_flows_ = true;
          ++depth_;
          break;
        }
        if (in_flows_ && depth_ == 2) {
          if (c != '{') fail("a \"flows\" entry that is not an object");
          in_element_ = true;
        }
        emit(c);
        ++depth_;
        break;
      case '}':
      case ']':
        if (depth_ == 0) fail("a '" + std::string(1, c) + "' that closes nothing");
        if (in_flows_ && depth_ == 2) {
          if (c != ']') fail("a '}' that closes nothing in \"flows\"");
          in_flows_ = false;
          --depth_;
          emit(c);
          if (element) return false;  // the array's end
          break;
        }
        emit(c);
        --depth_;
        if (in_element_ && depth_ == 2) {
          in_element_ = false;
          if (element) return true;
          break;
        }
        if (depth_ == 0) {
          ended_ = true;
          return false;
        }
        break;
      default:
        if (depth_ == 0 && !space(c)) fail("no JSON object in it");
        if (in_flows_ && !in_element_ && !space(c) && c != ',') fail("a \"flows\" entry that is not an object");
        emit(c);
    }
  }
}

}  // namespace replay
