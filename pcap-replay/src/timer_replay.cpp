#include "timer_replay.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace replay {

using std::chrono::microseconds;

namespace {
std::string ms(microseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(d.count()) / 1000.0);
  return buf;
}
microseconds since(CaptureTime later, CaptureTime earlier) {
  return std::chrono::duration_cast<microseconds>(later - earlier);
}
// What (re)started the timer, as the messages say it: "fired 212.7 ms after ...".
std::string armed_by_text(std::string_view by) {
  if (by == "send") return "data was sent with nothing outstanding (5.1 start)";
  if (by == "ack") return "the last ACK of new data restarted it (5.3)";
  if (by == "timeout") return "the previous expiry restarted it (5.6)";
  if (by == "tlp") return "a tail-loss probe restarted it";
  if (by == "retransmit") return "a retransmission of the first unacknowledged segment restarted it";
  if (by == "oldest-send") return "the oldest outstanding segment was sent";
  return std::string(by);
}
// A configured duration: "1 s", "3 s", "200.0 ms".
std::string conf(microseconds d) {
  if (d.count() > 0 && d.count() % 1'000'000 == 0) return std::to_string(d.count() / 1'000'000) + " s";
  return ms(d);
}
}  // namespace

TimerReplay::TimerReplay(const Options& options, SenderReport& out)
    : opt_(options), out_(out), est_(options.config) {
  if (opt_.profile == Profile::rfc6298) {
    // Same arithmetic without the 2.4 floor: tells "early only because the
    // 1 s floor was not applied" (2.4, SHOULD) from "early" (5.3/5.6, MUST).
    rto::Config c = options.config;
    c.min_rto = microseconds{0};
    try {
      floorless_.emplace(c);
    } catch (const rto::ConfigError&) {
      floorless_.reset();
    }
  }
}

void TimerReplay::add(std::string_view id, std::uint64_t frame, CaptureTime t, std::string message) {
  const Rule& r = rule(id);
  out_.findings.push_back(Finding{std::string(r.id), r.level, frame, t, std::move(message)});
}

microseconds TimerReplay::floorless_rto() const {
  return floorless_ ? floorless_->rto() : est_.rto();
}

void TimerReplay::on_timer_start(CaptureTime t) {
  // 5.1: start the timer when data is sent and it is not running.
  if (!arm_rfc_) {
    arm_rfc_ = t;
    arm_rfc_by_ = "send";
  }
  if (!arm_any_) {
    arm_any_ = t;
    arm_any_by_ = "send";
  }
}

void TimerReplay::on_ack_new_data(CaptureTime t, bool all_acked, std::optional<CaptureTime> oldest_send,
                                  bool ambiguous) {
  chain_.clear();
  chain_departed_ = false;
  chain_doubled_ = false;
  probe_since_ack_ = false;
  new_data_probe_.reset();
  oldest_send_ = oldest_send;
  if (all_acked) {
    // 5.2: all outstanding data acknowledged: turn the timer off.
    arm_rfc_.reset();
    arm_any_.reset();
  } else {
    // 5.3: ACK of new data: restart the timer with the current RTO.
    arm_rfc_ = t;
    arm_rfc_by_ = "ack";
    arm_any_ = t;
    arm_any_by_ = "ack";
  }
  // 3 (Karn): an ACK of retransmitted data gives no sample; a sender that
  // follows Karn keeps the backed-off RTO until a valid sample.
  if (ambiguous && est_.backoff() > 0) karn_pending_ = true;
}

void TimerReplay::on_sample(microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
  if (!est_.on_rtt_sample(r, snd_una, snd_nxt)) return;
  if (floorless_) floorless_->on_rtt_sample(r, snd_una, snd_nxt);
  karn_pending_ = false;
  if (handshake_done_) {
    data_sample_since_handshake_ = true;
    note_57_unverifiable("the next sample (" + ms(r) + ") came before any data timeout");
  }
}

void TimerReplay::on_handshake_complete(std::uint64_t frame, CaptureTime t, bool sample_in_handshake,
                                        std::optional<microseconds> handshake_sample) {
  if (handshake_done_) return;
  handshake_done_ = true;
  // 5.7 (the Estimator applies the 3 s fallback per its variant: Linux only
  // when the handshake gave no sample).
  est_.on_handshake_complete(syn_timed_out_);
  if (floorless_) floorless_->on_handshake_complete(syn_timed_out_);
  if (opt_.profile == Profile::rfc6298 && syn_timed_out_ && sample_in_handshake && handshake_sample) {
    // 5.7 with a handshake sample: RFC 6298 re-initialises the RTO to 3 s
    // when data transmission begins, until the next sample; Linux keeps the
    // RTO computed from the sample (tcp_init_metrics). Only a data timeout
    // before the next sample shows which (judged in on_timeout()).
    open_57_ = Open57{frame, t, *handshake_sample, out_.findings.size()};
  }
}

