#pragma once
// A report document read without holding it: the elements of its top-level
// "flows" array are handed out one at a time, as text, and the rest of the
// document (with "flows": []) is kept, which is small (the connections are
// what grows). `pcap-replay merge` reads shard documents of any size so.
//
// Any JSON formatting is read (a document reformatted by Python is fine;
// a UTF-8 byte order mark is skipped, as the JSON parser skips it): the scan
// follows strings, escapes and nesting, not lines, and the array's grammar
// (objects separated by single commas). What it does not check (the syntax
// inside the parts it hands out or keeps) the JSON parser does when they
// are parsed. A key "flows" written with escapes is not recognised: the
// caller refuses a rest whose parsed "flows" is not empty.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace replay {

/// A document whose structure the scan cannot follow (truncated, not an
/// object, unbalanced, too deep): what() names the document and the byte;
/// or one that cannot be read (a directory, an I/O error).
struct ScanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The deepest nesting read (a report's is about 6): deeper input is refused
/// before a parser recurses into it.
inline constexpr int kMaxJsonDepth = 64;
/// The most a document may hold outside its "flows" array (its inputs,
/// diagnostics, counts: kilobytes in a report): more is refused before it
/// is held (an endless stream, a document that is no report).
inline constexpr std::size_t kMaxRestBytes = std::size_t{256} << 20;

class FlowsScan {
 public:
  /// Reads `file` (not owned), standing at its start; `name` is for errors.
  /// `keep_rest`: keep the document around "flows" (rest()).
  /// `max_rest`: the most kept outside "flows" (kMaxRestBytes).
  FlowsScan(std::FILE* file, std::string name, bool keep_rest, std::size_t buffer_bytes = 1 << 16,
            std::size_t max_rest = kMaxRestBytes);

  /// The next element of the top-level "flows" array into `out` (replaced),
  /// or false when the array has ended (or the document has none).
  bool next(std::string& out);
  /// The byte of the file where the element next() gave begins (from 0).
  std::uint64_t element_offset() const { return element_at_; }
  /// Reads to the end of the document and gives it with "flows": [] (the
  /// elements not handed out are skipped). With keep_rest only.
  const std::string& rest();
  /// The byte of the file that byte `i` of rest() was read from (both from 0).
  std::uint64_t file_offset_of_rest(std::uint64_t i) const;

  /// Bytes consumed so far: where the file must stand for reattach().
  std::uint64_t position() const { return offset_ + pos_; }
  /// Goes on from another handle of the same file, positioned at
  /// position() (the previous one closed: a merge of more documents than
  /// it may keep open).
  void reattach(std::FILE* file);
  /// Every byte read from now on is also written to `copy` (a pipe's
  /// document kept to be read again: it is checked as it is copied).
  void copy_to(std::FILE* copy) { copy_ = copy; }

 private:
  enum class InArray : std::uint8_t { start, after_element, after_comma };
  // Reads bytes until an element is complete (true) or the array or the
  // document ends (false).
  bool scan(std::string* element);
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_read() const;

  // Reads the next block; false at the end of the file.
  bool refill();

  std::FILE* file_;
  std::FILE* copy_ = nullptr;
  std::string name_;
  bool keep_rest_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0;  // bytes consumed before buf_[0]
  std::uint64_t element_at_ = 0;
  std::string rest_;
  std::size_t max_rest_;
  std::uint64_t rest_flows_at_ = 0;  // rest_'s size after the "[" of "flows"
  std::uint64_t flows_skipped_ = 0;  // bytes between that "[" and its "]"
  std::string str_;      // the latest string at depth 1 (a key when ':' follows)
  std::string key_;      // the key of the depth-1 value being read
  int depth_ = 0;        // containers open
  int bom_ = 0;          // bytes of a leading byte order mark passed
  InArray in_array_ = InArray::start;
  bool in_string_ = false, escape_ = false;
  bool collect_str_ = false;  // str_ takes the string's bytes
  bool in_flows_ = false;     // inside the top-level "flows" array
  bool flows_seen_ = false;
  bool in_element_ = false;
  bool ended_ = false;  // the top-level object closed
  bool began_ = false;  // the top-level object opened
};

}  // namespace replay
