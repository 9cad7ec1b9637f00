#include <replay/analysis/flow_report.hpp>

#include <cstdio>

namespace replay {

std::string_view to_string(SendKind k) {
  switch (k) {
    case SendKind::first: return "send";
    case SendKind::timeout: return "rto";
    case SendKind::syn_timeout: return "syn-rto";
    case SendKind::fast: return "fast-retx";
    case SendKind::tlp: return "tlp";
    case SendKind::slow_start_after_rto: return "slow-start-retx";
    case SendKind::spurious: return "spurious-retx";
    case SendKind::unclassified: return "unclassified";
    case SendKind::out_of_order: return "out-of-order";
    case SendKind::syn_reply: return "syn-reply";
    case SendKind::tlp_new_data: return "tlp-new";
    case SendKind::keepalive: return "keepalive";
    case SendKind::zero_window_probe: return "zero-window-probe";
  }
  return "send";
}

bool is_retransmission(SendKind k) {
  switch (k) {
    case SendKind::first:
    case SendKind::out_of_order:
    case SendKind::tlp_new_data:
    case SendKind::keepalive:
    case SendKind::zero_window_probe:
      return false;
    default:
      return true;
  }
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::early: return "early";
    case Verdict::late: return "late";
    case Verdict::unchecked: return "unchecked";
    case Verdict::cannot_tell: return "cannot-tell";
    case Verdict::setting: return "setting";
  }
  return "ok";
}

std::string_view to_string(ClockUsed c) { return c == ClockUsed::tsval ? "tsval" : "capture"; }

std::string_view to_string(SampleKind k) { return k == SampleKind::seq ? "karn" : "ts_echo"; }

std::uint64_t SenderReport::retransmissions() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kSendKinds; ++i)
    if (is_retransmission(static_cast<SendKind>(i))) n += by_kind[i];
  return n;
}

void FlowTotals::add(const FlowReport& f) {
  ++flows;
  for (const auto& s : f.senders) {
    retransmissions += s.retransmissions();
    timeouts += s.timeouts.size();
    for (const auto& x : s.findings) ++findings[static_cast<std::size_t>(x.level)];
  }
}

void FlowTotals::add(const FlowTotals& other) {
  flows += other.flows;
  retransmissions += other.retransmissions;
  timeouts += other.timeouts;
  for (std::size_t l = 0; l < findings.size(); ++l) findings[l] += other.findings[l];
}

std::uint64_t Report::count(Level l) const {
  std::uint64_t n = streamed.findings[static_cast<std::size_t>(l)];
  for (const auto& f : flows)
    for (const auto& s : f.senders)
      for (const auto& x : s.findings)
        if (x.level == l) ++n;
  return n;
}

int Report::exit_status(bool strict) const {
  if (count(Level::must) > 0) return 1;
  if (strict && count(Level::should) > 0) return 1;
  return 0;
}

namespace {
__extension__ typedef __int128 i128;            // GCC/Clang 128-bit integers (ISO C++ has none)
__extension__ typedef unsigned __int128 u128;

// Nanoseconds from `origin` to `t`, exact for any two capture times (128 bits).
i128 ns_between(CaptureTime t, CaptureTime origin) {
  return static_cast<i128>(t.time_since_epoch().count()) - origin.time_since_epoch().count();
}

std::string format_ns(i128 ns) {
  const bool neg = ns < 0;
  const u128 a = neg ? static_cast<u128>(-(ns + 1)) + 1 : static_cast<u128>(ns);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%09llu", neg ? "-" : "", static_cast<unsigned long long>(a / 1'000'000'000),
                static_cast<unsigned long long>(a % 1'000'000'000));
  return buf;
}
}  // namespace

std::string format_epoch(CaptureTime t) { return format_ns(t.time_since_epoch().count()); }

std::string format_rel(CaptureTime t, CaptureTime origin) { return format_ns(ns_between(t, origin)); }

double seconds_between(CaptureTime t, CaptureTime origin) { return static_cast<double>(ns_between(t, origin)) / 1e9; }

double to_seconds(CaptureTime t) {
  return static_cast<double>(t.time_since_epoch().count()) / 1e9;
}

}  // namespace replay
