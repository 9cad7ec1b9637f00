#include <replay/analysis/rules.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace replay {

std::string_view to_string(Level l) {
  switch (l) {
    case Level::must: return "MUST";
    case Level::should: return "SHOULD";
    case Level::may: return "MAY";
    case Level::info: return "INFO";
  }
  return "INFO";
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::must, Level::should, Level::may, Level::info}) {
    const std::string_view t = to_string(l);
    if (name.size() == t.size() &&
        std::equal(name.begin(), name.end(), t.begin(), [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; }))
      return l;
  }
  return std::nullopt;
}

namespace {
constexpr std::array<Rule, kRuleIds> kRules{{
    {RuleId::rfc6298_2_1, "2.1", "RFC 6298 2.1", Level::should,
     "until an RTT sample is taken the RTO is 1 s (a SYN or first data retransmitted sooner departs)"},
    {RuleId::rfc6298_2_4, "2.4", "RFC 6298 2.4", Level::should, "an RTO below 1 s should be rounded up to 1 s"},
    {RuleId::rfc6298_2_5, "2.5", "RFC 6298 2.5", Level::must, "a maximum placed on the RTO must be at least 60 s"},
    {RuleId::rfc6298_3_karn, "3", "RFC 6298 3 (Karn)", Level::must,
     "no RTT sample from a retransmitted segment (without timestamps); the backed-off RTO is kept "
     "until a valid sample"},
    {RuleId::rfc6298_5_3_5_6, "5.3/5.6", "RFC 6298 5.3, 5.6", Level::must,
     "the timer restarts with the current RTO on an ACK of new data and after each expiry; it "
     "does not fire earlier"},
    {RuleId::rfc6298_5_4, "5.4", "RFC 6298 5.4", Level::must,
     "on expiry, retransmit the earliest segment not acknowledged"},
    {RuleId::rfc6298_5_5, "5.5", "RFC 6298 5.5", Level::must, "on expiry, back off: RTO = 2 * RTO (up to the maximum)"},
    {RuleId::rfc6298_5_7, "5.7", "RFC 6298 5.7", Level::must,
     "after a SYN timed out, the RTO is re-initialised to 3 s when data transmission begins"},
    {RuleId::late, "late", "RFC 6298 5", Level::info, "a timeout fired far later than the RTO predicted"},
    {RuleId::ambiguous, "ambiguous", "RFC 6298 5", Level::info,
     "the capture cannot tell which reading is right (capture point, loss probe or RTO); no departure is claimed"},
    {RuleId::stack_setting, "setting", "RFC 6298 5", Level::info,
     "a departure from the profile's defaults that a documented setting of the stack explains"},
}};
}  // namespace

std::span<const Rule> all_rules() { return kRules; }

std::string_view to_string(RuleId r) { return kRules[static_cast<std::size_t>(r)].id; }

const Rule& rule(RuleId r) { return kRules[static_cast<std::size_t>(r)]; }

const Rule& rule(std::string_view id) {
  for (const Rule& r : kRules)
    if (r.id == id) return r;
  throw std::out_of_range("unknown rule id " + std::string(id));
}

}  // namespace replay