void TimerReplay::note_57_unverifiable(std::string_view why) {
  if (!open_57_) return;
  const Open57 o = *open_57_;
  open_57_.reset();
  out_.findings.insert(out_.findings.begin() + static_cast<std::ptrdiff_t>(o.findings_index),
                       Finding{"5.7", Level::info, o.frame, o.time,
                               "not verifiable from the wire: the SYN timed out and the handshake gave a "
                               "timestamp RTT sample (" + ms(o.sample) +
                                   "); Linux skips 5.7 in this case; RFC 6298 requires an RTO of 3 s until "
                                   "the next sample, and " + std::string(why)});
}

void TimerReplay::finish() { note_57_unverifiable("the capture ends before any data timeout"); }

void TimerReplay::on_probe(CaptureTime t) {
  probe_since_ack_ = true;
  arm_any_ = t;  // Linux tcp_send_loss_probe(): rearm the RTO timer with a full RTO
  arm_any_by_ = "tlp";
}

void TimerReplay::on_new_data_probe(CaptureTime t) { new_data_probe_ = t; }

void TimerReplay::on_head_retransmit(CaptureTime t) {
  if (!arm_any_) return;
  arm_any_ = t;  // Linux tcp_xmit_retransmit_queue(): resending the head rearms the RTO
  arm_any_by_ = "retransmit";
}

