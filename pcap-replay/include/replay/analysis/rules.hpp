#pragma once
// The RFC 6298 rules pcap-replay checks: id, section, level and a short
// statement. A Judgement (judgement.hpp) is one verdict (or note) at one frame.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <replay/input/segment.hpp>

namespace replay {

/// Requirement level of a rule (RFC 2119 keywords), plus INFO for notes.
enum class Level { must, should, may, info };

/// "MUST", "SHOULD", "MAY", "INFO".
std::string_view to_string(Level l);
/// The level named "must", "should", "may" or "info" (any case); nullopt otherwise.
std::optional<Level> parse_level(std::string_view name);
/// Whether `l` is `floor` or above it (MUST above SHOULD above MAY above INFO).
constexpr bool at_least(Level l, Level floor) { return static_cast<int>(l) <= static_cast<int>(floor); }

/// The rules and notes pcap-replay reports. The token in each comment is
/// the requirement's traceable name (RFC6298-2.4 ...); to_string() gives the
/// short id the reports use ("2.4").
enum class RuleId : std::uint8_t {
  rfc6298_2_1,      ///< RFC6298-2.1: RTO 1 s until the first sample
  rfc6298_2_4,      ///< RFC6298-2.4: floor 1 s
  rfc6298_2_5,      ///< RFC6298-2.5: a maximum must be at least 60 s
  rfc6298_3_karn,   ///< RFC6298-3-karn: no sample from retransmitted data; backoff kept until a valid sample
  rfc6298_5_3_5_6,  ///< RFC6298-5.3 / RFC6298-5.6: restart with the current RTO; never fire early
  rfc6298_5_4,      ///< RFC6298-5.4: retransmit the earliest unacknowledged segment
  rfc6298_5_5,      ///< RFC6298-5.5: double the RTO on expiry
  rfc6298_5_7,      ///< RFC6298-5.7: 3 s after a SYN timeout when data begins
  late,             ///< INFO: an expiry far later than predicted
  ambiguous,        ///< INFO: the capture cannot tell (capture point, probe or RTO, lost ACK)
  stack_setting,    ///< INFO: a departure from the profile's defaults that a documented setting explains
};
inline constexpr std::size_t kRuleIds = 11;

/// "2.1", "2.4", "2.5", "3", "5.3/5.6", "5.4", "5.5", "5.7", "late", "ambiguous", "setting".
std::string_view to_string(RuleId r);

/// One checked rule of RFC 6298 (or note).
struct Rule {
  RuleId rule;
  std::string_view id;         ///< to_string(rule)
  std::string_view section;    ///< "RFC 6298 2.4" ...
  Level level;                 ///< MUST / SHOULD / MAY / INFO
  std::string_view statement;  ///< what the rule requires, one line
};

/// All rules, in report order.
std::span<const Rule> all_rules();
/// The rule with this id; throws std::out_of_range for an unknown id.
const Rule& rule(std::string_view id);
/// The rule of `r`.
const Rule& rule(RuleId r);

}  // namespace replay
