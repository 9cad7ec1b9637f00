#pragma once
// JSON text written as it goes, byte for byte what nlohmann::json's dump(2)
// gives for the same values: objects' keys in byte order (nlohmann::json
// keeps them in a std::map), ": " after a key, one member or element per
// line, "{}" and "[]" when empty, numbers as nlohmann writes them. The
// report's per-connection entries are written with it: no document tree,
// no allocation per value (a tree of 100 nodes per connection cost more than
// analysing a connection of one SYN).
//
// Keys must be given in byte order: the writer checks each against the one
// before it in the same object and throws std::logic_error (a defect in the
// caller) when it is not greater.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace replay {

class JsonText {
 public:
  /// Writes into `out` (appending); every line after the first starts with
  /// `base_indent` spaces more than nlohmann's dump(2) would indent it.
  explicit JsonText(std::string& out, int base_indent = 0) : out_(out), base_(base_indent) {}

  /// The next member's key (inside an object).
  JsonText& key(std::string_view k);

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();

  void null();
  void boolean(bool b);
  /// An integer of any width (bool is not one: boolean()).
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  void number(T n) {
    if constexpr (std::is_signed_v<T>)
      signed_number(n);
    else
      unsigned_number(n);
  }
  /// nlohmann's shortest round-trip form ("1000.0", "0.25", "1e-05"); null
  /// when not finite, as nlohmann writes NaN and infinities.
  void number(double x);
  /// Escaped as nlohmann escapes (ensure_ascii off); bytes that are not
  /// UTF-8 are written as U+FFFD (nlohmann's error_handler_t::replace, as
  /// dump_document writes the rest of the document).
  void string(std::string_view s);

 private:
  struct Level {
    bool array = false;
    bool any = false;      // a member or element was written
    std::string last_key;  // objects: the key before (its capacity reused)
  };
  void signed_number(std::int64_t n);
  void unsigned_number(std::uint64_t n);
  void before_value();
  void newline_indent(std::size_t depth);
  void open(char c, bool array);
  void close(char c);

  std::string& out_;
  int base_;
  std::vector<Level> levels_;
  std::size_t depth_ = 0;  // open containers (levels_ may hold more, reused)
  bool after_key_ = false;
};

}  // namespace replay