void TimerReplay::on_timeout(std::uint64_t frame, CaptureTime t, bool syn, std::uint32_t rel_seq,
                             std::uint32_t rel_una, std::optional<CaptureTime> head_send, bool check) {
  const bool is_linux = opt_.profile == Profile::linux_kernel;
  const unsigned k = static_cast<unsigned>(chain_.size()) + 1;
  const microseconds pred_est = est_.rto();
  const microseconds g = opt_.granularity;

  const std::size_t findings_before = out_.findings.size();
  // 5.4: the retransmission on expiry is of the earliest unacknowledged segment.
  if (!syn && rel_seq != rel_una)
    add("5.4", frame, t,
        "the timer expiry retransmitted relative SEQ " + std::to_string(rel_seq) +
            ", but the earliest unacknowledged byte is " + std::to_string(rel_una));

  // When was the timer armed? RFC: 5.1/5.3/5.6 events. Linux: also TLPs and
  // head retransmissions; and possibly from the oldest segment's send time.
  const CaptureTime arm_any = arm_any_.value_or(t);
  const CaptureTime arm = is_linux ? arm_any : arm_rfc_.value_or(arm_any);
  std::string_view armed_by = is_linux ? arm_any_by_ : arm_rfc_by_;
  microseconds waited = since(t, arm);
  const microseconds waited_any = since(t, arm_any);

  TimeoutRecord rec;
  rec.frame = frame;
  rec.time = t;
  rec.rel_seq = rel_seq;
  rec.syn = syn;
  rec.backoff = k;
  rec.predicted = pred_est;

  bool reported = false;
  std::optional<std::pair<microseconds, microseconds>> rebased_window;
  // 5.5 / 2.5: consecutive expiries of one segment double. Judged against
  // the OBSERVED previous interval, not the replayed estimator (whose 1 s
  // floor and cap would hide a sender that stops doubling below them):
  // expected = min(2 x previous interval, the profile's max RTO); 1 x for
  // the profile's linear SYN timeouts (Linux) or once the previous interval
  // already reached the cap. The lower bound is never below 1.25 x the
  // previous interval where doubling is expected, so no slack can hide a
  // factor-of-two error.
  if (k >= 2) {
    const ChainEntry& prev = chain_.back();
    const microseconds gap = since(t, prev.time);
    const microseconds cap = opt_.config.max_rto;
    const bool linear_syn = syn && prev.syn && pred_est <= prev.predicted && prev.predicted < cap;
    const double slack = opt_.slack_percent / 100.0;
    const double wheel = opt_.timer_wheel_lateness ? 1.125 : 1.0;
    struct Window {
      double prev_us, expected, lo, hi;
      bool doubles;
    };
    auto window_after = [&](microseconds prev_waited) {
      Window w{};
      w.prev_us = static_cast<double>(prev_waited.count());
      w.doubles = !linear_syn && prev_waited < cap;  // not once the previous interval reached the cap
      w.expected = w.doubles ? std::min(2.0 * w.prev_us, static_cast<double>(cap.count())) : w.prev_us;
      w.lo = w.expected * (1.0 - slack) / wheel - static_cast<double>(g.count());
      if (w.doubles && w.expected >= 1.5 * w.prev_us) w.lo = std::max(w.lo, 1.25 * w.prev_us);
      // Later is allowed (a sender may cap higher, or wait longer): up to 2 x
      // the previous interval; twice that when the previous wait was counted
      // from an ACK or send (the timer may have been restarted unseen).
      const double hi_base =
          std::max(w.expected, (linear_syn ? 1.0 : 2.0) * w.prev_us) * (prev.from_timeout ? 1.0 : 2.0);
      const microseconds expected_us{static_cast<std::int64_t>(w.expected)};
      w.hi = hi_base * (1.0 + slack) + static_cast<double>((opt_.lateness(expected_us) + g).count());
      return w;
    };
    const double gap_us = static_cast<double>(gap.count());
    Window win = window_after(prev.waited);
    if (prev.waited_since_probe && (gap_us < win.lo || gap_us > win.hi)) {
      const Window alt = window_after(*prev.waited_since_probe);
      if (gap_us >= alt.lo && gap_us <= alt.hi) win = alt;
    }
    const bool doubles = win.doubles;
    const double lo = win.lo;
    const double hi = win.hi;
    const microseconds expected_us{static_cast<std::int64_t>(win.expected)};
    const bool fail = static_cast<double>(gap.count()) < lo;
    if (fail) {
      const bool plateau = chain_doubled_ && gap < std::chrono::seconds{60} * 9 / 10;
      const std::string which = std::string(syn ? "SYN " : "") + "expiry " + std::to_string(k) +
                                " of this chain came " + ms(gap) + " after expiry " + std::to_string(k - 1) +
                                ", which itself waited " + ms(prev.waited);
      add(plateau ? "2.5" : "5.5", frame, t,
          plateau ? which + ": the backoff stopped growing below the 60 s that 2.5 allows as a maximum"
                  : which + ": the RTO was not doubled (5.5 expects about " + ms(expected_us) + ", at least " +
                        ms(microseconds{static_cast<std::int64_t>(std::max(lo, 0.0))}) + ")");
      reported = true;
      chain_departed_ = true;
    } else if (doubles) {
      chain_doubled_ = true;
    }
    if (chain_departed_) {
      // Once a chain departed from the profile, later expiries are judged by
      // the doubling of the observed intervals alone (this window).
      rec.predicted = expected_us;
      waited = gap;
      armed_by = "timeout";
      rebased_window = {microseconds{static_cast<std::int64_t>(std::max(lo, 0.0))},
                        microseconds{static_cast<std::int64_t>(hi)}};
    }
  }

  const microseconds pred = rec.predicted;
  const microseconds tol = opt_.tolerance(pred);
  microseconds earliest = pred > tol ? pred - tol : microseconds{0};
  microseconds latest = pred + opt_.lateness(pred) + tol;
  if (rebased_window) {
    rec.relative = true;
    earliest = rebased_window->first;
    latest = rebased_window->second;
  }
  if (is_linux && opt_.rearm_from_oldest_send && !chain_departed_ && k == 1 && armed_by == "ack" &&
      head_send && *head_send < arm) {
    // Linux tcp_rearm_rto(): with a TLP/RACK timer pending the RTO is counted
    // from the oldest outstanding segment's send time.
    const microseconds back = since(arm, *head_send);
    earliest = earliest > back ? earliest - back : microseconds{0};
    if (waited < pred - tol) armed_by = "oldest-send";
  }
  if (k == 1 && new_data_probe_ && *new_data_probe_ > arm) {
    // A probe that sent new data (Linux TLP) restarted the timer: accept up to
    // a full RTO after it.
    latest += since(*new_data_probe_, arm);
  }
  rec.waited = waited;
  rec.earliest = earliest;
  rec.latest = latest;
  rec.armed_by = armed_by;
  rec.verdict = waited < earliest ? "early" : (waited > latest ? "late" : "ok");

  if (!reported && !(chain_departed_ && k >= 2) && rec.verdict == "early") {
    chain_departed_ = true;
    const std::string what = std::string(syn ? "the SYN timer" : "the timer") + " fired " + ms(waited) + " after " +
                             armed_by_text(armed_by);
    const std::string backoff = k == 1 ? std::string() : " (expiry " + std::to_string(k) + " of its chain)";
    if (syn_timed_out_ && handshake_done_ && !syn && !data_sample_since_handshake_ &&
        est_.base_rto() >= opt_.config.syn_fallback_rto && waited + tol < opt_.config.syn_fallback_rto) {
      add("5.7", frame, t,
          what + ": below the " + conf(opt_.config.syn_fallback_rto) +
              " RTO that 5.7 requires after a SYN timeout until the next RTT sample (none since the handshake)");
    } else if (!est_.srtt() && k == 1) {
      add("2.1", frame, t,
          what + ": below the initial RTO of " + conf(opt_.config.initial_rto) +
              " that 2.1 requires until the first RTT sample (none yet)");
    } else if (karn_pending_) {
      add("3", frame, t,
          what + ": below the backed-off RTO of " + ms(pred) + backoff +
              ": the backoff was dropped after an ACK of retransmitted data, which gives no valid sample (Karn)");
    } else if (opt_.profile == Profile::rfc6298 &&
               waited + opt_.tolerance(floorless_rto()) >= floorless_rto()) {
      add("2.4", frame, t,
          what + ": below the " + conf(opt_.config.min_rto) + " minimum RTO of 2.4" + backoff +
              " (RFC 6298 without the minimum would give " + ms(floorless_rto()) + ")");
    } else {
      add("5.3/5.6", frame, t,
          what + ": before the RTO of " + ms(pred) + backoff + " had run" +
              (opt_.profile == Profile::rfc6298 ? " (and before even the " + ms(floorless_rto()) +
                                                      " RTO computed without the 2.4 minimum)"
                                                : std::string()));
    }
  } else if (!rebased_window && rec.verdict == "late" && waited > pred * 3 / 2 + tol) {
    add("late", frame, t,
        std::string(syn ? "the SYN timer" : "the timer") + " fired " + ms(waited) + " after " +
            armed_by_text(armed_by) + ", far later than the predicted RTO of " + ms(pred) +
            " (not a departure: a sender may wait longer)");
  }

  if (!check) {
    out_.findings.resize(findings_before);
    rec.verdict = "unchecked";
  }
  for (std::size_t i = findings_before; i < out_.findings.size(); ++i) rec.rules.push_back(out_.findings[i].rule);
  // The first data timeout before a fresh sample settles an open 5.7 check:
  // a MUST 5.7 finding above if it fired before 3 s, else the sender kept 3 s.
  if (!syn) open_57_.reset();
  out_.timeouts.push_back(rec);
  const bool from_timeout = (arm_any_by_ == "timeout" || arm_any_by_ == "send" || arm_any_by_ == "tlp" ||
                             arm_any_by_ == "retransmit");
  // The interval the next expiry's doubling (5.5) is measured against: the
  // wait since the timer was last armed; or, when new data was sent on a
  // timer in the first half of that wait, since that send: a Linux TLP that
  // sends new data rearms the RTO (tcp_send_loss_probe), and its PTO is at
  // most the RTO (tcp_schedule_loss_probe), so a genuine probe always lies in
  // the first half. A later send (an application write) does not count.
  std::optional<microseconds> since_probe;
  if (k == 1 && new_data_probe_ && *new_data_probe_ > arm_any) {
    const microseconds from_probe = since(t, *new_data_probe_);
    if (from_probe * 2 >= waited_any) since_probe = from_probe;
  }
  chain_.push_back(ChainEntry{t, waited_any, pred_est, from_timeout, syn, since_probe});
  // 5.5: back off (Linux: SYN expiries linear for the first tcp_syn_linear_timeouts).
  if (syn) {
    est_.on_syn_timeout();
    if (floorless_) floorless_->on_syn_timeout();
    syn_timed_out_ = true;
  } else {
    est_.on_timeout();
    if (floorless_) floorless_->on_timeout();
  }
  // 5.6: restart the timer.
  arm_rfc_ = t;
  arm_rfc_by_ = "timeout";
  arm_any_ = t;
  arm_any_by_ = "timeout";
}

}  // namespace replay
