#include <replay/report/judgement_text.hpp>

#include <fmt/format.h>

namespace replay {

using std::chrono::microseconds;

std::string format_ms(microseconds d) { return fmt::format("{:.1f} ms", static_cast<double>(d.count()) / 1000.0); }

std::string format_ms(const Interval& i) {
  if (i.lo == i.hi) return format_ms(i.lo);
  if (!i.bounded()) return fmt::format("{:.1f} ms or more", static_cast<double>(i.lo.count()) / 1000.0);
  return fmt::format("[{:.1f}, {:.1f}] ms", static_cast<double>(i.lo.count()) / 1000.0,
                     static_cast<double>(i.hi.count()) / 1000.0);
}

std::string interval_text(const Interval& i) {
  const auto ms = [](microseconds d) { return static_cast<double>(d.count()) / 1000.0; };
  if (i.lo == i.hi) return fmt::format("{:.1f}", ms(i.lo));
  if (!i.bounded()) return fmt::format(">= {:.1f}", ms(i.lo));
  return fmt::format("[{:.1f}, {:.1f}]", ms(i.lo), ms(i.hi));
}

namespace {
// A configured duration: "1 s", "3 s", "200.0 ms".
std::string conf(microseconds d) {
  if (d.count() > 0 && d.count() % 1'000'000 == 0) return std::to_string(d.count() / 1'000'000) + " s";
  return format_ms(d);
}
std::string step_text(std::chrono::nanoseconds d) {
  const double ms = static_cast<double>(d.count()) / 1e6;
  return ms >= 1000.0 ? fmt::format("{:.3f} s", ms / 1000.0) : fmt::format("{:.3f} ms", ms);
}
// What (re)started the timer: "fired 212.7 ms after ...".
std::string_view armed_by_text(ArmCause c) {
  switch (c) {
    case ArmCause::send: return "data was sent with nothing outstanding (5.1 start)";
    case ArmCause::ack: return "the last ACK of new data restarted it (5.3)";
    case ArmCause::sack: return "a SACK with an RTT sample re-armed it";
    case ArmCause::timeout: return "the previous expiry restarted it (5.6)";
    case ArmCause::probe: return "a tail-loss probe restarted it";
    case ArmCause::head_retransmit: return "a retransmission of the first unacknowledged segment restarted it";
    case ArmCause::head_send: return "the oldest outstanding segment was sent";
    case ArmCause::syn_send: return "the previous transmission of the SYN";
    case ArmCause::syn_reply: return "the SYN-ACK sent again in reply to a duplicate SYN";
  }
  return "";
}
std::string timer(const Judgement& j) { return j.syn ? "the SYN timer" : "the timer"; }
// What showed a flushed burst held (Topic::flushed_burst; evidence: its frame).
std::string hold_text(const Judgement& j) {
  const std::uint64_t f = j.evidence.empty() ? 0 : j.evidence.front();
  switch (j.hold) {
    case HoldSign::tsval:
      return fmt::format("frame {}'s TSval shows it sent at least {} before its capture", f,
                         conf(limits::kFlushHeld));
    case HoldSign::late_ack:
      return fmt::format("frame {} first acknowledges data captured more than {} before it, past RFC 1122's "
                         "delayed-ACK limit", f, conf(limits::kDelayedAckMax));
    case HoldSign::repeat:
      return fmt::format("frame {} sends its connection's previous data again less than {} after it, with nothing "
                         "from the peer between: no timer resends so soon and nothing clocked it, so the two left "
                         "the sender a timer's wait apart", f, conf(limits::kMinTimerWait));
    case HoldSign::none: break;
  }
  return "a packet of that burst was held before the capture point";
}
std::string fired(const Judgement& j) {
  return fmt::format("{} fired {} after {}", timer(j), j.waited ? format_ms(*j.waited) : std::string("?"),
                     armed_by_text(j.armed_by));
}
std::string expiry_after(const Judgement& j) {
  std::string s = fmt::format("{}expiry {} came {} after ", j.syn ? "SYN " : "", j.expiry,
                              j.waited ? format_ms(*j.waited) : std::string("?"));
  if (j.armed_by == ArmCause::timeout) {
    s += fmt::format("expiry {}", j.expiry - 1);
    if (j.prev_waited) s += fmt::format(", which itself waited {}", format_ms(*j.prev_waited));
    return s;
  }
  s += armed_by_text(j.armed_by);
  if (j.prev_waited) s += fmt::format("; expiry {} waited {}", j.expiry - 1, format_ms(*j.prev_waited));
  return s;
}
std::string window(const std::optional<Interval>& w) { return w ? format_ms(*w) : std::string("?"); }

std::string setting_text(const Judgement& j, const Options& o) {
  const SettingUse& s = j.setting;
  std::string what;
  switch (s.kind) {
    case SettingUse::Kind::initial_rto:
      what = fmt::format("{} first fired {} after the first transmission: an initial RTO of about {}", timer(j),
                         window(j.waited), format_ms(s.value));
      break;
    case SettingUse::Kind::max_rto:
      what = fmt::format("{}: the backoff stopped growing at {} (a maximum RTO of about that)", expiry_after(j),
                         format_ms(s.value));
      break;
    case SettingUse::Kind::min_rto:
      what = fmt::format("{}: before the RTO of {} its minimum gives, after the {} the same arithmetic gives with a "
                         "lower minimum",
                         fired(j), window(j.predicted), format_ms(s.value));
      break;
    case SettingUse::Kind::thin_linear:
      what = fmt::format("{}: a thin stream (fewer than 4 segments in flight) kept the RTO (linear timeouts, up to {})",
                         expiry_after(j), s.count);
      break;
    case SettingUse::Kind::syn_linear:
      what = fmt::format("{}: {} linear SYN timeouts before the RTO doubled (the profile's default is {})",
                         expiry_after(j), s.count, o.config.syn_linear_timeouts);
      break;
    case SettingUse::Kind::additive_lateness:
    case SettingUse::Kind::none:
      what = expiry_after(j);
      break;
  }
  return fmt::format("{}: not what {} do by default, but what the setting {} gives", what, o.profile->title, s.name);
}

std::string broken_text(const Judgement& j, const Options& o) {
  switch (j.rule) {
    case RuleId::rfc6298_5_4:
      return fmt::format("the timer expiry retransmitted relative SEQ {}, but the earliest unacknowledged byte is {}",
                         j.rel_seq, j.rel_una);
    case RuleId::rfc6298_5_5:
      if (j.joint_waited && j.joint_accepted && j.joint_expiries >= 2 && j.expiry > j.joint_expiries) {
        const unsigned first = j.expiry - j.joint_expiries + 1;
        return fmt::format("{}expiries {}{}{} came {} after expiry {} together (frame {} was captured in a burst its "
                           "host held{}: when each held one left the sender splits the waits, not their sum), "
                           "sooner than the {} at least that doubling allows them: the RTO was not doubled at one "
                           "of them, however the waits split",
                           j.syn ? "SYN " : "", first, j.joint_expiries == 2 ? " and " : " to ", j.expiry,
                           format_ms(*j.joint_waited), first - 1, j.other_frame,
                           j.joint_expiries > 2 ? ", as were the expiries after it but the last" : "",
                           format_ms(j.joint_accepted->lo));
      }
      return fmt::format("{}: the RTO was not doubled (5.5 expects {}, at least {}; not doubled it would come at {})",
                         expiry_after(j), window(j.predicted), j.accepted ? format_ms(j.accepted->lo) : "?",
                         window(j.alternative));
    case RuleId::rfc6298_2_5:
      return fmt::format("{}: the backoff stopped growing at about {}, below the {} that 2.5 allows as a maximum",
                         expiry_after(j), format_ms(j.setting.value), conf(microseconds{60'000'000}));
    case RuleId::rfc6298_3_karn:
      return fmt::format(
          "{}, after an ACK of retransmitted data that gives no valid RTT sample: below {}, the RTO its earlier "
          "waits backed off to; the backoff was dropped without a valid sample (Karn)",
          expiry_after(j), window(j.predicted));
    case RuleId::rfc6298_5_7:
      return fmt::format("{}: below the {} RTO that 5.7 requires after a SYN timeout until the next RTT sample "
                         "(none since the handshake)",
                         fired(j), conf(o.config.syn_fallback_rto));
    case RuleId::rfc6298_2_1:
      return fmt::format("{}: below the initial RTO of {} that 2.1 requires until the first RTT sample (none yet)",
                         fired(j), conf(o.config.initial_rto));
    case RuleId::rfc6298_2_4:
      return fmt::format("{}: below the {} minimum RTO of 2.4{} (RFC 6298 without the minimum would give {})", fired(j),
                         conf(o.config.min_rto), j.expiry > 1 ? fmt::format(" (expiry {} of its chain)", j.expiry) : "",
                         window(j.alternative));
    case RuleId::rfc6298_5_3_5_6:
      return fmt::format("{}: before the RTO of {} had run{}", fired(j), window(j.predicted),
                         j.alternative ? fmt::format(" (and before even the {} computed without the 2.4 minimum)",
                                                     window(j.alternative))
                                       : std::string());
    default:
      return fired(j);
  }
}

std::string readings_text(const Judgement& j) {
  std::string out;
  for (const ReadingResult& r : j.readings)
    out += fmt::format("{}{} {}", out.empty() ? "" : "; ", to_string(r.reading), r.keeps ? "keeps it" : "breaks it");
  return out;
}

std::string cannot_tell_text(const Judgement& j, const Options& o) {
  const std::string rule_id(to_string(j.rule));
  if (j.topic == Topic::wait_straddles) {
    if (j.rule == RuleId::rfc6298_5_5)
      return fmt::format("{}: the wait interval holds both the doubled RTO ({}) and the one not doubled ({}): the "
                         "capture cannot tell whether 5.5 was kept",
                         expiry_after(j), window(j.accepted), window(j.alternative));
    return fmt::format("{}: the wait interval holds both the RTO ({}) and the departing one ({}): the capture cannot "
                       "tell whether {} was kept",
                       fired(j), window(j.accepted), window(j.alternative), rule_id);
  }
  // Readings that disagree.
  if (j.rule == RuleId::rfc6298_5_5 && !j.readings.empty() &&
      j.readings.back().reading == Reading::additive_lateness)
    return fmt::format(
        "{}: not doubled if the timer fires at most {}% of its RTO late; doubled if it fires a constant late (as "
        "FreeBSD's and Darwin's 200 ms retransmit slop), which fewer than 3 waits of one chain cannot pin: cannot tell",
        expiry_after(j), o.slack_percent);
  if (j.rule == RuleId::rfc6298_5_5 && !j.readings.empty() && j.readings.back().reading == Reading::earlier_delayed)
    return fmt::format(
        "{}: not doubled if the first expiry fired its RTO after the arm; doubled if it fired later, a probe timeout "
        "after the newest data (frame {}: a stack that re-schedules its probe timer at each new transmission, as "
        "Linux, fires the RTO when that timer does, once the RTO had run out), so that its wait shows no RTO: "
        "cannot tell",
        expiry_after(j), j.other_frame);
  if (j.rule == RuleId::rfc6298_3_karn)
    return fmt::format("{}, after an ACK of retransmitted data: the backoff was dropped, which Karn forbids without a "
                       "valid sample, unless the sender took one from a SACK of never-retransmitted data (as Linux "
                       "does): cannot tell",
                       expiry_after(j));
  if (j.rule == RuleId::rfc6298_5_4)
    return fmt::format("the timer expiry retransmitted relative SEQ {}, above SND.UNA {} as the sender knew it if an "
                       "ACK the capture saw had not reached it; had it, the resend was of acknowledged data and no "
                       "expiry ({}): cannot tell",
                       j.rel_seq, j.rel_una, readings_text(j));
  if (j.readings.empty()) return fmt::format("{}: the readings of the capture disagree on {}", fired(j), rule_id);
  return fmt::format("{}: {} is broken under one reading of the capture and kept under another ({}): cannot tell",
                     j.expiry > 1 ? expiry_after(j) : fired(j), rule_id, readings_text(j));
}

std::string note_text(const Judgement& j, const Options& o) {
  switch (j.topic) {
    case Topic::late_expiry:
      return fmt::format("{}, far later than the predicted RTO of {} (not a departure: a sender may wait longer)",
                         j.expiry > 1 ? expiry_after(j) : fired(j), window(j.predicted));
    case Topic::setting:
      return setting_text(j, o);
    case Topic::clock_step:
      if (j.other_frame)
        return fmt::format("the capture clock stepped back {} at frame {}{}, between the timer's arm and this expiry: "
                           "the wait across it is unknown and not judged",
                           step_text(j.step), j.other_frame,
                           j.other_prev_frame ? fmt::format(" (dated before frame {})", j.other_prev_frame) : "");
      return fmt::format("the capture clock steps back between the timer's arm and this expiry (the retransmission "
                         "is stamped {} before the arm): the wait is unknown and not judged",
                         step_text(j.step));
    case Topic::backoff_unknown:
      return fmt::format("{} is judged by the doubling of the previous expiry's wait, which spans a step of the "
                         "capture clock (and no TSval clock tells it): the backoff is not judged",
                         j.syn ? "this SYN expiry" : "this expiry");
    case Topic::flushed_burst:
      return fmt::format("frame {} was captured in a burst the sending host released after a silence ({}): it was "
                         "sent before its capture, so this expiry's wait is {} what the capture shows",
                         j.other_frame, hold_text(j), j.other_frame == j.frame ? "at most" : "at least");
    case Topic::syn_acked_unseen:
      return fmt::format("the SYN is retransmitted on its timer although the capture shows it acknowledged at frame "
                         "{}: that segment did not reach the sender (lost after the capture point); the SYN timer is "
                         "judged from the SYN's own transmissions",
                         j.other_frame);
    case Topic::ack_unheard:
      return fmt::format("resent although the capture shows it acknowledged at frame {}: read as that ACK not having "
                         "reached the sender (lost after the capture point, or still on its way), whose timers and "
                         "state are taken from before it",
                         j.other_frame);
    case Topic::open_at_end:
      return fmt::format("the capture ends in the timer's backoff, {} expir{} after the last ACK of new data: the next "
                         "expiry, due {} after this one, is not in the capture (one that aborts the connection, at a "
                         "user timeout or tcp_retries2, sends nothing)",
                         j.expiry, j.expiry == 1 ? "y" : "ies", window(j.predicted));
    case Topic::unverifiable_57:
      return fmt::format("not verifiable from the wire: the SYN timed out and the handshake gave an RTT sample (RTO "
                         "{}); Linux skips 5.7 in this case; RFC 6298 requires an RTO of {} until the next sample, "
                         "and {}",
                         window(j.alternative), window(j.predicted),
                         j.other_frame ? fmt::format("the next sample (frame {}) came before any data timeout", j.other_frame)
                                       : std::string("the capture ends before any data timeout"));
    case Topic::sample_kept_57:
      return fmt::format("the SYN (or SYN-ACK) timed out and the handshake gave an RTT sample (RTO {}): the "
                         "profile's stack keeps that RTO and applies 5.7's {} only when the handshake gave none "
                         "(Linux tcp_init_metrics); RFC 6298 asks for {} until the next sample; the stack departs "
                         "from that by design (noted, not judged)",
                         window(j.alternative), window(j.predicted), window(j.predicted));
    case Topic::unseen_original:
      return fmt::format("new data to the capture, but the sender's IPv4 ID skipped one packet after frame {}: read "
                         "as the loss probe resending that packet, lost before the capture point, on the probe "
                         "timer's time from when it can have left",
                         j.other_frame);
    case Topic::unseen_or_ack:
      return fmt::format("new data to the capture on the loss probe timer's time, after one packet of the sender it "
                         "did not see (its IPv4 ID skipped one after frame {}); but it acknowledges the peer's data "
                         "first, so the unseen packet may have been that ACK: the probe resending a packet lost "
                         "before the capture point or the application's next data, the capture cannot tell (read as "
                         "new data)",
                         j.other_frame);
    default:
      return fired(j);
  }
}
}  // namespace

std::string describe(const Judgement& j, const Options& o) {
  switch (j.outcome) {
    case Outcome::broken:
      // Broken under each reading the capture allows, at the frames they
      // differ on: which, each breaking it.
      if (!j.readings.empty())
        return fmt::format("{}; every reading of the capture breaks it, at its own frame ({})", broken_text(j, o),
                           readings_text(j));
      return broken_text(j, o);
    case Outcome::cannot_tell: return cannot_tell_text(j, o);
    case Outcome::note: return note_text(j, o);
  }
  return {};
}

}  // namespace replay
