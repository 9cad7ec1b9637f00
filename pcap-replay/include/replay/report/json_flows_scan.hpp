#pragma once
// A report document read without holding it: the elements of its top-level
// "flows" array are handed out one at a time, as text, and the rest of the
// document (with "flows": []) is kept, which is small (the connections are
// what grows). `pcap-replay merge` reads shard documents of any size so.
//
// Any JSON formatting is read (a document reformatted by jq or Python is
// fine): the scan follows strings, escapes and nesting, not lines. What it
// does not check (the syntax of the parts it hands out or keeps) the JSON
// parser does when they are parsed.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace replay {

/// A document whose structure the scan cannot follow (truncated, not an
/// object, unbalanced): what() names the document and the byte; or one that
/// cannot be read (a directory, an I/O error).
struct ScanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FlowsScan {
 public:
  /// Reads `file` (not owned) from its current position; `name` is for
  /// errors. `keep_rest`: keep the document around "flows" (rest()).
  FlowsScan(std::FILE* file, std::string name, bool keep_rest, std::size_t buffer_bytes = 1 << 16);

  /// The next element of the top-level "flows" array into `out` (replaced),
  /// or false when the array has ended (or the document has none).
  bool next(std::string& out);
  /// Reads to the end of the document and gives it with "flows": [] (the
  /// elements not handed out are skipped). With keep_rest only.
  const std::string& rest();

 private:
  // Reads bytes until an element is complete (true) or the document ends.
  bool scan(std::string* element);
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_read() const;

  std::FILE* file_;
  std::string name_;
  bool keep_rest_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0;  // bytes consumed before buf_[0]
  std::string rest_;
  std::string str_;      // the latest string at depth 1 (a key when ':' follows)
  std::string key_;      // the key of the depth-1 value being read
  int depth_ = 0;        // containers open
  bool in_string_ = false, escape_ = false;
  bool collect_str_ = false;  // str_ takes the string's bytes
  bool in_flows_ = false;     // inside the top-level "flows" array
  bool flows_seen_ = false;
  bool in_element_ = false;
  bool ended_ = false;  // the top-level object closed
  bool began_ = false;  // the top-level object opened
};

}  // namespace replay
