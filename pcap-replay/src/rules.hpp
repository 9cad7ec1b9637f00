#pragma once
// The RFC 6298 rules pcap-replay checks: id, section, level and a short
// statement. A Finding is one departure (or note) at one frame.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "segment.hpp"

namespace replay {

/// Requirement level of a rule (RFC 2119 keywords), plus INFO for notes.
enum class Level { must, should, may, info };

/// "MUST", "SHOULD", "MAY", "INFO".
std::string_view to_string(Level l);

/// One checked rule of RFC 6298.
struct Rule {
  std::string_view id;         ///< "2.1", "2.4", "2.5", "3", "5.3/5.6", "5.4", "5.5", "5.7", "late"
  std::string_view section;    ///< "RFC 6298 2.4" ...
  Level level;                 ///< MUST / SHOULD / MAY / INFO
  std::string_view statement;  ///< what the rule requires, one line
};

/// All rules, in report order.
std::span<const Rule> all_rules();
/// The rule with this id; throws std::out_of_range for an unknown id.
const Rule& rule(std::string_view id);

/// One departure from a rule (or an INFO note) at one frame of one file.
struct Finding {
  std::string rule;       ///< Rule::id
  Level level = Level::info;
  std::uint64_t frame = 0;  ///< Wireshark frame number of the segment concerned
  CaptureTime time{};
  std::string message;    ///< one sentence with the numbers (ms)
};

}  // namespace replay
