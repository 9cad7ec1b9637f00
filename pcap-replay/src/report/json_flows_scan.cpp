#include <replay/report/json_flows_scan.hpp>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace replay {

namespace {
bool space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
// UTF-8's byte order mark, which may open a JSON text (RFC 8259 section 8.1
// lets a parser ignore it; nlohmann's does).
constexpr char kBom[] = "\xEF\xBB\xBF";
}  // namespace

FlowsScan::FlowsScan(std::FILE* file, std::string name, bool keep_rest, std::size_t buffer_bytes, std::size_t max_rest)
    : file_(file), name_(std::move(name)), keep_rest_(keep_rest), buf_(buffer_bytes), max_rest_(max_rest) {}

void FlowsScan::fail_read() const {
  throw ScanError(fmt::format("{}: cannot read the file: {}", name_, std::strerror(errno)));
}

void FlowsScan::fail(const std::string& what) const {
  throw ScanError(fmt::format("{}: not a JSON document (byte {}): {}", name_, position(), what));
}

void FlowsScan::reattach(std::FILE* file) {
  file_ = file;
  offset_ += pos_;
  pos_ = len_ = 0;
}

std::uint64_t FlowsScan::file_offset_of_rest(std::uint64_t i) const {
  return i + static_cast<std::uint64_t>(bom_) + (flows_seen_ && i >= rest_flows_at_ ? flows_skipped_ : 0);
}

bool FlowsScan::refill() {
  offset_ += len_;
  len_ = std::fread(buf_.data(), 1, buf_.size(), file_);
  pos_ = 0;
  if (len_ == 0) {
    if (std::ferror(file_)) fail_read();
    return false;
  }
  if (copy_ && std::fwrite(buf_.data(), 1, len_, copy_) != len_)
    throw ScanError(fmt::format("{}: cannot copy it to a temporary file: {}", name_, std::strerror(errno)));
  return true;
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
      if (!space(buf_[pos_])) {
        ++pos_;
        fail("more after the document's last '}'");
      }
    if (!refill()) break;
  }
  return rest_;
}

bool FlowsScan::scan(std::string* element) {
  for (;;) {
    if (pos_ == len_ && !refill()) fail(began_ ? "it ends before its last '}' (truncated?)" : "no JSON object in it");
    const char c = buf_[pos_++];
    // Where the byte goes: the element being read, nowhere (between the
    // elements, or an element skipped), or the rest of the document.
    const auto emit = [&](char b) {
      if (in_element_) {
        if (element) element->push_back(b);
      } else if (!in_flows_ && keep_rest_) {
        if (rest_.size() >= max_rest_)
          fail(fmt::format("more than {} bytes outside \"flows\" (not a report?)", max_rest_));
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
    if (depth_ == 0) {
      if (!began_ && bom_ < 3 && position() == static_cast<std::uint64_t>(bom_) + 1 && c == kBom[bom_]) {
        ++bom_;
        continue;
      }
      if (bom_ > 0 && bom_ < 3) fail("a byte order mark cut short");
      if (space(c)) {
        emit(c);
        continue;
      }
      if (c != '{') fail("its top level is not an object (not a pcap-replay JSON document)");
      began_ = true;
      emit(c);
      ++depth_;
      continue;
    }
    // Between the elements of "flows": blanks, and single commas.
    if (in_flows_ && !in_element_) {
      if (space(c)) continue;
      if (c == ',') {
        if (in_array_ != InArray::after_element) fail("a comma in \"flows\" without an entry before it");
        in_array_ = InArray::after_comma;
        continue;
      }
      if (c == ']') {
        if (in_array_ == InArray::after_comma) fail("a comma before the end of \"flows\"");
        in_flows_ = false;
        if (keep_rest_) flows_skipped_ = position() - 1 - (rest_flows_at_ + static_cast<std::uint64_t>(bom_));
        --depth_;
        emit(c);
        if (element) return false;  // the array's end
        continue;
      }
      if (c != '{') fail("a \"flows\" entry that is not an object");
      if (in_array_ == InArray::after_element) fail("two \"flows\" entries without a comma between them");
      in_element_ = true;
      element_at_ = position() - 1;
    }
    switch (c) {
      case '"':
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
        if (depth_ >= kMaxJsonDepth) fail(fmt::format("nested deeper than {} levels", kMaxJsonDepth));
        emit(c);
        ++depth_;
        if (depth_ == 2 && c == '[' && key_ == "flows") {
          if (flows_seen_) fail("two \"flows\" arrays");
          flows_seen_ = in_flows_ = true;
          in_array_ = InArray::start;
          rest_flows_at_ = rest_.size();
        }
        break;
      case '}':
      case ']':
        emit(c);
        --depth_;
        if (in_element_ && depth_ == 2) {
          in_element_ = false;
          in_array_ = InArray::after_element;
          if (element) return true;
          break;
        }
        if (depth_ == 0) {
          ended_ = true;
          return false;
        }
        break;
      default:
        emit(c);
    }
  }
}

}  // namespace replay
