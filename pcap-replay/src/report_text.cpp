#include "report_text.hpp"

#include <fmt/format.h>

#include <map>

namespace replay {

using std::chrono::microseconds;

namespace {
double ms(microseconds d) { return static_cast<double>(d.count()) / 1000.0; }
std::string opt_ms(const std::optional<microseconds>& d) { return d ? fmt::format("{:.3f} ms", ms(*d)) : "-"; }
double rel_s(const Report& r, CaptureTime t) {
  return std::chrono::duration<double>(t - r.first_time).count();
}
}  // namespace

std::string summary_line(const Report& r) {
  std::uint64_t timeouts = 0, retx = 0;
  for (const auto& f : r.flows)
    for (const auto& s : f.senders) {
      timeouts += s.timeouts.size();
      retx += s.retransmissions();
    }
  return fmt::format(
      "summary: {} flow(s), {} retransmission(s), {} timeout(s); findings: {} MUST, {} SHOULD, {} MAY, {} INFO; "
      "{} bad frame(s) skipped; profile {}",
      r.flows.size(), retx, timeouts, r.count(Level::must), r.count(Level::should), r.count(Level::may),
      r.count(Level::info), r.diagnostics.size(), to_string(r.options.profile));
}

void write_text_report(std::ostream& os, const Report& r) {
  const Options& o = r.options;
  os << fmt::format("pcap-replay check: profile {}, tolerance {:.3f} ms + {}% of the predicted value{}\n",
                    to_string(o.profile), ms(o.granularity), o.slack_percent,
                    o.timer_wheel_lateness ? ", plus Linux timer-wheel lateness (up to 12.5 %, never early)" : "");
  os << fmt::format("  RTO: initial {:.0f} ms, min {:.0f} ms, max {:.0f} ms, SYN linear timeouts {}\n",
                    ms(o.config.initial_rto), ms(o.config.min_rto), ms(o.config.max_rto),
                    o.config.syn_linear_timeouts);
  for (const auto& f : r.flows) {
    os << fmt::format("\nflow {}: {} <-> {}  ({}, frames {}-{}, {} packets, {:.3f} s)\n", f.id,
                      to_string(f.client), to_string(f.server), f.file, f.first_frame, f.last_frame, f.packets,
                      std::chrono::duration<double>(f.last_time - f.first_time).count());
    if (f.capture_duplicates)
    {
      std::string frames;
      for (std::size_t i = 0; i < f.duplicate_frames.size() && i < 5; ++i)
        frames += (i ? ", " : "") + std::to_string(f.duplicate_frames[i]);
      if (f.duplicate_frames.size() > 5) frames += ", ...";
      os << fmt::format("  {} packet(s) captured twice, ignored (frames {}): same headers and IPv4 ID within "
                        "10 ms, or, without an ID, within 0.2 ms with nothing from the peer between\n",
                        f.capture_duplicates, frames);
    }
    for (const auto& s : f.senders) {
      if (s.data_segments == 0) continue;
      os << fmt::format("  sender {} -> {}: {} packets, {} data segments, {} bytes; timestamps {}, SACK {}\n",
                        to_string(s.src), to_string(s.dst), s.packets, s.data_segments, s.bytes,
                        s.timestamps ? "on" : "off", s.sack ? "seen" : "not seen");
      if (!s.peer_seen)
        os << "    nothing from the peer in the capture (one direction only): SND.UNA is unknown, timer rules "
              "not checked\n";
      os << fmt::format("    RTT samples: {} (Karn, from never-retransmitted data) + {} (timestamp echo); "
                        "{} ACKs of retransmitted data gave none\n",
                        s.samples_seq, s.samples_ts, s.ambiguous_acks);
      os << fmt::format("    final: SRTT {}, RTTVAR {}, RTO {:.3f} ms, backoff {}\n", opt_ms(s.srtt),
                        opt_ms(s.rttvar), ms(s.rto), s.backoff);
      os << "    retransmissions:";
      bool any = false;
      for (std::size_t k = 1; k < kSendKinds; ++k) {
        if (s.by_kind[k] == 0) continue;
        os << fmt::format(" {} {}", s.by_kind[k], to_string(static_cast<SendKind>(k)));
        any = true;
      }
      os << (any ? "" : " none");
      if (s.keepalives) os << fmt::format("; {} keep-alive(s)", s.keepalives);
      if (s.zero_window_probes) os << fmt::format("; {} zero-window probe(s)", s.zero_window_probes);
      os << "\n";
      if (!s.timeouts.empty()) {
        os << fmt::format("    timeouts: {:>8} {:>10} {:>11} {:>3} {:>10} {:>10} {:>21}  {:<11} {}\n", "frame",
                          "time(s)", "seq", "k", "waited", "predicted", "accepted", "armed by", "verdict");
        for (const auto& t : s.timeouts)
          os << fmt::format("              {:>8} {:>10.3f} {:>11} {:>3} {:>10.1f} {:>10.1f} {:>21}  {:<11} {}\n",
                            t.frame, rel_s(r, t.time), t.syn ? std::string("SYN") : std::to_string(t.rel_seq),
                            t.backoff, ms(t.waited), ms(t.predicted),
                            fmt::format("[{:.1f}, {:.1f}]", ms(t.earliest), ms(t.latest)), t.armed_by,
                            t.verdict);
      }
      if (s.findings.empty()) {
        os << "    findings: none\n";
      } else {
        std::map<std::string, std::vector<const Finding*>> by_rule;
        for (const auto& x : s.findings) by_rule[x.rule].push_back(&x);
        os << "    findings:\n";
        for (const auto& ru : all_rules()) {
          auto it = by_rule.find(std::string(ru.id));
          if (it == by_rule.end()) continue;
          os << fmt::format("      [{} {}] {} ({} time(s)): {}\n", to_string(ru.level), ru.id, ru.section,
                            it->second.size(), ru.statement);
          for (const Finding* x : it->second)
            os << fmt::format("        frame {} at {:.3f} s: {}\n", x->frame, rel_s(r, x->time), x->message);
        }
      }
    }
  }
  if (!r.diagnostics.empty()) {
    os << "\nbad input (skipped):\n";
    for (const auto& d : r.diagnostics) os << "  " << to_string(d) << "\n";
  }
  os << "\n" << summary_line(r) << "\n";
}

void write_flow_list(std::ostream& os, const Report& r) {
  os << fmt::format("{:>4}  {:<46} {:>8} {:>17} {:>10}  {}\n", "flow", "client -> server", "packets", "frames",
                    "duration", "file / flags");
  for (const auto& f : r.flows) {
    std::string flags;
    if (f.saw_syn) flags += " SYN";
    if (f.saw_fin) flags += " FIN";
    if (f.saw_rst) flags += " RST";
    os << fmt::format("{:>4}  {:<46} {:>8} {:>17} {:>9.3f}s  {}{}\n", f.id,
                      to_string(f.client) + " -> " + to_string(f.server), f.packets,
                      fmt::format("{}-{}", f.first_frame, f.last_frame),
                      std::chrono::duration<double>(f.last_time - f.first_time).count(), f.file, flags);
  }
}

}  // namespace replay
