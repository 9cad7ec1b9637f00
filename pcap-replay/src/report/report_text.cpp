#include <replay/report/report_text.hpp>

#include <replay/analysis/thresholds.hpp>

#include <fmt/compile.h>
#include <fmt/format.h>

#include <map>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/fixed_ms.hpp>
#include <replay/report/inferred_text.hpp>
#include <replay/report/judgement_text.hpp>
#include "report/lockstep_report.hpp"
#include <replay/report/wireshark_ref.hpp>
#include <replay/analysis/milliseconds.hpp>
#include <replay/report/input_counts.hpp>

namespace replay {

using std::chrono::microseconds;

namespace {

// RFC 7323 timestamps as seen per direction: "on" (both ways), "off" (neither),
// or which side carries TSval ("sender only, the peer does not echo" / "peer not seen").
std::string timestamps_text(const SenderReport& s) {
  if (s.timestamps) return "on";
  if (!s.tsval_sent) return s.peer_seen ? "off" : "off (peer not seen)";
  return s.peer_seen ? "sent by this side only" : "sent by this side, peer not seen";
}
// The text of one flow is formatted into a buffer and written out once, or
// whenever it holds this much.
constexpr std::size_t kTextSpill = 64 * 1024;
std::string opt_ms(const std::optional<microseconds>& d) { return d ? fmt::format(FMT_COMPILE("{} ms"), FixedMs{*d}) : "-"; }
double rel_s(CaptureTime origin, CaptureTime t) { return seconds_between(t, origin); }
}  // namespace

std::string summary_line(const Report& r) {
  std::uint64_t timeouts = r.streamed.timeouts, retx = r.streamed.retransmissions;
  const InputCounts in = input_counts(r);
  for (const auto& f : r.flows)
    for (const auto& s : f.senders) {
      timeouts += s.timeouts.size();
      retx += s.retransmissions();
    }
  return fmt::format(
      "summary: {} flow(s), {} retransmission(s), {} timeout(s); findings: {} MUST, {} SHOULD, {} MAY, {} INFO; "
      "input: {} frame(s) skipped, {} analysed with a warning{}; profile {}{}",
      r.flow_count(), retx, timeouts, r.count(Level::must), r.count(Level::should), r.count(Level::may),
      r.count(Level::info), in.skipped, in.warned, in.unusable ? fmt::format(", {} unusable file(s)", in.unusable) : "",
      r.options.auto_profile ? std::string("auto") : std::string(r.options.profile->name), lockstep_summary(r));
}

void write_text_report(std::ostream& os, const Report& r, const ReportView& view) {
  write_text_heading(os, r.options);
  const StreamNumbers streams(r);
  for (const auto& f : r.flows) {
    const auto stream = streams.of(f);
    if (view.shows(f, stream)) write_text_flow(os, f, r.options, stream, r.origin_of(f.file_index), view);
  }
  write_text_ending(os, r);
}

void write_text_heading(std::ostream& os, const Options& o) {
  if (o.auto_profile) {
    os << fmt::format("pcap-replay check: profile auto (each sender against {}; the best fit is reported), "
                      "tolerance {:.3f} ms + {}% of the predicted value\n",
                      profile_names(), ms(o.absolute_tolerance), o.slack_percent);
  } else {
    std::string overridden;  // the profile's numbers the command line replaced
    const auto add = [&](bool set, std::string_view what) {
      if (set) overridden += (overridden.empty() ? "; set on the command line: " : ", ") + std::string(what);
    };
    add(o.user_min_rto, fmt::format("minimum RTO {:.0f} ms", ms(o.config.min_rto)));
    add(o.user_max_rto, fmt::format("maximum RTO {:.0f} ms", ms(o.config.max_rto)));
    add(o.user_syn_linear, fmt::format("SYN linear timeouts {}", o.config.syn_linear_timeouts));
    add(o.user_granularity, fmt::format("G {:.3f} ms", ms(o.config.granularity)));
    os << fmt::format("pcap-replay check: profile {} ({}{}), tolerance {:.3f} ms + {}% of the predicted value{}\n",
                      o.profile->name, o.profile->title, overridden, ms(o.absolute_tolerance), o.slack_percent,
                      o.profile->lateness == Lateness::linux_wheel
                          ? ", plus Linux timer-wheel lateness (up to 12.5 %, never early)"
                          : "");
    os << fmt::format("  RTO: initial {:.0f} ms, min {:.0f} ms, max {:.0f} ms, SYN linear timeouts {}{}\n",
                      ms(o.config.initial_rto), ms(o.config.min_rto), ms(o.config.max_rto),
                      o.config.syn_linear_timeouts,
                      o.profile->additive.count() ? fmt::format(", {:.0f} ms added to every RTO", ms(o.profile->additive))
                                                  : std::string());
  }
}

void write_text_flow(std::ostream& os, const FlowReport& f, const Options& options, std::optional<std::uint64_t> stream,
                     CaptureTime origin, const ReportView& view) {
  // The flow's text in one buffer, its format strings parsed at compile
  // time, written to `os` once: a stream write and a std::string per line
  // cost more than the analysis of the flow's packets (bench/README.md,
  // "The text report's cost"). The buffer is the thread's, kept from flow to
  // flow: grown once, and in cache.
  thread_local fmt::memory_buffer buf;
  buf.clear();
  const auto out = std::back_inserter(buf);
  // Past kTextSpill bytes (a flow with thousands of expiries or findings)
  // the buffer is written out as it goes, so it never holds a flow whole.
  const auto spill = [&os] {
    if (buf.size() < kTextSpill) return;
    os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  };
  {
    fmt::format_to(out, FMT_COMPILE("\nflow {}: {} <-> {}  ({}, frames {}-{}, {} packets, {:.3f} s)\n"), f.id,
                   to_string(f.client), to_string(f.server), f.file, f.first_frame, f.last_frame, f.packets,
                   seconds_between(f.last_time, f.first_time));
    fmt::format_to(out, FMT_COMPILE("  Wireshark: {}; display filter: {}\n"),
                   stream ? fmt::format("tcp.stream {}", *stream)
                          : std::string("tcp.stream not known under -f (it counts the connections the filter hides)"),
                   stream_filter(f, stream));
    if (!f.vnets.empty()) {
      std::string names;
      for (const VirtualNetwork& v : f.vnets)
        names += (names.empty() ? "" : ", ") + (v.empty() ? "none" : to_string(v));
      fmt::format_to(out, FMT_COMPILE("  virtual network{}: {}{}\n"), f.vnets.size() > 1 ? "s" : "", names,
                     f.vnet_apart ? " (its 4-tuple had another connection on another one at the same time: "
                                    "Wireshark merges them by default)"
                                  : "");
    }
    if (f.alongside) {
      const AlongsideOf& a = *f.alongside;
      const Endpoint& host = a.server ? f.server : f.client;
      const char* clock = !a.another_clock   ? "no TSval tells whose clock it is"
                          : *a.another_clock ? "its TSval comes from another clock: another host"
                                             : "its TSval fits that clock: the same host anew, or another in step";
      fmt::format_to(
          out,
          FMT_COMPILE("  another {} endpoint at {}, beside flow {} (which goes on): its {} has ISN {} where flow "
                      "{}'s has {}{}; {}. Not a retransmission of flow {}'s {}; the segments in its sequence "
                      "space are here\n"),
          a.server ? "server" : "client", to_string(host), a.flow, a.server ? "SYN-ACK" : "SYN", a.isn, a.flow,
          a.other_isn,
          a.syn_frame ? fmt::format(", answering the client's SYN of frame {} (in both flows)", a.syn_frame)
                      : std::string(),
          clock, a.flow, a.server ? "SYN-ACK" : "SYN");
    }
    if (f.capture_duplicates) {
      std::string frames;
      for (std::size_t i = 0; i < f.duplicate_frames.size() && i < 5; ++i)
        frames += (i ? ", " : "") + std::to_string(f.duplicate_frames[i]);
      if (f.duplicate_frames.size() > 5) frames += ", ...";
      fmt::format_to(
          out,
          FMT_COMPILE("  {} packet(s) captured again, ignored (frames {}): the same TCP header and checksum and "
                      "IPv4 ID (its header checksum too at one TTL; VLAN and tunnel may differ), within {:.0f} ms "
                      "of its latest capture (either order); without an ID that names the datagram, a segment with "
                      "data, nothing from "
                      "the peer between, within {:.0f} ms with the same TSval, {:.1f} ms without one\n"),
          f.capture_duplicates, frames, ms(limits::kSameIdWindow), ms(limits::kSameTsvalWindow),
          ms(limits::kNoIdWindow));
    }
    for (const auto& s : f.senders) {
      if (s.data_segments == 0 || !view.shows(s)) continue;
      // SYN and FIN occupy one sequence number each, so they count as
      // data-bearing (they are retransmitted on the timer like data);
      // `bytes` counts payload only.
      fmt::format_to(
          out,
          FMT_COMPILE("  sender {} -> {}: {} packets, {} data-bearing segment(s) (SYN/FIN count as one byte), "
                      "{} payload bytes; timestamps {}, SACK {}\n"),
          to_string(s.src), to_string(s.dst), s.packets, s.data_segments, s.bytes, timestamps_text(s),
          s.sack ? "seen" : "not seen");
      if (!s.peer_seen)
        buf.append(std::string_view(
            "    nothing from the peer in the capture (one direction only): SND.UNA is unknown, the data timer's "
            "rules not checked (a SYN's are: nothing acknowledged it)\n"));
      fmt::format_to(out,
                     FMT_COMPILE("    RTT samples: {} (Karn, from never-retransmitted data) + {} (timestamp echo); "
                                 "{} ACKs of retransmitted data gave none\n"),
                     s.samples_seq, s.samples_ts, s.ambiguous_acks);
      if (s.capture_rtt && s.capture_rtt->count() > 0)
        fmt::format_to(
            out,
            FMT_COMPILE("    captured away from the sender: {} {} ms of round trip to it, added to each RTT "
                        "sample (the replayed estimator reads the samples from uncorrected to corrected){}\n"),
            s.capture_rtt_bound ? "at most" : "about", FixedMs{*s.capture_rtt},
            s.capture_rtt_bound ? "; an upper bound: the handshake could not tell which SYN the first "
                                  "SYN-ACK answers, or an ACK of the peer's data bounded it"
                                : "");
      if (s.samples_refused)
        fmt::format_to(out,
                       FMT_COMPILE("    {} RTT sample(s) over 1 hour refused (the capture's clock jumped): in no count "
                                   "and no statistic\n"),
                       s.samples_refused);
      for (const auto& [what, st] : {std::pair{"Karn", &s.rtt_karn}, std::pair{"timestamp echo", &s.rtt_ts_echo}})
        if (st->samples)
          fmt::format_to(out, FMT_COMPILE("    RTT ({}): min {} ms, avg {:.3f} ms, max {} ms, stdev {:.3f} ms\n"), what,
                         FixedMs{st->min}, *st->mean_ms(), FixedMs{st->max}, *st->stdev_ms());
      fmt::format_to(out, FMT_COMPILE("    {}\n"), summarize(s, options));
      fmt::format_to(out,
                     FMT_COMPILE("    replayed estimator ({}) at the end: SRTT {}, RTTVAR {}, RTO {} ms, backoff {}\n"),
                     s.profile.data() ? s.profile : std::string_view(""), opt_ms(s.srtt), opt_ms(s.rttvar),
                     FixedMs{s.rto}, s.backoff);
      buf.append(std::string_view("    retransmissions:"));
      std::string kinds;
      for (std::size_t k = 1; k < kSendKinds; ++k) {
        const auto kind = static_cast<SendKind>(k);
        if (s.by_kind[k] == 0 || !(is_retransmission(kind) || kind == SendKind::out_of_order)) continue;
        kinds += fmt::format("{}{} {}", kinds.empty() ? " " : ", ", s.by_kind[k], to_string(kind));
      }
      buf.append(kinds.empty() ? std::string_view(" none") : std::string_view(kinds));
      if (const auto n = s.by_kind[static_cast<std::size_t>(SendKind::tlp_new_data)])
        fmt::format_to(out, FMT_COMPILE("; {} loss probe(s) with new data"), n);
      if (s.keepalives) fmt::format_to(out, FMT_COMPILE("; {} keep-alive(s)"), s.keepalives);
      if (s.zero_window_probes) fmt::format_to(out, FMT_COMPILE("; {} zero-window probe(s)"), s.zero_window_probes);
      buf.append(std::string_view("\n"));
      if (!s.timeouts.empty()) {
        buf.append(
            std::string_view("    timer expiries (times in ms; n = the expiry's number in its chain, since the last "
                             "valid RTT sample):\n"));
        fmt::format_to(out, FMT_COMPILE("      {:>8} {:>9} {:>11} {:>3} {:>17} {:>20} {:>20} {:>20}  {:<11} {}\n"),
                       "frame", "at (s)", "seq", "n", "waited", "predicted", "accepted", "departure at", "armed by",
                       "verdict");
        bool any_doubling = false;
        for (const auto& t : s.timeouts) {
          spill();
          std::string verdict(to_string(t.verdict));
          if (t.clock == ClockUsed::tsval) verdict += " (sender's TSval clock)";
          for (std::size_t i = 0; i < t.rules.size(); ++i) {
            // The level of the judgement of this rule at this frame (INFO
            // where the capture cannot tell; the highest where there are
            // several), as the findings below list it: not the rule's own,
            // which would read "MUST" where nothing is broken. Where the
            // selection hides it (as the JSON does): INFO for an expiry the
            // capture cannot place, else the rule's own.
            const Rule& ru = rule(t.rules[i]);
            const Judgement* found = nullptr;
            for (const auto& f : s.findings)
              if (f.frame == t.frame && f.rule == t.rules[i] && view.shows(f) && (!found || f.level < found->level))
                found = &f;
            const Level level = found ? found->level : t.verdict == Verdict::cannot_tell ? Level::info : ru.level;
            verdict += fmt::format("{}{} {}", i == 0 ? ": " : ", ", to_string(level), ru.id);
            // Judged with the previous wait (a held frame between): the sum.
            if (found && found->joint_waited)
              verdict += fmt::format(" (with frame {}: {} ms together)", found->other_frame,
                                     interval_text(*found->joint_waited));
          }
          any_doubling = any_doubling || t.basis == Basis::doubling;
          if (t.wait_unknown) verdict += " (the capture clock stepped back: wait unknown)";
          fmt::format_to(out, FMT_COMPILE("      {:>8} {:>9.3f} {:>11} {:>3} {:>17} {:>20} {:>20} {:>20}  {:<11} {}\n"),
                         t.frame, rel_s(origin, t.time), t.syn ? std::string("SYN") : std::to_string(t.rel_seq),
                         t.expiry, t.wait_unknown ? std::string("?") : interval_text(t.wait),
                         interval_text(t.predicted) + (t.basis == Basis::doubling ? "*" : " "),
                         t.wait_unknown ? std::string("-") : interval_text(t.accepted),
                         t.alternative ? interval_text(*t.alternative) : std::string("-"), to_string(t.armed_by),
                         verdict);
        }
        buf.append(std::string_view(
            "      waited: since the event in 'armed by' (an interval where the capture cannot tell when the "
            "sender armed its timer); predicted: the RTO, made before the wait was compared; accepted: the "
            "predicted RTO with the timer's lateness and the tolerance; departure at: where the wait of the "
            "departure the check exists to catch would fall (not doubled; the RTO without the floor)\n"));
        if (any_doubling)
          buf.append(std::string_view(
              "      * = predicted from the chain's earlier waits (the 5.5 doubling of the RTO they show, under "
              "the timer's lateness); the chain's first expiry is predicted from the profile's RTO\n"));
      }
      const std::size_t shown = view.shown_findings(s);
      if (shown == 0 && s.findings.empty()) {
        buf.append(std::string_view("    findings: none\n"));
      } else if (shown == 0) {
        fmt::format_to(out, FMT_COMPILE("    findings: none shown ({} hidden by {})\n"), s.findings.size(),
                       view.describe());
      } else {
        if (shown < s.findings.size())
          fmt::format_to(out, FMT_COMPILE("    findings ({} hidden by {}):\n"), s.findings.size() - shown,
                         view.describe());
        else
          buf.append(std::string_view("    findings:\n"));
        for (const auto& ru : all_rules()) {
          for (Level lv : {Level::must, Level::should, Level::may, Level::info}) {
            if (!at_least(lv, view.level)) continue;
            std::vector<const Judgement*> these;
            for (const auto& x : s.findings)  // as counted above: -Y's frames too
              if (x.rule == ru.rule && x.level == lv && view.shows(x)) these.push_back(&x);
            if (these.empty()) continue;
            const bool note = lv == Level::info && ru.level != Level::info;
            fmt::format_to(out, FMT_COMPILE("      [{} {}] {} ({} time(s)): {}{}\n"), to_string(lv), ru.id, ru.section,
                           these.size(), ru.statement, note ? " (a note, not a departure)" : "");
            for (const Judgement* x : these) {
              spill();
              fmt::format_to(out, FMT_COMPILE("        frame {} at {:.3f} s: {}  [{}]\n"), x->frame,
                             rel_s(origin, x->time), describe(*x, options), frame_filter(x->frame));
            }
          }
        }
      }
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (buf.capacity() > kTextSpill * 2) buf = fmt::memory_buffer();  // (a long flow's growth not kept)
}

void write_text_ending(std::ostream& os, const Report& r) {
  if (auto note = empty_input_note(r)) os << "\nnote: " << *note << "\n";
  write_input_problems(os, r);
  write_lockstep_text(os, r);
  if (r.inputs.size() > 1) {  // per file: its times count from its own frame 1
    os << "\nper file:\n";
    for (std::size_t i = 0; i < r.inputs.size(); ++i) {
      const InputFile& in = r.inputs[i];
      const FlowTotals t = i < r.file_totals.size() ? r.file_totals[i] : FlowTotals{};
      const auto n = [&](Level l) { return t.findings[static_cast<std::size_t>(l)]; };
      os << fmt::format("  {}: {} frame(s), {} flow(s), {} retransmission(s), {} timeout(s); findings: {} MUST, {} "
                        "SHOULD, {} MAY, {} INFO{}\n",
                        in.name, in.frames, t.flows, t.retransmissions, t.timeouts, n(Level::must), n(Level::should),
                        n(Level::may), n(Level::info),
                        !in.usable()                ? "; unusable"
                        : in.first_frame_time       ? fmt::format("; frame 1 at {}", format_epoch(*in.first_frame_time))
                                                    : std::string());
    }
  }
  // The model's thresholds, for the record: below the report, not above it.
  os << "\nmodel: " << limits::describe_thresholds() << "\n";
  // What the counts can see (the kernel's TcpExtTCPTimeouts counts every
  // expiry, the capture only those with a copy at the capture point).
  os << "counted: the timer expiries and retransmissions the capture shows; an expiry whose every copy was lost "
        "before the capture point (a capture away from the sender) is not in it, and the first copy shown reads as "
        "a first transmission\n";
  os << summary_line(r) << "\n";
}

void write_input_problems(std::ostream& os, const Report& r) {
  if (input_counts(r).unusable) {
    os << "\nunusable input (nothing analysed from these files; exit status 2):\n";
    for (const auto& in : r.inputs)
      if (!in.usable()) os << "  " << in.error << "\n";
  }
  bool lost = false;
  for (const auto& in : r.inputs) lost = lost || (in.usable() && in.lost_data());
  if (lost) {
    os << "\nlost input (stretches that could not be read; the rest of the file was analysed; exit status 2):\n";
    for (const auto& in : r.inputs)
      if (in.usable())
        for (const auto& l : in.lost) os << "  " << to_string(in.name, l) << "\n";
    for (const auto& in : r.inputs)
      for (const auto& line : live_lost_text(in)) os << "  " << line << "\n";
  }
  // A read error at the first record is the unusable file's reason: said once, above.
  const InputCounts c = input_counts(r);
  if (c.skipped) {
    os << "\nbad input (frames skipped, not analysed):\n";
    for (const auto& d : r.diagnostics)
      if (d.skipped && !is_unusable_reason(r, d)) os << "  " << to_string(d) << "\n";
  }
  if (c.warned) {
    os << "\nwarnings (frames analysed, the problem worked around as Wireshark does):\n";
    for (const auto& d : r.diagnostics)
      if (!d.skipped) os << "  " << to_string(d) << "\n";
  }
}

void write_flow_list_heading(std::ostream& os) {
  os << fmt::format("{:>4} {:>6}  {:<46} {:>8} {:>17} {:>10}  {}\n", "flow", "stream", "client -> server", "packets",
                    "frames", "duration", "file / flags");
}

void write_flow_list_line(std::ostream& os, const FlowReport& f, std::optional<std::uint64_t> stream) {
  std::string flags;
  if (f.saw_syn) flags += " SYN";
  if (f.saw_fin) flags += " FIN";
  if (f.saw_rst) flags += " RST";
  for (const VirtualNetwork& v : f.vnets) flags += " [" + (v.empty() ? std::string("none") : to_string(v)) + "]";
  if (f.alongside) flags += fmt::format(" (beside flow {})", f.alongside->flow);
  os << fmt::format("{:>4} {:>6}  {:<46} {:>8} {:>17} {:>9.3f}s  {}{}\n", f.id,
                    stream ? std::to_string(*stream) : std::string("-"), to_string(f.client) + " -> " + to_string(f.server),
                    f.packets, fmt::format("{}-{}", f.first_frame, f.last_frame),
                    seconds_between(f.last_time, f.first_time), f.file, flags);
}

void write_flow_list(std::ostream& os, const Report& r, const ReportView& view) {
  write_flow_list_heading(os);
  const StreamNumbers streams(r);
  for (const auto& f : r.flows)
    if (view.shows(f, streams)) write_flow_list_line(os, f, streams.of(f));
}

}  // namespace replay
