#!/usr/bin/env bash
# Mutation runner for pcap-replay's verdict path: change one constant or one
# rule at a time, rebuild, run the tests; some test must fail. A mutation no
# test notices (SURVIVED) is a constant or rule the tests do not pin: add a
# test at its boundary, or show it cannot change a verdict.
#
# Long (about a minute or two per mutation on 2 cores): NOT part of
# `make test`. Run it after changing the analysis or its tests:
#
#   bash tests/mutate.sh              every mutation in the table below
#   bash tests/mutate.sh burst        only those whose id or description matches
#                                     the extended regular expression "burst"
#   bash tests/mutate.sh --list       print the table (id: description) and exit
#   bash tests/mutate.sh --check      only check that every edit's text is found
#                                     exactly once (nothing built; make test runs
#                                     it, so a rename cannot leave the table stale)
#   bash tests/mutate.sh --keep ...   keep the scratch tree and the logs
#   JOBS=2 bash tests/mutate.sh       make -j2 (default 1: the machine is shared)
#   NO_E2E=1 bash tests/mutate.sh     skip tests/e2e/lab_labels.sh (faster, weaker)
#
# How: the working tree's files (tracked and untracked, not ignored) are
# copied to a scratch directory (mktemp -d), with the caller's build/obj,
# build/lib and build/bin when present (mtimes kept, so only what is stale
# is rebuilt); the caller's tree and build are never written. The unmutated
# tree is built and must pass first. Then for each mutation: the edit is
# applied, `make -j$JOBS build/bin/test-pcap-replay build/bin/pcap-replay`
# rebuilds, build/bin/test-pcap-replay runs (the verdict path's hand-made
# and white-box test files first, then the rest; stopping at the first
# failure),
# then, if it passed, `bash tests/e2e/lab_labels.sh` (the kernel's own labels
# of the capture lab). KILLED names the first failing test case; SURVIVED
# means everything passed. Afterwards the source and the objects it rebuilt
# are put back with their old mtimes, so the next mutation rebuilds only its
# own dependents. The shared traces are read from $RTO_SHARED_DIR, default
# the caller's ../shared.
#
# The table is stale when an edit's text is not found exactly once in its
# file, or the mutated tree does not compile: both are errors (exit 2), never
# a pass. Exit status: 0 all killed, 1 some survived, 2 error.
#
# Table format, one edit per line (blank lines and lines starting with # are
# comments):   id ;; file ;; exact text ;; replacement ;; description
# Lines with the same id are edits of one mutation, applied together (the
# description is taken from the first). "\n" in the text stands for a
# newline (to make a match unique across lines).
#
# Constants of pcap-replay/include/replay/analysis/thresholds.hpp are changed where
# the analysis reads them (options.hpp includes thresholds.hpp, so a change
# of the definition rebuilds nearly every object; the verdicts see the same
# value either way). Constants of thresholds.hpp left out, and why:
#   - reader limits (kMaxCaplen, kMaxBlockBytes, kResync*, kMaxClockSteps*,
#     kClockReorderMax, kClockReturnSlack, kMaxTunnelLayers): how a file is
#     read, not how a timer is judged; tests/pcap-replay/reader_*_test.cpp
#     hold them at their boundaries.
#   - pictures, resources, status line (kPlot*, kHtml*, kDefaultMax*,
#     kTsSendTimesKept, kMaxDiagnostics, kStatusLineInterval, kProgress*,
#     kLivePollWait): not on the verdict path.
#   - kUnheardKept: when a sender model is created, never what it concludes
#     (its comment; a model replays the segments it missed).
#   - kDoublingFloorNum/Den: read only by describe_thresholds(), whose line in
#     every report says "a doubling is never accepted below 5/4 x the
#     previous wait"; no verdict applies it (under rfc6298 an inferred slop
#     of 200 ms accepts 250, 300, 400 ms: 1.2 x). Mutating it changes text only.
#   - kLateFactorNum/Den, kRfcMinMaxRto: the analysis uses
#     engine/judge_limits.hpp's kLateFactor and kRfcMinMaxRto (mutated below).
#   - kProbeWasRtoNum/Den, kWheelLateNum/Den, kAdditiveAgreement: not read
#     anywhere (the chain judge weighs probe readings by fit, lateness.cpp
#     has the wheel's own constants).
# Left out of stack_profile.cpp, as no test can tell (equivalent mutations):
#   - the Linux rto_min setting's upper end (Tunable::hi, the default 200 ms)
#     is read nowhere: estimator_readings.cpp takes the least setting as the
#     floorless reading's floor, no report prints hi.
#   - its least value (1 us): the floorless RTO it floors is below 5 ms only
#     for RTTs below about 1 ms, and no wait under kMinTimerWait (5 ms) is a
#     timer event; only the INFO note's value could move, never a verdict.
#   - Linux's FloorMode and Fallback57: for the linux estimator variant the
#     floor and 5.7 come from rto::Config::linux_default() (floor on the
#     variance term, 3 s only without a handshake sample); FloorMode is read
#     only with the rfc6298 variant, and the 5.7 note needs a 3 s fallback
#     after a sample, which the linux variant never makes.
# Left out of the engine:
#   - host_feed.cpp's kQuarter (2^30): how far below the ACK a
#     peer data entry the late-ACK scan skips (peer_data_acked_) may be, and
#     how far the ACK may move before that count is redone. 2^30 is the
#     largest value at which the count skips only entries the scan passes
#     over itself (at most 2^30 below, plus less than 2^30 moved: under
#     2^31, so seq_gt() still reads them acknowledged). Smaller (2^29): the
#     count skips fewer, the scan passes over them: the same result
#     (equivalent; run, it survives). Larger (1.5 x 2^30; survives too): it
#     differs only once this side's ACK has moved over 2^31 bytes past a
#     peer segment still among the latest kPeerDataHistory (64), whose end
#     then wraps to look unacknowledged: the full scan reads that stale
#     entry as first acknowledged now, the count skips it. A test killing
#     it would pin the wrong reading of a wrapped sequence number.
#   - sender_capture_point.cpp's note_rearm taking the event's hold
#     (arm_->held_us = held_us_) when it moves the arm's latest: run, it
#     survives. Only sent() (the classification's arm time) reads it, and
#     only for a later repeat of the same sender: a SACK's re-arm is the
#     peer's (hold 0 either way); after a held head retransmission under a
#     profile that does not re-arm at the head, the repeat that would read
#     it within kMinTimerWait is the ACK clock's or RACK's first (causes.cpp
#     orders those before the timer's quiet period).
#   - unheard_ack.hpp's kProbeSinceAck: a bit of BeforeAck::present, not a
#     threshold; engine_unheard_ack_test.cpp round-trips each bit alone.
set -u

usage() { sed -n '2,/^set -u/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^set -u/d'; }

PATTERN=
KEEP=0
LIST=0
CHECK=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -l|--list) LIST=1 ;;
    -k|--keep) KEEP=1 ;;
    -c|--check) CHECK=1 ;;
    -*) echo "mutate.sh: unknown option $1" >&2; exit 2 ;;
    *) PATTERN=$1 ;;
  esac
  shift
done

HERE=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${JOBS:-1}
SHARED=${RTO_SHARED_DIR:-$HERE/../shared}
TABLE=$(mktemp "${TMPDIR:-/tmp}/rto-mutations.XXXXXX")
trap 'rm -f "$TABLE"' EXIT

cat >"$TABLE" <<'EOF'
# ---- thresholds.hpp, where the analysis reads them ------------------------
min-wait-ack-clock ;; pcap-replay/src/analysis/engine/causes.cpp ;; o.since_peer < limits::kMinTimerWait); ;; o.since_peer < microseconds{3'000}); ;; kMinTimerWait 5 ms -> 3 ms: a repeat that soon after a peer segment is the ACK clock's
min-wait-since-arm ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.since_arm < limits::kMinTimerWait) ;; if (o.since_arm < microseconds{3'000}) ;; kMinTimerWait 5 ms -> 3 ms: sooner after the arm than any timer
min-wait-back-to-back ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(s.time, *prev_send) < limits::kMinTimerWait ;; since(s.time, *prev_send) < microseconds{3'000} ;; kMinTimerWait 5 ms -> 3 ms: back to back with the previous segment
min-wait-burst-floor ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; limits::kBurstFraction.of(last_wait), limits::kMinTimerWait); ;; limits::kBurstFraction.of(last_wait), microseconds{20'000}); ;; kMinTimerWait 5 ms -> 20 ms as the go-back-N burst's least gap
ack-clock-min ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; const microseconds hi = ack_delay_hi() + limits::kAckClockMin; ;; const microseconds hi = ack_delay_hi() + microseconds{1'000}; ;; kAckClockMin 2 ms -> 1 ms: a response to the peer
ack-clock-min-synack ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; <= ack_delay_hi() + limits::kAckClockMin; ;; <= ack_delay_hi() + microseconds{1'000}; ;; kAckClockMin 2 ms -> 1 ms: a SYN-ACK answering the peer's SYN again
ack-clock-band-hi ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; return d + limits::kAckClockBand.of(d); ;; return d + limits::Ratio{1, 4}.of(d); ;; kAckClockBand 1/2 -> 1/4 above the capture-to-sender round trip
ack-clock-band-lo ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; return d - limits::kAckClockBand.of(d); ;; return d - limits::Ratio{1, 4}.of(d); ;; kAckClockBand 1/2 -> 1/4 below it (the response floor of a filled hole)
ack-answer-floor-band ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; lo = quickest - limits::kAckClockBand.of(quickest); ;; lo = quickest - limits::Ratio{1, 4}.of(quickest); ;; kAckClockBand 1/2 -> 1/4 below the quickest answer
ack-answer-floor-off ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (after >= lo) return p; ;; if (after >= microseconds{0}) return p; ;; a response captured sooner than the quickest answer allows
ack-answer-least ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (b >= 0 && (least_answer_us_ < 0 || b < least_answer_us_)) ;; if (b >= 0 && least_answer_us_ < 0) ;; the first answer kept, not the quickest
lost-retrans-off ;; pcap-replay/src/analysis/engine/causes.cpp ;; return o.recovery == Recovery::rto && !o.retransmission_lost ;; return o.recovery == Recovery::rto ;; a lost retransmission in RTO recovery is no reason to enter fast recovery
lost-retrans-since ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; retransmission_lost(seq, end, burst_start_) ;; retransmission_lost(seq, end, CaptureTime{}) ;; a retransmission before the latest expiry counts as lost
lost-retrans-before ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; it->last_time < *newest_sacked_send_) ;; it->last_time <= *newest_sacked_send_) ;; a retransmission sent with the SACKed segment counts as lost
late-ack-latest-copy ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; } else if (d.end == *first_end && d.time > latest) { ;; } else if (false) { ;; the late-ACK test counts from the first copy of the data, not the latest
late-ack-sacked ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; !rto::seq_le(d.end, h.ack) || d.sacked) ;; !rto::seq_le(d.end, h.ack)) ;; data the sender had SACKed read as answered late
flush-repeat-len ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; std::min<std::uint32_t>(s.payload_len, 0xffff) >= last_data_len_ && ;; ;; a shorter resend of the same sequence number (path MTU) read as a repeat
held-arm-bound ;; pcap-replay/src/analysis/engine/sender_chains.cpp ;; x.wait.hi = on_capture_clock ? x.wait.hi + prev->wait.hi ;; x.wait.hi = false ? x.wait.hi + prev->wait.hi ;; a held arm's wait unbounded though the arm before it is known
joint-sum ;; pcap-replay/src/analysis/engine/sender_chains.cpp ;; if (known && first < k && ;; if (false && known && first < k && ;; waits around held frames not judged by their sum
flush-repeat-longer ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; std::min<std::uint32_t>(s.payload_len, 0xffff) >= last_data_len_ && ;; std::min<std::uint32_t>(s.payload_len, 0xffff) == last_data_len_ && ;; a longer resend of the same data no repeat
default-mss ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; std::max(largest_peer_segment_, limits::kDefaultMss) ;; largest_peer_segment_ ;; the peer's small segments taken as full-sized
prompt-above-full ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; static_cast<std::uint32_t>(rto::seq_diff(ack, acked_through_)) <= full_segment) ;; static_cast<std::uint32_t>(rto::seq_diff(ack, acked_through_)) < full_segment) ;; exactly a full-sized segment acknowledged read as prompt
ack-clock-history ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (peer_times_.size() > limits::kAckClockHistory) ;; if (peer_times_.size() > 4) ;; kAckClockHistory 32 -> 4 peer segments a response may answer
response-train ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(s.time, *last_sent_) <= limits::kResponseTrain ;; since(s.time, *last_sent_) <= microseconds{0} ;; kResponseTrain 200 us -> 0: one ACK releasing several segments
capture-at-sender ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; *sender_rtt_ <= limits::kCaptureAtSender) ;; *sender_rtt_ <= microseconds{500}) ;; kCaptureAtSender 1 ms -> 0.5 ms
ts-echo-correction ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;;       *sample += correction; ;;       (void)0; ;; delete: a timestamp echo's sample misses the capture-to-sender round trip as a segment's does
handshake-syn-no-answer ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; *last >= *peer_synack_ && !syn && ;; *last >= *peer_synack_ && (syn || !syn) && ;; delete: a SYN sent again is no answer to the peer's SYN-ACK (the round trip from the client's first SYN-ACK)
handshake-latest-synack ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (!sender_rtt_) peer_synack_ = s.time; ;; if (!peer_synack_) peer_synack_ = s.time; ;; the client's ACK paired with the peer's first SYN-ACK, not its latest
handshake-latest-syn ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; } else if (!sender_rtt_) { ;; } else if (!peer_synack_) { ;; the handshake's round trip from the client's first SYN, not the one the SYN-ACK answered
handshake-echo-latest ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; const bool echoes_latest = own_synack_tsecr_ ;; const bool echoes_latest = false && own_synack_tsecr_ ;; delete: a first SYN-ACK echoing the latest SYN's TSval answers it
handshake-ambiguous-at-sender ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (peer_syn_repeated_ && !echoes_latest && d > limits::kCaptureAtSender) ;; if (peer_syn_repeated_ && !echoes_latest) ;; delete: a SYN-ACK within kCaptureAtSender of the latest SYN answers it
handshake-ambiguous-repeated ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (peer_syn_repeated_ && !echoes_latest && d ;; if (!echoes_latest && d ;; delete: only after the peer sent its SYN again is the first SYN-ACK's pairing in doubt
handshake-answered ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;;       peer_syn_again_.reset();  // answered ;;       (void)0;  // answered ;; delete: the first SYN-ACK that answers the latest SYN leaves no SYN unanswered
syn-reply-learns-rtt ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (answers_syn && before_timer && handshake_ambiguous_ && ;; if (false && answers_syn && before_timer && handshake_ambiguous_ && ;; delete: the answer to a SYN sent again gives the round trip the first SYN-ACK could not
syn-reply-consumes ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if ((answers_syn || own_synack_) && !maybe_timer) peer_syn_again_.reset(); ;; if (!maybe_timer) peer_syn_again_.reset(); ;; the first SYN-ACK (not only an answer) settles the SYN sent again
syn-reply-owed ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if ((answers_syn || own_synack_) && !maybe_timer) peer_syn_again_.reset(); ;; if (answers_syn && !maybe_timer) peer_syn_again_.reset(); ;; a SYN-ACK that does not answer the SYN sent again leaves it owed
syn-reply-simultaneous ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; (peer_syn_again_ || (!own_synack_ && own_syn_ && peer_syn_)) ;; (peer_syn_again_) ;; delete: a simultaneous open's SYN-ACK answers the peer's SYN
handshake-client-initial-rto ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; since(*last, *peer_synack_) < opt_.config.initial_rto) ;; true) ;; delete: the client's answer to a SYN-ACK comes within the initial RTO
handshake-server-initial-rto ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;;     if (d >= opt_.config.initial_rto) { ;;     if (false) { ;; delete: a SYN-ACK an initial RTO or more after the SYN answers no SYN of the capture's
synack-ambiguous-karn ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; sample_from(), syn && handshake_ambiguous_}); ;; sample_from(), false}); ;; delete: no sample from a first SYN-ACK that may be its timer's resend (Karn)
synack-ambiguous-upper ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; sender_rtt_ = std::min(std::max(d, since(*own_synack_, *peer_first_syn_) - timer_least), ;; sender_rtt_ = std::min(std::max(d, 0 * (since(*own_synack_, *peer_first_syn_) - timer_least)), ;; delete: a first SYN-ACK in doubt reads the round trip up to its timer's bound (not only from the latest SYN)
synack-ambiguous-first-syn ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; since(*own_synack_, *peer_first_syn_) - timer_least ;; since(*own_synack_, *peer_syn_) - timer_least ;; the timer's bound from the latest SYN, not the first
synack-ambiguous-timer-least ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; opt_.config.initial_rto - opt_.tolerance(opt_.config.initial_rto); ;; opt_.config.initial_rto; ;; the SYN-ACK timer's least wait without its tolerance
round-trip-bound ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; sender_rtt_ = b <= limits::kCaptureAtSender ? microseconds{0} : b; ;; (void)b; ;; delete: an ACK of the peer's data bounds the capture-to-sender round trip
round-trip-bound-unknown ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (!sender_rtt_ || b < *sender_rtt_) sender_rtt_ ;; if (sender_rtt_ && b < *sender_rtt_) sender_rtt_ ;; delete: the bound gives a round trip where a doubtful handshake gave none
pending-take-time-correction ;; pcap-replay/src/analysis/engine/sender_view.cpp ;;   p.r = raw + sender_rtt_.value_or(microseconds{0}); ;;   (void)0; ;; delete: a held sample is corrected by the round trip known when it is taken, not when its ACK came
pending-while-ambiguous ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; (karn_wait || handshake_ambiguous_)) { ;; karn_wait) { ;; delete: while the round trip is only bounded, every sample waits (timestamp echoes and the SYN-ACK's too)
rule-response-reason ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (responds && (o.loss_evidence || recovering || o.answers_fin)) ;; if (responds && (true || o.loss_evidence || recovering || o.answers_fin)) ;; delete: the ACK clock resends only after a loss shown, in recovery, or with a FIN
rule-response-fin ;; pcap-replay/src/analysis/engine/causes.cpp ;; (o.loss_evidence || recovering || o.answers_fin)) ;; (o.loss_evidence || recovering)) ;; delete: a FIN acknowledging the peer's answers it whatever its sequence number
rule-response-recovery ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (responds && (o.loss_evidence || recovering || o.answers_fin)) ;; if (responds && (o.loss_evidence || (false && recovering) || o.answers_fin)) ;; delete: in recovery the ACK clock resends (the slow start after an expiry, a partial ACK)
syn-reply-exact-before-timer ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (answers_syn && before_timer && handshake_ambiguous_ && ;; if (answers_syn && handshake_ambiguous_ && ;; delete: a later SYN-ACK gives the round trip only when the SYN-ACK timer cannot have sent it
round-trip-syn-rcvd ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (peer_acked_synack_) bound_round_trip(captured.time, *peer_acked_synack_); ;; (void)0; ;; delete: our first segment past SYN-RCVD bounds the round trip by the peer's first ACK of our SYN-ACK
expiry-takes-held ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;     while (pending_count_ > 0) take_pending(pop_pending(), captured); ;;     (void)0; ;; delete: an expiry of the data timer shows its held samples' ACKs processed
dupack-window ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;;         h.window == window_before) { ;;         (true || h.window == window_before)) { ;; delete: a window update is no duplicate ACK (RFC 5681 2)
rule-response-probe-out ;; pcap-replay/src/analysis/engine/causes.cpp ;; const bool recovering = o.recovery == Recovery::fast || o.recovery == Recovery::rto; ;; const bool recovering = o.recovery != Recovery::open; ;; a loss probe outstanding counted as recovery, where the ACK clock resends
answers-fin-peer-fin ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; (ack_advanced_ || (peer_fin_end_ && seq_ge(s.tcp.ack, *peer_fin_end_))); ;; (ack_advanced_); ;; delete: a FIN acknowledging the peer's FIN answers it
answers-fin-ack-advanced ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; (ack_advanced_ || (peer_fin_end_ ;; (false || (peer_fin_end_ ;; delete: a FIN riding on an ACK of new data answers it
synack-ambiguous-cap ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;;                                opt_.config.initial_rto - microseconds{1}); ;;                                microseconds::max()); ;; delete: the doubtful handshake's upper reading stays below the initial RTO
rule-syn-reply-view ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.syn_ack && o.answers_dup_syn) ;; if (o.handshake == Handshake::syn_received && o.syn_ack && o.answers_dup_syn) ;; a SYN-ACK answers a SYN sent again only in SYN-RCVD as the capture sees it (not as sending it shows)
rule-syn-reply-synack ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.syn_ack && o.answers_dup_syn) ;; if (o.answers_dup_syn) ;; delete: only a SYN-ACK answers a SYN sent again
delayed-exact ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (!opt_.profile->probe.enabled || !opt_.profile->probe.exact) return false; ;; if (!opt_.profile->probe.enabled) return false; ;; delete: only a probe timer known to be re-armed by new data (Linux's) holds an expiry back
delayed-sack ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (!o.sack_negotiated) return false; ;; if (false && !o.sack_negotiated) return false; ;; delete: no probe timer without SACK
delayed-loss-evidence ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (o.loss_evidence) return false; ;; if (false && o.loss_evidence) return false; ;; delete: no probe timer once duplicate ACKs or SACKs showed a loss
delayed-recovery ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (o.recovery != Recovery::open && o.recovery != Recovery::probe_out) return false; ;; if (false) return false; ;; delete: no probe timer in fast or RTO recovery (after an expiry: the chain's first expiry only)
delayed-timing ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;   return fits_probe_timer(d, *opt_.profile); ;;   return true; ;; delete: held back only to a probe timeout after the newest data
delayed-uncapped ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;   d.rto_left = microseconds{0}; ;;   (void)0; ;; delete: the held-back reading's PTO is not clamped to the RTO (its deadline had passed)
delayed-head-bound ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; fire_window(models_.front(), 2 * (p.delayed_after_head + g)).hi >= e.wait.lo) ;; true) ;; delete: the held-back reading needs the RTO run out before the newest data
delayed-least-rto ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; p.maybe_delayed && r_min_ <= p.delayed_after_head + g && ;; p.maybe_delayed && ;; delete: no RTO below the least the samples give runs out sooner than that
delayed-reading ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; || e.ack_unheard || delayed ? Outcome::cannot_tell ;; || e.ack_unheard ? Outcome::cannot_tell ;; delete: an earlier expiry held back leaves the doubling from its wait one reading only
burst-fraction ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; limits::kBurstFraction.of(last_wait) ;; limits::Ratio{1, 8}.of(last_wait) ;; kBurstFraction 1/2 -> 1/8 of the expiry's wait
rack-window-floor ;; pcap-replay/src/analysis/engine/causes.cpp ;; std::max(*o.srtt, limits::kRackWindowFloor) ;; std::max(*o.srtt, microseconds{5'000}) ;; kRackWindowFloor 10 ms -> 5 ms
old-tsval-ticks-up ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; >= static_cast<std::int32_t>(limits::kOldTsvalTicks)) ;; >= 3) ;; kOldTsvalTicks 2 -> 3
old-tsval-ticks-down ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; >= static_cast<std::int32_t>(limits::kOldTsvalTicks)) ;; >= 1) ;; kOldTsvalTicks 2 -> 1
reorder-window-floor ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; std::max(limits::kReorderWindowFloor, ;; std::max(microseconds{1'000}, ;; kReorderWindowFloor 3 ms -> 1 ms
same-id-window ;; pcap-replay/src/analysis/capture_copy.cpp ;; return apart <= limits::kSameIdWindow; ;; return apart <= std::chrono::microseconds{50'000}; ;; kSameIdWindow 100 ms -> 50 ms: one datagram captured twice
no-id-window ;; pcap-replay/src/analysis/capture_copy.cpp ;; : limits::kNoIdWindow); ;; : std::chrono::microseconds{100}); ;; kNoIdWindow 200 us -> 100 us
rfc-min-rto-inferred ;; pcap-replay/src/analysis/inference.cpp ;; judged.tolerance(limits::kRfcMinRto) < limits::kRfcMinRto ;; judged.tolerance(microseconds{500'000}) < microseconds{500'000} ;; kRfcMinRto 1 s -> 0.5 s: a first wait below 1 s not read as a floor on the variance term
floor-shown ;; pcap-replay/src/analysis/inference.cpp ;; !t.wait.intersects(*t.alternative)); ;; true); ;; a first wait in both the floored and the floorless windows read as showing the floor on the sum
floor-shown-ok ;; pcap-replay/src/analysis/inference.cpp ;; t.verdict == Verdict::ok && t.alternative ;; t.alternative ;; a first expiry the judge could not place read as showing the floor on the sum
doubling-expected ;; pcap-replay/src/analysis/inference.cpp ;; limits::kDoublingExpected.reached_by(w[i], w[i - 1]) ;; limits::Ratio{5, 4}.reached_by(w[i], w[i - 1]) ;; kDoublingExpected 3/2 -> 5/4: a chain that grew
infer-lateness-setting ;; pcap-replay/src/analysis/inference.cpp ;; if (t.verdict == Verdict::ok && t.basis != Basis::doubling ;; if ((t.verdict == Verdict::ok || t.verdict == Verdict::setting) && t.basis != Basis::doubling ;; a wait a documented setting explains read as the timer's lateness
same-wait-percent ;; pcap-replay/src/analysis/inference.cpp ;; std::max(a, b) * limits::kSameWaitPercent ;; std::max(a, b) * 5 ;; kSameWaitPercent 10 -> 5
same-wait-ticks ;; pcap-replay/src/analysis/inference.cpp ;; + limits::kSameWaitTicks * 100; ;; + microseconds{2'000} * 100; ;; kSameWaitTicks 4 ms -> 2 ms
ts-clock-min-span ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (span >= limits::kTsClockMinSpan.count() ;; if (span >= 100'000 ;; kTsClockMinSpan 200 ms -> 100 ms
ts-clock-min-span ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (hspan >= limits::kTsClockMinSpan.count() ;; if (hspan >= 100'000 ;;
ts-clock-min-span ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (span_us < limits::kTsClockMinSpan.count() ;; if (span_us < 100'000 ;;
ts-rate-tolerance ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; hz * limits::kTsRateTolerancePercent / 100.0 ;; hz * 2 / 100.0 ;; kTsRateTolerancePercent 5 -> 2
clock-disagree-ticks ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; limits::kClockDisagreeTicks * 1e6 / *rate ;; 1 * 1e6 / *rate ;; kClockDisagreeTicks 2 -> 1
flush-silence ;; pcap-replay/src/analysis/host_activity.cpp ;; t - *last_ >= limits::kFlushSilence ;; t - *last_ >= std::chrono::microseconds{250'000} ;; kFlushSilence 500 ms -> 250 ms
flush-window ;; pcap-replay/src/analysis/host_activity.cpp ;; t - *burst_start_ > limits::kFlushWindow ;; t - *burst_start_ > std::chrono::microseconds{2'000} ;; kFlushWindow 5 ms -> 2 ms
flush-held ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; return held && *held >= limits::kFlushHeld ? ;; return held && *held >= microseconds{50'000} ? ;; kFlushHeld 100 ms -> 50 ms
flush-held ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; held_long = *held && **held >= limits::kFlushHeld; ;; held_long = *held && **held >= microseconds{50'000}; ;;
flush-held ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; held_long = mine && *mine >= limits::kFlushHeld; ;; held_long = mine && *mine >= microseconds{50'000}; ;;
delayed-ack-max ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; late_ack = since(s.time, latest) > limits::kDelayedAckMax ;; late_ack = since(s.time, latest) > microseconds{200'000} ;; kDelayedAckMax 500 ms -> 200 ms
peer-data-history ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; number - peer_data_.front().number >= limits::kPeerDataHistory) ;; number - peer_data_.front().number >= 8) ;; kPeerDataHistory 64 -> 8
flush-repeat-off ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; const bool repeat = s.payload_len > 0 && ;; const bool repeat = false && s.payload_len > 0 && ;; a repeat within kMinTimerWait is no evidence of a hold
flush-repeat-wait ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; since(s.time, *last_send_time_) < limits::kMinTimerWait ;; since(s.time, *last_send_time_) <= limits::kMinTimerWait ;; the repeat window closed at kMinTimerWait, not open
flush-repeat-peer ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; >= last_data_len_ && !peer_since_send_ && ;; >= last_data_len_ && ;; a repeat after the peer sent something is evidence too
flush-repeat-seq ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; last_was_data_ && h.seq == last_data_seq_ ;; last_was_data_ ;; any data after data is a repeat
hold-sign-tsval ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; const HoldSign sign = held_long  ? HoldSign::tsval ;; const HoldSign sign = held_long  ? HoldSign::repeat ;; a TSval hold named a repeat
hold-sign-late-ack ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; : late_ack ? HoldSign::late_ack ;; : late_ack ? HoldSign::tsval ;; a late ACK named a TSval hold
hold-evidence ;; pcap-replay/src/analysis/engine/sender_chains.cpp ;; j.evidence.push_back(hold.frame); ;; ;; the frame that showed the hold not named

# ---- engine/judge_limits.hpp ----------------------------------------------
inferred-additive-waits ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kInferredAdditiveWaits = 3; ;; kInferredAdditiveWaits = 2; ;; kInferredAdditiveWaits 3 -> 2
max-inferred-slop ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kMaxInferredSlop{200'000}; ;; kMaxInferredSlop{150'000}; ;; kMaxInferredSlop 200 ms -> 150 ms
max-slop-of-base-up ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kMaxSlopOfBase{1, 2}; ;; kMaxSlopOfBase{3, 5}; ;; kMaxSlopOfBase 1/2 -> 3/5
max-slop-of-base-down ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kMaxSlopOfBase{1, 2}; ;; kMaxSlopOfBase{2, 5}; ;; kMaxSlopOfBase 1/2 -> 2/5
slop-of-base-unbounded ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; s.upper.push_back({0, -f->num * s.d, f->den}); ;; (void)f; ;; the inferred constant's bound by the chain's first RTO dropped
slop-of-base-model-dropped ;; pcap-replay/src/analysis/engine/lateness.cpp ;; Interval{microseconds{0}, microseconds::max()}, true, limits::kMaxSlopOfBase}}; ;; Interval{microseconds{0}, limits::kMaxInferredSlop}, true, limits::kMaxSlopOfBase}}; ;; the reading of a constant beyond 200 ms dropped
lateness-carried-across-runs ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; l.additive.hi = std::min(l.additive.hi, f->additive.hi); ;; (void)f; ;; a run after a departure forgets the constant the earlier run showed
cap-last-at-cap-unread ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; if (b.cap.lo != microseconds::max() && waits.size() >= 2) { ;; if (false && b.cap.lo != microseconds::max() && waits.size() >= 2) { ;; the last expiry is never read as the first at the cap
cap-last-wait-unshown ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; std::max(us(b.cap.lo) * d + s_least, shown) ;; std::max(us(b.cap.lo) * d + s_least, shown * 0) ;; the last wait at the cap does not bound the cap from below
new-data-probe-never-settled ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (new_data_probe_ && back_to_back && ;; if (false && new_data_probe_ && back_to_back && ;; a new-data probe with new data leaving right behind it stays a probe
new-data-probe-train-wait ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(s.time, *prev_send) <= limits::kResponseTrain && ;; since(s.time, *prev_send) <= limits::kMinTimerWait && ;; a write ms after a new-data probe makes it the write's (kResponseTrain -> kMinTimerWait)
new-data-probe-state-kept ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; restore(new_data_probe_->before); ;; (void)0; ;; a new-data probe read as a write keeps the probe's timer state
new-data-probe-arm-exact ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; arm_ = either; ;; (void)either; ;; a new-data probe read as a write puts the timer's arm back where it was before (no interval)
new-data-probe-cause-kept ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (either && arm_) either->cause = arm_->cause; ;; (void)0; ;; a new-data probe read as a write leaves the arm's cause the probe's
# A resend of a packet the capture did not see (its IPv4 ID skipped one;
# tests/pcap-replay/unseen_original_test.cpp).
unseen-run-2 ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; k <= limits::kIpIdCounterRun; ++k ;; k <= 2; ++k ;; the IPv4 ID counter read after two steps of one in a row (kIpIdCounterRun 3 -> 2)
unseen-run-4 ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; k <= limits::kIpIdCounterRun; ++k ;; k <= 4; ++k ;; the IPv4 ID counter read after four steps of one in a row (kIpIdCounterRun 3 -> 4)
unseen-count-2 ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; *captured.ip_id - prev_ip_id) == limits::kUnseenOriginalPackets + 1) { ;; *captured.ip_id - prev_ip_id) == 3) { ;; new data after two unseen packets read as a resend, after one not (kUnseenOriginalPackets 1 -> 2)
unseen-count-2 ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; unseen_before(captured, after, prev) == limits::kUnseenOriginalPackets && ;; unseen_before(captured, after, prev) == 2 && ;;
unseen-count-any ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; *captured.ip_id - prev_ip_id) == limits::kUnseenOriginalPackets + 1) { ;; *captured.ip_id - prev_ip_id) >= limits::kUnseenOriginalPackets + 1) { ;; new data after any number of unseen packets read as a resend
unseen-count-any ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; unseen_before(captured, after, prev) == limits::kUnseenOriginalPackets && ;; unseen_before(captured, after, prev) >= limits::kUnseenOriginalPackets && ;;
unseen-prev-id ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (read_ip_ids_ && captured.ip_id) prev_ip_id_ = *captured.ip_id; ;; (void)0; ;; the previous packet's IPv4 ID not kept: no skip seen
unseen-gso ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; if (before->payload_len > std::max<std::uint32_t>(one_segment, peer_mss_)) return 0; ;; (void)0; ;; the step after a packet larger than the peer's MSS and any one segment shown (a GSO packet's) read as a skip
unseen-one-segment ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; one_segment = std::max(one_segment, a->payload_len); ;; (void)0; ;; no packet shown sent as one segment: no skip read after data
unseen-clocked ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; seq == seq_.snd_max && !ack_triggered && captured.ip_id && ;; seq == seq_.snd_max && captured.ip_id && ;; new data the peer's segment clocked read as the resend of an unseen packet
unseen-past-max ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (read_ip_ids_ && seq == seq_.snd_max && ;; if (read_ip_ids_ && seq_ge(seq, seq_.snd_max) && ;; new data beyond a hole read as the resend of the unseen packet that carried the hole
unseen-acks-new ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;;   if (acks_new) { ;;   if (acks_new && false) { ;; new data acknowledging the peer's data first read as the resend of an unseen packet (which may have been that ACK)
unseen-mss ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; std::max<std::uint32_t>(one_segment, peer_mss_) ;; one_segment ;; a packet no larger than the peer's MSS but larger than the steps' packets read as a possible GSO packet
unseen-mss-set ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (h.options.mss) peer_mss_ = *h.options.mss; ;; (void)0; ;; the peer's MSS not read from its SYN
unseen-linux-ids ;; pcap-replay/src/analysis/stack_profile.cpp ;; kLinuxTunables, true}, ;; kLinuxTunables, false}, ;; Linux's IPv4 IDs not read as a counter per connection
unseen-rfc-ids ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{8'000}, false, 1}, false, false, false, "", {}}, ;; microseconds{8'000}, false, 1}, false, false, false, "", {}, true}, ;; RFC 6298's unnamed stack read as counting IPv4 IDs per connection
unseen-answer ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; if (heard_peer_ && *heard_peer_ > prev) ;; if (false) ;; the unseen packet never read as answering the peer
unseen-train ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; Span{prev, prev + limits::kResponseTrain} ;; Span{prev, prev} ;; the unseen packet left at the previous packet's time exactly, not within kResponseTrain of it
unseen-two-out ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; o.single_segment = in_flight() + 1 <= 1; ;; o.single_segment = in_flight() <= 1; ;; the unseen packet not counted in flight (the PTO of one segment where two are out)
unseen-step ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; if (across_step(left, s.time)) return false; ;; (void)0; ;; the probe's time read across a step of the capture clock
unseen-arm ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; arm_ = TimerArm{ArmCause::send, left->lo, left->hi, std::nullopt, 0, 0}; ;; (void)0; ;; the unseen packet does not start the timer (5.1)
unseen-arm-union ;; pcap-replay/src/analysis/engine/sender_unseen.cpp ;; left = left ? Span{std::min(left->lo, spans[i].lo), std::max(left->hi, spans[i].hi)} : spans[i]; ;; if (!left) left = spans[i]; ;; the arm is the first span that fits, not all of them
# An ACK path shown holding ACKs (tests/pcap-replay/sender_view_test.cpp).
acks-held-set ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; acks_held_from_ = b.time; ;; (void)0; ;; a resend showing an ACK unheard leaves answers' timing as evidence of ACKs heard
acks-held-read ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;                            acks_held_at(s.time)); ;;                            false); ;; a back-to-back train ends at kResponseTrain from its first even while the path was shown holding ACKs
acks-held-horizon ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; since(t, *acks_held_from_) <= unheard_horizon(); ;; since(t, *acks_held_from_) < unheard_horizon(); ;; the hold read as lasting less than the horizon (at its boundary)
acks-held-horizon-long ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; since(t, *acks_held_from_) <= unheard_horizon(); ;; since(t, *acks_held_from_) <= 2 * unheard_horizon(); ;; the hold read as lasting twice the horizon
new-data-probe-repeat-unread ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (new_data_probe_ && ex.kind != SendKind::tlp && !syn) { ;; if (false && new_data_probe_ && ex.kind != SendKind::tlp && !syn) { ;; a repeat that is the probe only if the new data before it was a write keeps the other reading
new-data-probe-peer-unsettled ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; new_data_probe_.reset();  // what the peer sends ;; // what the peer sends ;; a peer segment does not settle a new-data probe's reading
new-data-probe-train-any ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; *prev_send == new_data_probe_->at && ;; true && ;; the train that reads a new-data probe as a write need not start at the probe
cap-established-waits ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kCapEstablishedWaits = 2; ;; kCapEstablishedWaits = 3; ;; kCapEstablishedWaits 2 -> 3
rfc-min-max-rto ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kRfcMinMaxRto{60'000'000}; ;; kRfcMinMaxRto{30'000'000}; ;; kRfcMinMaxRto 60 s -> 30 s (2.5)
late-factor ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kLateFactor{3, 2}; ;; kLateFactor{2, 1}; ;; kLateFactor 3/2 -> 2
max-probe-readings ;; pcap-replay/src/analysis/engine/judge_limits.hpp ;; kMaxProbeReadings = 3; ;; kMaxProbeReadings = 1; ;; kMaxProbeReadings 3 -> 1

# ---- engine/lateness.cpp --------------------------------------------------
wheel-bucket ;; pcap-replay/src/analysis/engine/lateness.cpp ;; kWheelBucket{8, 63}; ;; kWheelBucket{1, 16}; ;; Linux wheel lateness 8/63 -> 1/16
wheel-jiffies ;; pcap-replay/src/analysis/engine/lateness.cpp ;; kWheelJiffies = 2; ;; kWheelJiffies = 1; ;; Linux wheel: 2 jiffies -> 1
slop-timer-jitter ;; pcap-replay/src/analysis/engine/lateness.cpp ;; kSlopTimerJitter{1, 32}; ;; kSlopTimerJitter{1, 64}; ;; slop stacks' timer jitter 1/32 -> 1/64

# ---- stack_profile.cpp ------------------------------------------------------
linux-initial-rto ;; pcap-replay/src/analysis/stack_profile.cpp ;; linux_default(), microseconds{1'000'000}, ;; linux_default(), microseconds{3'000'000}, ;; Linux initial RTO 1 s -> 3 s
linux-rto-min ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{200}), microseconds{120'000'000}, 4, ;; us(milliseconds{150}), microseconds{120'000'000}, 4, ;; Linux rto_min 200 ms -> 150 ms
linux-rto-max ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{200}), microseconds{120'000'000}, 4, ;; us(milliseconds{200}), microseconds{64'000'000}, 4, ;; Linux TCP_RTO_MAX 120 s -> 64 s
linux-syn-linear ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{200}), microseconds{120'000'000}, 4, ;; us(milliseconds{200}), microseconds{120'000'000}, 3, ;; Linux tcp_syn_linear_timeouts 4 -> 3
linux-tick ;; pcap-replay/src/analysis/stack_profile.cpp ;;             microseconds{4'000}), ;;             microseconds{1'000}), ;; Linux jiffy 4 ms -> 1 ms
linux-pto-single ;; pcap-replay/src/analysis/stack_profile.cpp ;; ProbeRule{true, microseconds{200'000}, microseconds{2'000}, true, 1} ;; ProbeRule{true, microseconds{100'000}, microseconds{2'000}, true, 1} ;; Linux PTO single-segment allowance 200 ms -> 100 ms
linux-pto-allowance ;; pcap-replay/src/analysis/stack_profile.cpp ;; ProbeRule{true, microseconds{200'000}, microseconds{2'000}, true, 1} ;; ProbeRule{true, microseconds{200'000}, microseconds{4'000}, true, 1} ;; Linux PTO allowance 2 ms -> 4 ms
linux-pto-exact ;; pcap-replay/src/analysis/stack_profile.cpp ;; ProbeRule{true, microseconds{200'000}, microseconds{2'000}, true, 1} ;; ProbeRule{true, microseconds{200'000}, microseconds{2'000}, false, 1} ;; Linux PTO known exactly -> as RFC 8985
linux-cap-known ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{2'000}, true, 1}, true, true, true, ;; microseconds{2'000}, true, 1}, false, true, true, ;; Linux cap known -> not known
linux-sack-rtt ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{2'000}, true, 1}, true, true, true, ;; microseconds{2'000}, true, 1}, true, false, true, ;; Linux samples SACKed data -> does not
linux-rearm-head ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{2'000}, true, 1}, true, true, true, ;; microseconds{2'000}, true, 1}, true, true, false, ;; Linux re-arms from the head -> does not
linux-max-tunable-lo ;; pcap-replay/src/analysis/stack_profile.cpp ;; tcp_rto_max_ms", microseconds{1'000'000}, ;; tcp_rto_max_ms", microseconds{2'000'000}, ;; Linux tcp_rto_max_ms least 1 s -> 2 s
linux-max-tunable-hi ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{1'000'000}, microseconds{120'000'000}, 0}, ;; microseconds{1'000'000}, microseconds{60'000'000}, 0}, ;; Linux tcp_rto_max_ms most 120 s -> 60 s
linux-thin-linear ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{0}, microseconds{0}, 6}, ;; microseconds{0}, microseconds{0}, 4}, ;; Linux thin-stream linear timeouts 6 -> 4
linux-syn-linear-max ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{0}, microseconds{0}, 16}, ;; microseconds{0}, microseconds{0}, 8}, ;; Linux tcp_syn_linear_timeouts most 16 -> 8
rfc-pto-allowance ;; pcap-replay/src/analysis/stack_profile.cpp ;; ProbeRule{true, microseconds{200'000}, microseconds{8'000}, false, 1} ;; ProbeRule{true, microseconds{200'000}, microseconds{2'000}, false, 1} ;; RFC 8985 PTO allowance (rfc6298 profile) 8 ms -> 2 ms
rfc-pto-single ;; pcap-replay/src/analysis/stack_profile.cpp ;; ProbeRule{true, microseconds{200'000}, microseconds{8'000}, false, 1} ;; ProbeRule{true, microseconds{100'000}, microseconds{8'000}, false, 1} ;; RFC 8985 single-segment allowance 200 ms -> 100 ms
rfc-lateness ;; pcap-replay/src/analysis/stack_profile.cpp ;; Fallback57::rfc, Lateness::inferred, ;; Fallback57::rfc, Lateness::proportional, ;; rfc6298 profile: lateness inferred -> proportional only
freebsd-rto-min ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{30}), microseconds{64'000'000}, 4, ;; us(milliseconds{60}), microseconds{64'000'000}, 4, ;; FreeBSD tcp_rexmit_min 30 ms -> 60 ms
freebsd-rto-max ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{30}), microseconds{64'000'000}, 4, ;; us(milliseconds{30}), microseconds{60'000'000}, 4, ;; FreeBSD TCPTV_REXMTMAX 64 s -> 60 s
freebsd-syn-linear ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{30}), microseconds{64'000'000}, 4, ;; us(milliseconds{30}), microseconds{64'000'000}, 3, ;; FreeBSD SYN schedule 1,1,1,1,1,2,4 -> 1,1,1,1,2,4
freebsd-slop ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{200}),\n       ProbeRule{true, microseconds{200'000}, microseconds{10'000}, false, 2}, true, false, false,\n       "2.4 (30 ms ;; us(milliseconds{100}),\n       ProbeRule{true, microseconds{200'000}, microseconds{10'000}, false, 2}, true, false, false,\n       "2.4 (30 ms ;; FreeBSD tcp_rexmit_slop 200 ms -> 100 ms
macos-rto-min ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{10}), microseconds{64'000'000}, 4, ;; us(milliseconds{30}), microseconds{64'000'000}, 4, ;; macOS TCPTV_MIN 10 ms -> 30 ms
macos-rto-max ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{10}), microseconds{64'000'000}, 4, ;; us(milliseconds{10}), microseconds{60'000'000}, 4, ;; macOS TCPTV_REXMTMAX 64 s -> 60 s
macos-syn-linear ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{10}), microseconds{64'000'000}, 4, ;; us(milliseconds{10}), microseconds{64'000'000}, 5, ;; macOS SYN schedule 1,1,1,1,1,2,4 -> 1,1,1,1,1,1,2
macos-slop ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{200}),\n       ProbeRule{true, microseconds{200'000}, microseconds{10'000}}, true, false, false,\n       "2.4 (floor far ;; us(milliseconds{100}),\n       ProbeRule{true, microseconds{200'000}, microseconds{10'000}}, true, false, false,\n       "2.4 (floor far ;; macOS TCPTV_REXMTSLOP 200 ms -> 100 ms
windows-rto-min ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{300}), microseconds{60'000'000}, 0, ;; us(milliseconds{200}), microseconds{60'000'000}, 0, ;; Windows MinRto 300 ms -> 200 ms
windows-rto-max ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{300}), microseconds{60'000'000}, 0, ;; us(milliseconds{300}), microseconds{120'000'000}, 0, ;; Windows cap 60 s -> 120 s
windows-syn-linear ;; pcap-replay/src/analysis/stack_profile.cpp ;; us(milliseconds{300}), microseconds{60'000'000}, 0, ;; us(milliseconds{300}), microseconds{60'000'000}, 1, ;; Windows SYN doubling -> one linear expiry
windows-initial-tunable ;; pcap-replay/src/analysis/stack_profile.cpp ;;      microseconds{3'000'000}, 0}, ;;      microseconds{2'000'000}, 0}, ;; Windows InitialRto setting 3 s -> 2 s

# ---- rules: causes.cpp --------------------------------------------------------
rule-already-acked ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.already_acked) return ;; if (false && o.already_acked) return ;; delete: a repeat the capture shows acknowledged is spurious
rule-old-tsval-syn ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.old_tsval && !o.syn) return ;; if (o.old_tsval) return ;; a SYN with an old TSval read as a network copy too
rule-syn-copy ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.back_to_back) return {SendKind::out_of_order, Cause::network_copy}; ;; ;; delete: a SYN back to back with the previous one is a copy
rule-burst-once ;; pcap-replay/src/analysis/engine/causes.cpp ;; if (o.in_rto_burst && !o.resent_in_burst) ;; if (o.in_rto_burst) ;; delete: a burst never resends a segment it already resent
rule-ack-clock-at-sender ;; pcap-replay/src/analysis/engine/causes.cpp ;; (o.sender_rtt.count() == 0 && o.since_peer ;; (o.since_peer ;; the "soon after a peer segment" rule also away from the sender
rule-rack-first-only ;; pcap-replay/src/analysis/engine/causes.cpp ;; o.srtt && o.timeouts_in_chain == 0 && ;; o.srtt && ;; RACK also after an expiry of the chain
rule-recovery-not-head ;; pcap-replay/src/analysis/engine/causes.cpp ;; o.timeouts_in_chain == 0 && !o.is_head) ;; o.timeouts_in_chain == 0) ;; RTO recovery also resends the head without a timer
rule-probe-highest ;; pcap-replay/src/analysis/engine/causes.cpp ;; o.is_highest && !o.is_head && o.timeouts_in_chain == 0 && !o.probe_since_ack) ;; o.is_highest && !o.is_head && o.timeouts_in_chain == 0) ;; a second probe since the ACK
rule-probe-loss-evidence ;; pcap-replay/src/analysis/engine/causes.cpp ;;       o.loss_evidence || o.recovery != Recovery::open || !o.is_highest) ;;       o.recovery != Recovery::open || !o.is_highest) ;; a probe despite dup ACKs / SACK holes
rule-probe-rearm-new-data ;; pcap-replay/src/analysis/engine/causes.cpp ;; p.probe.exact ? std::min(since_arm, since_new_data) : since_arm; ;; ((void)since_new_data, since_arm); ;; the probe timer not re-armed by new data
rule-probe-maybe-rto ;; pcap-replay/src/analysis/engine/causes.cpp ;; return {SendKind::tlp, Cause::probe_timer, o.is_head}; ;; return {SendKind::tlp, Cause::probe_timer, false}; ;; a lone-segment probe never read as the RTO's expiry

# ---- rules: chain_judge.cpp -----------------------------------------------------
rule-rto-min-setting ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (w.hi < rec.accepted.lo && lower_min && x.floorless ;; if (false && w.hi < rec.accepted.lo && lower_min && x.floorless ;; delete: an early first expiry a lower rto_min explains is a setting (INFO)
rule-initial-rto-rule ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; else if (x.basis == Basis::initial_rto) rule = RuleId::rfc6298_2_1; ;; ;; delete: an early expiry of the initial RTO breaks 2.1
rule-floor-rule ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; else if (x.floorless && w.hi >= window(*x.floorless).lo) rule = RuleId::rfc6298_2_4; ;; ;; delete: an early expiry above the floorless RTO breaks 2.4 (SHOULD), not 5.3
rule-first-straddle ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; w.intersects(*rec.alternative) && w.lo <= rec.accepted.hi) ;; w.intersects(*rec.alternative) && w.lo < rec.accepted.lo) ;; an ok where the floored and floorless windows overlap (an ok the departure earns too)
cap-straddle ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; const bool either = widened(e.wait, g).intersects(rec.accepted) && ;; const bool either = false && ;; an expiry at the cap whose wait holds the doubled RTO broken all the same
cap-straddle-joint ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; && !joint_off(j, variants_[0]); ;; ; ;; an expiry at the cap whose doubled reading the sum with the previous wait refutes: cannot tell all the same
late-run-least ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; late_least_[j] = least > g ? least - g : microseconds{0}; ;; ;; the run after a late expiry doubles the late wait, not the RTO it bounds from above
late-run-least-model ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; least = std::min(least, p->fire.lo); ;; least = std::max(least == microseconds::max() ? microseconds{0} : least, p->fire.hi); ;; a late expiry's least RTO the most a model predicts
joint-depart ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; all_short = joint.has_value(); ;; all_short = false; ;; waits short together not a departure when each alone is undecided
joint-short-edge ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (t.hi >= sum.lo) return std::nullopt; ;; if (t.hi + t.hi / 8 >= sum.lo) return std::nullopt; ;; a sum short of the doubling by less than 1/8 not short
fit-joint-upper ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; if (t.bounded()) s.upper.push_back({us(t.hi) * s.d, sp.c_below * s.d, sp.m}); ;; ;; the fit ignores that waits together came sooner than their doubling
fit-joint-capped ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; if (t.bounded()) s.c_hi = std::min(s.c_hi, floor_div(us(t.hi) - sp.m * s.s_fixed, sp.m)); ;; ;; waits held at a cap together: the cap not bounded by their sum
fit-joint-mixed ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; if (sp.t.bounded() && least + sp.m * s.s_fixed > us(sp.t.hi)) return std::nullopt; ;; (void)least; ;; a span reaching the cap inside it: its sum not compared with c R + a C
fit-span-count ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; Span sp{0, waits[j].span, 0, *waits[j].span_sum}; ;; Span sp{0, 2, 0, *waits[j].span_sum}; ;; a sum of three waits read as of two (the slop counted twice)
fit-line-k ;; pcap-replay/src/analysis/engine/backoff_fit.cpp ;; const i128 diff = lo.k * hi.b - hi.k * lo.b, rhs = lo.k * hi.a - hi.k * lo.a; ;; const i128 diff = hi.b - lo.b, rhs = hi.a - lo.a; ;; a bound on two waits' constant (2 s) read as on one
rule-karn-sack ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; (karn && e.after_sack_sample) || e.ack_unheard ;; e.ack_unheard ;; Karn backoff after a SACK sample: broken instead of cannot tell
rule-karn ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; const bool karn = e.after_ambiguous_ack; ;; const bool karn = false; ;; an early expiry after an ambiguous ACK is 5.5, not Karn (3)
rule-capped-no-doubling ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (d > d_prev && !capped) ;; if (d > d_prev && (true || !capped)) ;; a chain at its cap still straddles the undoubled RTO
rule-setting-refuted ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (through > j && !model_fitting(run_start_, through, alt)) continue; ;; if (false && through > j && !model_fitting(run_start_, through, alt)) continue; ;; delete: a setting the later expiries refute
rule-setting-refuted-span ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; std::max(j + 1, run_start_ + alt.linear) ;; j + 1 ;; a setting refuted by the next expiry only, not by the rest of its linear span
rule-cap-unstated ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; stated ? std::size_t{0} : std::size_t{2} ;; stated ? std::size_t{0} : std::size_t{1} ;; an unstated cap read after one doubling instead of two
rule-least-rto-slack ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; base.lo - slack.ceil_of(base.lo) - opt_.absolute_tolerance ;; base.lo - slack.ceil_of(microseconds{0}) - opt_.absolute_tolerance ;; the least RTO without the estimator's slack
rule-probe-tie ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; for (std::size_t k = 0; k < open.size(); ++k) n += ((mask >> k & 1) != 0) == events[open[k]].maybe_probe ? 1 : 0; ;; for (std::size_t k = 0; k < open.size(); ++k) n += ((mask >> k & 1) != 0) == events[open[k]].maybe_probe ? 0 : 1; ;; on a tie a probe reads as an expiry (a repeat as none)
repeat-reading ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; feed_.repeated() && activity_ && activity_->flushed(file_, s.frame).has_value(); ;; false; ;; a repeat in a held burst not weighed as the timer's expiry
repeat-reading-held ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; feed_.repeated() && activity_ && activity_->flushed(file_, s.frame).has_value(); ;; feed_.repeated(); ;; a repeat weighed as an expiry where no silence before it showed a held burst
repeat-no-54 ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; if (seq != heard_una() && !maybe_repeat) { ;; if (seq != heard_una()) { ;; a repeat in a held burst judged by 5.4 as an expiry of its own
repeat-reverse ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (!w.repeat) continue;\n      Judgement c = x; ;; continue;\n      Judgement c = x; ;; an ok under the chosen reading of a held repeat, broken under the other: ok all the same
chain-broken-every-reading ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (chain_broken_in[j.rule] == readings &&\n          (w.repeat || opt_.profile->rearm_from_head || kept_deadline_breaks(j.rule))) { ;; if ((void)kept_deadline_breaks, false) { ;; a rule every reading breaks at different frames: cannot tell
chain-broken-probe-rearm ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; (w.repeat || opt_.profile->rearm_from_head || kept_deadline_breaks(j.rule))) { ;; ((void)kept_deadline_breaks, true)) { ;; a probe's two readings taken as all where the stack may keep the old deadline at a probe
span-walk ;; pcap-replay/src/analysis/engine/sender_chains.cpp ;; activity_->flushed(file_, data_chain_[first].arm_frame)) { ;; activity_->flushed(file_, data_chain_[first].arm_frame) && first == k) { ;; a sum only across one held frame (a repeat's span of three read as two)

# ---- rules: sender_*.cpp -----------------------------------------------------
rule-57-kept-below-3s ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; est_.estimator().base_rto() < opt_.config.syn_fallback_rto ;; est_.estimator().base_rto() <= opt_.config.syn_fallback_rto ;; Linux's kept handshake RTO noted at 5.7's 3 s too, where nothing departs
rule-hole-sent-before ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; return sent_before || (!sent_after && recent); ;; return (false && sent_before) || (!sent_after && recent); ;; fill_hole: an older TSval no longer proves a reordered first send
rule-hole-sent-after ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; return sent_before || (!sent_after && recent); ;; return sent_before || ((true || !sent_after) && recent); ;; fill_hole: a newer TSval/TSecr no longer proves a retransmission
rule-hole-tsecr ;; pcap-replay/src/analysis/engine/sender_ledger.cpp ;; older(it->tsval, opts.tsval) || older(it->tsecr, opts.tsecr); ;; older(it->tsval, opts.tsval); ;; fill_hole: a newer TSecr no longer proves it
rule-heard-through-strict ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; rto::ts_diff(tsecr, *b.tsval()) > 0; }); ;; rto::ts_diff(tsecr, *b.tsval()) >= 0; }); ;; heard_through: an equal TSecr taken as proof the ACK was received
rule-heard-until ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; return b.time <= t && !shown_unheard; ;; return b.time < t && !shown_unheard; ;; heard_until: the ACK answered itself is not counted heard
rule-karn-pending ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; const bool keep = !(s.time < p.until && seq_lt(s.tcp.seq, p.ack)); ;; const bool keep = true || !(s.time < p.until && seq_lt(s.tcp.seq, p.ack)); ;; delete: Karn voids a sample of an ACK the sender processed after a retransmission of what it acknowledges
rule-all-acked-stops ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; arm_.reset();  // 5.2 ;; (void)0;  // 5.2 ;; delete 5.2: the timer stops when all is acknowledged (and new data after it starts a fresh one)
rule-all-acked-stops ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; } else if (!arm_ || was_idle) { ;; } else if (!arm_ || (false && was_idle)) { ;;
rule-rearm-from-head-ack ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (opt_.profile->rearm_from_head && sack_negotiated() && !outstanding_.empty() && ;; if (false && !outstanding_.empty() && ;; the ACK's arm never from the head's send time (tcp_rearm_rto)
rule-rearm-from-head-nosack ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (opt_.profile->rearm_from_head && sack_negotiated() && !outstanding_.empty() && ;; if (opt_.profile->rearm_from_head && !outstanding_.empty() && ;; the ACK's arm from the head's send time without SACK (no probe or RACK timer pending)
rule-back-to-back-peer ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; after_prev.back_to_back = !peer_since_prev && ;; after_prev.back_to_back = (true || !peer_since_prev) && ;; back to back despite a peer segment between
rule-burst-span ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; (seq_lt(seq, seq_.snd_una) && seq_ge(seq, burst_span_.first) && ;; (false && seq_ge(seq, burst_span_.first) && ;; a burst's resend below the capture's SND.UNA no longer known as resent
rule-burst-span-above ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; (seq_lt(seq, seq_.snd_una) && seq_ge(seq, burst_span_.first) && ;; (seq_ge(seq, burst_span_.first) && ;; the burst's span also above the capture's SND.UNA (a burst captured out of order)
rule-keepalive-fin ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; const bool keepalive_shape = !fin && ;; const bool keepalive_shape = ;; a FIN resent below SND.UNA taken for a keep-alive's byte
rule-setting-thin-span ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; while (through > j + 1 && !variant_applies(alt, run_start_, through)) --through; ;; ;; a thin-stream setting refuted by expiries after the stream stopped being thin
rule-cannot-tell-record ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; rec.verdict = Verdict::cannot_tell;  // early under one reading only ;; (void)0;  // early under one reading only ;; an expiry judged cannot-tell recorded as early
rule-cannot-tell-first ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; rec.verdict = e.ack_unheard ? Verdict::cannot_tell : Verdict::early; ;; rec.verdict = Verdict::early; ;; a first expiry early only under the unheard reading recorded as early
rule-thin-stream ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; x.thin = in_flight() < 4; ;; x.thin = in_flight() <= 4; ;; thin stream: fewer than 4 in flight -> at most 4
rule-unheard-fast ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; e2.kind == SendKind::tlp || e2.kind == SendKind::fast || ;; e2.kind == SendKind::tlp || ;; an unheard ACK's fast retransmit stays spurious
rule-heard-resent ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; const bool shown_unheard = resent && ;; const bool shown_unheard = false && resent && ;; heard_until: a resend of what the ACK acknowledged no longer shows it unheard
rule-unheard-clock ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; r.ack_clocked = ack_clocked(s.time, a.time).has_value() || ;; r.ack_clocked = ack_clocked(s.time).has_value() || ;; an unheard ACK still clocks the resend read as sent without it
rule-ambiguous-once ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; if (!ambiguous_through_ || seq_gt(ack, *ambiguous_through_)) ++out_.ambiguous_acks; ;; ++out_.ambiguous_acks; ;; an ACK counted ambiguous when a resend voided its sample is counted again when repeated
# ---- 2026-12-05 (9th): --shard, what an engine that judges nothing still feeds its host
shard-no-activity ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; const bool feed = activity && feed_activity_ && !replayed; ;; const bool feed = activity && feed_activity_ && !replayed && held; ;; another shard's connection feeds its host's activity nothing (a flush it shows is missed)
shard-held-after-silence ;; pcap-replay/src/analysis/host_activity.hpp ;; if (last_ && t - *last_ >= limits::kFlushSilence) return true; ;; if (last_ && t - *last_ >= limits::kFlushSilence) return false; ;; an engine that only feeds tells its host's activity nothing held at the first packet after a silence
shard-no-tsval-clock ;; pcap-replay/src/analysis/engine/host_feed.cpp ;; ts_clock_.observe(s.time, *tsval); ;; if (want_held) ts_clock_.observe(s.time, *tsval); ;; another shard's connection writes nothing to its host's TSval clock
shard-no-peer-data ;; pcap-replay/src/analysis/engine/host_feed.hpp ;; void on_peer(const Segment& s) { feed_peer(s); } ;; void on_peer(const Segment& s) { (void)s; } ;; another shard's connection keeps no peer data (its late ACKs are not seen)
# ---- 2026-12-05 (10th): merge's scan of shard documents
scan-depth ;; pcap-replay/include/replay/report/json_flows_scan.hpp ;; inline constexpr int kMaxJsonDepth = 64; ;; inline constexpr int kMaxJsonDepth = 65; ;; the scan reads one level of nesting more than it says it refuses
# ---- 2026-12-05 (11th): a delay spike after the capture point holds more ACKs than the ring
unheard-away-none ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kUnheardAcksAway = 256; ;; kUnheardAcksAway = 0; ;; only the four newest unheard ACKs kept (a spike's RTO of the head called spurious)
unheard-away-more ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kUnheardAcksAway = 256; ;; kUnheardAcksAway = 257; ;; one more older unheard ACK kept than stated
unheard-older-unsearched ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; std::size_t unheard_kept_count() const { return before_count_ + before_older_.size(); } ;; std::size_t unheard_kept_count() const { return before_count_; } ;; the older unheard ACKs are kept but never read
unheard-train-ignored ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; const MaybeTime heard_at = same_train ? train_heard_ : MaybeTime(answered); ;; const MaybeTime heard_at = MaybeTime(answered); ;; a segment sent back-to-back with the previous one taken as an answer to the ACK captured between them
unheard-age-rtos ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kUnheardAckRtos = 2; ;; kUnheardAckRtos = 3; ;; older unheard ACKs kept three RTOs, not two
unheard-age-floor ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kUnheardAckMinHorizon{1'000'000}; ;; kUnheardAckMinHorizon{1'100'000}; ;; older unheard ACKs kept at least 1.1 s, not RFC 6298's 1 s
unheard-age-none ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; since(t, oldest.time) > horizon); ;; since(t, oldest.time) > microseconds::max()); ;; older unheard ACKs never dropped by age (a stale oldest one kept for ever)
setting-under-unheard ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; !e.ack_unheard && w.hi >= window(*x.floorless).lo) { ;; w.hi >= window(*x.floorless).lo) { ;; a lower rto_min read from an expiry that is one only if an ACK went unheard
unheard-tsecr-oldest-none ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; for (std::size_t i = unheard_kept_count(); i-- > *at + 1;) ;; for (std::size_t i = unheard_kept_count(); false;) ;; the sender's TSecr no longer names the first ACK it did not hear (the resend read from the newest covering ACK)
unheard-tsecr-oldest-equal ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; tv && rto::ts_diff(*tv, *tsecr) > 0) { ;; tv && rto::ts_diff(*tv, *tsecr) >= 0) { ;; an ACK whose TSval the sender echoes taken as unheard
unheard-older-reading-none ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; before.since_arm < opt_.config.min_rto - opt_.tolerance(opt_.config.min_rto)) { ;; before.since_arm < opt_.config.min_rto - opt_.tolerance(opt_.config.min_rto) && false) { ;; without timestamps, an expiry below the profile's least RTO is kept as the only reading (no earlier ACK read as unheard)
unheard-no-ts-oldest-kept ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; if (before_older_.size() == kUnheardAcksAway && !leaving.tsval()) before_older_.pop_front(); ;; if (before_older_.size() == kUnheardAcksAway && !leaving.tsval() && false) before_older_.pop_front(); ;; without timestamps, past the cap the oldest unheard ACKs kept, not the newest
unheard-54-broken ;; pcap-replay/src/analysis/engine/sender_chains.cpp ;; j.outcome = p.ack_unheard ? Outcome::cannot_tell : Outcome::broken; ;; j.outcome = Outcome::broken; ;; 5.4 broken at an expiry that is one only if an ACK the capture saw went unheard
unheard-train-unbounded ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(s.time, *train_start_) <= limits::kResponseTrain) || ;; true) || ;; a train of back-to-back segments never ends (an ACK inside a steady stream never answered)
unheard-age-with-tsval ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; const bool aged = !oldest.tsval() && ;; const bool aged = ;; older unheard ACKs with TSvals dropped by age too, though the TSecr shows them unheard
# ---- 2026-12-06 (12th): the sender's send time from its TSval when held before the capture point
held-clock-ignored ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (*held_ <= limits::kClockDisagreeTicks * tick) return s.time; ;; if (true) return s.time; ;; the sender's resends held with a delay spike read at their capture times (spurious, not its probe and RTO)
held-threshold-one-tick ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (*held_ <= limits::kClockDisagreeTicks * tick) return s.time; ;; if (*held_ <= tick) return s.time; ;; a hold of 2 ticks (the TSval clock's quantisation) read as one
held-threshold-one-tick ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kNeverMoved{limits::kClockDisagreeTicks * 1'000'000 / limits::kMaxTsvalHz}; ;; kNeverMoved{1'000'000 / limits::kMaxTsvalHz}; ;;
held-shortcut-three-ticks ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; kNeverMoved{limits::kClockDisagreeTicks * 1'000'000 / limits::kMaxTsvalHz}; ;; kNeverMoved{3 * 1'000'000 / limits::kMaxTsvalHz}; ;; the common case's shortcut skips a hold of 3 ticks of a 1 kHz clock
held-threshold-three-ticks ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (*held_ <= limits::kClockDisagreeTicks * tick) return s.time; ;; if (*held_ <= 3 * tick) return s.time; ;; a hold of 3 ticks ignored
held-older-tsval-trusted ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (newest_tsval_ && rto::ts_diff(*s.tcp.options.tsval, *newest_tsval_) < 0) return s.time; ;; (void)0; ;; a TSval older than one already sent taken as the send time
held-tsecr-bound-removed ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; if (const std::optional<CaptureTime> heard = heard_peer_time(s.tcp.options.tsecr)) sent = std::max(sent, *heard); ;; (void)0; ;; a held send placed before the peer segment its TSecr shows it had received
held-arm-on-send-clock ;; pcap-replay/src/analysis/engine/sender_capture_point.cpp ;; const CaptureTime at = t + microseconds{held_us_};\n  rearm_any_ = at; ;; const CaptureTime at = t;\n  rearm_any_ = at; ;; an arm by a held transmission kept at its send time: the expiry's wait on the capture clock counted from it
held-arm-sent-ignored ;; pcap-replay/src/analysis/engine/sender_state.hpp ;; CaptureTime sent() const { return latest - std::chrono::microseconds{held_us}; } ;; CaptureTime sent() const { return latest; } ;; a probe's or an expiry's time since the arm read from the arm's capture, not its send time
held-report-time ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; const CaptureTime at = s.frame == current_frame_ && capture_time_ ? *capture_time_ : s.time; ;; const CaptureTime at = s.time; ;; the report shows a held segment at its send time, not its capture time
held-peer-resets ;; pcap-replay/src/analysis/engine/sender_peer.cpp ;; held_us_ = 0;           // an arm by the peer's segment ;; (void)0; ;; an arm by the peer's ACK inherits the hold of the sender's last segment
# ---- 2026-12-05: the state restored for an ACK the sender did not receive, field by field
rule-unheard-dupacks ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; dupacks,\n ;; 0u,\n ;; the duplicate ACKs the sender had before an unheard ACK are not restored (its RACK resend read as a timer's)
rule-unheard-sack-evidence ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; (present & kSackEvidence) != 0, ;; false, ;; the SACK evidence the sender had before an unheard ACK is not restored
rule-unheard-recovery ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; recovery,\n                    (present ;; Recovery::open,\n                    (present ;; the fast recovery the sender was in before an unheard ACK is not restored
# ---- 2026-12-04: readings of a cannot-tell, held samples in the timeline, reordering, zoom windows
s5-readings-label ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; keeps[mask >> k & 1] = keeps[mask >> k & 1] || !broken; ;; keeps[mask >> k & 1] = true; ;; a cannot-tell names every reading as keeping the rule
s5-held-sample-row ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; out_.timeline.push_back(row); ;; (void)row; ;; a held sample taken later leaves no timeline row
s5-reorder-summary ;; pcap-replay/src/input/capture_reader.cpp ;; if (!rebased) {  // reordering ;; if (false) {  // reordering ;; reordering no longer summarised
s5-zoom-share ;; pcap-replay/include/replay/analysis/thresholds.hpp ;; kZoomBelowShare = 0.25; ;; kZoomBelowShare = 0.3; ;; kZoomBelowShare 0.25 -> 0.3
s5-zoom-pad ;; pcap-replay/include/replay/analysis/thresholds.hpp ;; kZoomPadShare = 0.15; ;; kZoomPadShare = 0.2; ;; kZoomPadShare 0.15 -> 0.2
s5-zoom-min-pad ;; pcap-replay/include/replay/analysis/thresholds.hpp ;; kZoomMinPad{20}; ;; kZoomMinPad{10}; ;; kZoomMinPad 20 ms -> 10 ms
s5-zoom-max ;; pcap-replay/include/replay/analysis/thresholds.hpp ;; kZoomMaxEpisodes = 3; ;; kZoomMaxEpisodes = 4; ;; kZoomMaxEpisodes 3 -> 4
# ---- connection identity (flow_table.cpp) and capture copies (capture_copy.*)
ident-join-ack-slack-less ;; pcap-replay/src/analysis/flow_table.cpp ;; sent.end - s.tcp.ack <= limits::kJoinAckSlack; ;; sent.end - s.tcp.ack <= (limits::kJoinAckSlack >> 1); ;; kJoinAckSlack 16 MiB -> 8 MiB: a side's first segment on another VLAN joins only nearer what the peer sent
ident-join-ack-slack-more ;; pcap-replay/src/analysis/flow_table.cpp ;; sent.end - s.tcp.ack <= limits::kJoinAckSlack; ;; sent.end - s.tcp.ack <= (limits::kJoinAckSlack << 1); ;; kJoinAckSlack 16 MiB -> 32 MiB
ident-max-tsval-hz-less ;; pcap-replay/src/analysis/flow_table.cpp ;; * limits::kMaxTsvalHz / 1'000'000'000 + 1; ;; * 500 / 1'000'000'000 + 1; ;; kMaxTsvalHz 1000 -> 500: a TSval clock read as another one sooner
ident-max-tsval-hz-more ;; pcap-replay/src/analysis/flow_table.cpp ;; * limits::kMaxTsvalHz / 1'000'000'000 + 1; ;; * 2000 / 1'000'000'000 + 1; ;; kMaxTsvalHz 1000 -> 2000
copy-same-tsval-less ;; pcap-replay/src/analysis/capture_copy.cpp ;; ? limits::kSameTsvalWindow : ;; ? std::chrono::microseconds{5'000} : ;; kSameTsvalWindow 10 ms -> 5 ms: two captures of one packet without an ID
copy-same-tsval-more ;; pcap-replay/src/analysis/capture_copy.cpp ;; ? limits::kSameTsvalWindow : ;; ? std::chrono::microseconds{20'000} : ;; kSameTsvalWindow 10 ms -> 20 ms
copy-recent-kept-less ;; pcap-replay/src/analysis/capture_copy.hpp ;; inline constexpr std::size_t kRecentKept = 8; ;; inline constexpr std::size_t kRecentKept = 4; ;; kRecentKept 8 -> 4 recent segments searched for the original of a copy (a multiple of 4: static_assert)
copy-recent-kept-more ;; pcap-replay/src/analysis/capture_copy.hpp ;; inline constexpr std::size_t kRecentKept = 8; ;; inline constexpr std::size_t kRecentKept = 12; ;; kRecentKept 8 -> 12
# ---- lockstep.cpp, where it reads lockstep.hpp's constants (lockstep_test.cpp pins their values)
lockstep-window-group-less ;; pcap-replay/src/analysis/lockstep.cpp ;; r0[j + 1] - r0[i] <= kLockstepWindow) ++j; ;; r0[j + 1] - r0[i] <= kLockstepWindow / 2) ++j; ;; kLockstepWindow 10 ms -> 5 ms: first retries in one group
lockstep-window-group-more ;; pcap-replay/src/analysis/lockstep.cpp ;; r0[j + 1] - r0[i] <= kLockstepWindow) ++j; ;; r0[j + 1] - r0[i] <= kLockstepWindow * 2) ++j; ;; kLockstepWindow 10 ms -> 20 ms: first retries in one group
lockstep-window-offsets-less ;; pcap-replay/src/analysis/lockstep.cpp ;; if (o.spread > kLockstepWindow) { ;; if (o.spread > kLockstepWindow / 2) { ;; kLockstepWindow 10 ms -> 5 ms: a group's later retry position still in lockstep
lockstep-window-offsets-more ;; pcap-replay/src/analysis/lockstep.cpp ;; if (o.spread > kLockstepWindow) { ;; if (o.spread > kLockstepWindow * 2) { ;; kLockstepWindow 10 ms -> 20 ms: a group's later retry position still in lockstep
lockstep-window-cluster-less ;; pcap-replay/src/analysis/lockstep.cpp ;; while (t[j] - t[i] > kLockstepWindow) ++i; ;; while (t[j] - t[i] > kLockstepWindow / 2) ++i; ;; kLockstepWindow 10 ms -> 5 ms: a dispersion's largest cluster
lockstep-window-cluster-more ;; pcap-replay/src/analysis/lockstep.cpp ;; while (t[j] - t[i] > kLockstepWindow) ++i; ;; while (t[j] - t[i] > kLockstepWindow * 2) ++i; ;; kLockstepWindow 10 ms -> 20 ms: a dispersion's largest cluster
lockstep-window-chance ;; pcap-replay/src/analysis/lockstep.cpp ;; * others * kLockstepWindow.count(); ;; * others * (kLockstepWindow * 2).count(); ;; kLockstepWindow 10 ms -> 20 ms in the chance level
lockstep-min-group-less ;; pcap-replay/src/analysis/lockstep.cpp ;; bool group = size >= kMinGroupSize; ;; bool group = size >= kMinGroupSize - 1; ;; kMinGroupSize 8 -> 7 chains make a group
lockstep-min-group-more ;; pcap-replay/src/analysis/lockstep.cpp ;; bool group = size >= kMinGroupSize; ;; bool group = size >= kMinGroupSize + 1; ;; kMinGroupSize 8 -> 9 chains make a group
lockstep-min-group-offsets ;; pcap-replay/src/analysis/lockstep.cpp ;; if (at.size() < kMinGroupSize) break; ;; if (at.size() < kMinGroupSize - 1) break; ;; kMinGroupSize 8 -> 7 members still make a retry position of a group
lockstep-min-group-dispersed ;; pcap-replay/src/analysis/lockstep.cpp ;; if (rest.size() < kMinGroupSize) return; ;; if (rest.size() < kMinGroupSize + 1) return; ;; kMinGroupSize 8 -> 9 chains make a dispersion worth reporting
lockstep-chance-neighbourhood ;; pcap-replay/src/analysis/lockstep.cpp ;; r0[i] - kChanceNeighbourhood); ;; r0[i] - kChanceNeighbourhood / 2); ;; kChanceNeighbourhood 500 ms -> 250 ms: the other first retries counted around a group
lockstep-chance-neighbourhood ;; pcap-replay/src/analysis/lockstep.cpp ;; r0[j] + kChanceNeighbourhood); ;; r0[j] + kChanceNeighbourhood / 2); ;;
lockstep-chance-level ;; pcap-replay/src/analysis/lockstep.cpp ;; * 2 * kChanceNeighbourhood.count() >= ;; * 2 * (kChanceNeighbourhood * 2).count() >= ;; kChanceNeighbourhood 500 ms -> 1 s in the chance level only
lockstep-chance-ratio-less ;; pcap-replay/src/analysis/lockstep.cpp ;; static_cast<std::int64_t>(kMinChanceRatio) * others ;; static_cast<std::int64_t>(kMinChanceRatio - 1) * others ;; kMinChanceRatio 4 -> 3
lockstep-chance-ratio-more ;; pcap-replay/src/analysis/lockstep.cpp ;; static_cast<std::int64_t>(kMinChanceRatio) * others ;; static_cast<std::int64_t>(kMinChanceRatio + 1) * others ;; kMinChanceRatio 4 -> 5
# ---- engine rings (sender_engine.hpp)
engine-ring-pending-less ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; static constexpr std::size_t kPendingSamplesKept = 4; ;; static constexpr std::size_t kPendingSamplesKept = 3; ;; kPendingSamplesKept 4 -> 3 RTT samples held until the sender must have taken them
engine-ring-pending-more ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; static constexpr std::size_t kPendingSamplesKept = 4; ;; static constexpr std::size_t kPendingSamplesKept = 5; ;; kPendingSamplesKept 4 -> 5
engine-ring-unheard-less ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; static constexpr std::size_t kUnheardAcksKept = 4; ;; static constexpr std::size_t kUnheardAcksKept = 3; ;; kUnheardAcksKept 4 -> 3 in the ring (4 + 256 -> 3 + 256 kept past a spike)
engine-ring-unheard-more ;; pcap-replay/src/analysis/engine/sender_engine.hpp ;; static constexpr std::size_t kUnheardAcksKept = 4; ;; static constexpr std::size_t kUnheardAcksKept = 5; ;; kUnheardAcksKept 4 -> 5 in the ring
engine-ring-unheard-span-less ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; rto::seq_diff(ack, oldest.una) <= kUnheardAckSpan) break; ;; rto::seq_diff(ack, oldest.una) <= kUnheardAckSpan / 2) break; ;; kUnheardAckSpan 2^30 -> 2^29 bytes behind the newest ACK: an older unheard ACK dropped
engine-ring-unheard-span-more ;; pcap-replay/src/analysis/engine/sender_view.cpp ;; rto::seq_diff(ack, oldest.una) <= kUnheardAckSpan) break; ;; rto::seq_diff(ack, oldest.una) <= kUnheardAckSpan + kUnheardAckSpan / 2) break; ;; kUnheardAckSpan 2^30 -> 1.5 x 2^30 bytes
# ---- 2026-12-06 (16th): the text report's milliseconds by integer arithmetic
report-fixed-ms-range ;; pcap-replay/include/replay/report/fixed_ms.hpp ;; kFixedMsExactBelow = std::uint64_t{1} << 50; ;; kFixedMsExactBelow = std::uint64_t{1} << 60; ;; FixedMs prints a duration's own digits up to 2^60 us, where ms(d) (what the report printed) has lost microseconds
report-fixed-ms-sign ;; pcap-replay/include/replay/report/fixed_ms.hpp ;; if (n < 0) *--p = '-'; ;; if (n < -1000) *--p = '-'; ;; FixedMs drops the sign of a negative duration under 1 ms
report-text-spill-twice ;; pcap-replay/src/report/report_text.cpp ;;     os.write(buf.data(), static_cast<std::streamsize>(buf.size()));\n    buf.clear(); ;;     os.write(buf.data(), static_cast<std::streamsize>(buf.size())); ;; a flow's text written out at the spill size is kept and written again
report-text-spill-lost ;; pcap-replay/src/report/report_text.cpp ;;     if (buf.size() < kTextSpill) return;\n    os.write(buf.data(), static_cast<std::streamsize>(buf.size())); ;;     if (buf.size() < kTextSpill) return; ;; a flow's text at the spill size is dropped, not written
rack-needs-sack ;; pcap-replay/src/analysis/engine/causes.cpp ;;   if ((o.loss_evidence || o.recovery == Recovery::fast) && o.srtt && o.timeouts_in_chain == 0 && ;;   if ((o.loss_evidence || o.recovery == Recovery::fast) && o.sack_negotiated && o.srtt && o.timeouts_in_chain == 0 && ;; a resend a quarter RTT after duplicate ACKs without SACK (Linux 3.5-4.9's delayed early retransmit) read as an early RTO
flow-last-retire-kept ;; pcap-replay/src/analysis/flow_table.cpp ;;   last_.valid = false;  // set_ changes\n  set_.erase(it); ;;   set_.erase(it); ;; the table's last entry kept when its connection leaves the table
# ---- 2026-12-07 (24th): a SYN-ACK timer's and an answer's identical SYN-ACKs
# (tests/pcap-replay/synack_race_test.cpp, lab synack-loss-recv).
synack-answerable-ignored ;; pcap-replay/src/analysis/capture_copy.cpp ;; if (answerable == Answerable::yes) return false; ;; (void)answerable; ;; the copy test ignores a SYN-ACK right after one held as maybe the timer's (the timer's expiry lost)
synack-answerable-always ;; pcap-replay/src/analysis/segment_routing.cpp ;; if (cand.model[dir] && cand.model[dir]->second_of_held_synack(s)) return Answerable::yes; ;; if (cand.model[dir] || dir >= 0) return Answerable::yes; ;; every SYN-ACK without an ID naming it read as a second transmission, never a copy
synack-copies-shown-ignored ;; pcap-replay/src/analysis/segment_routing.cpp ;; if (!s.tcp.has(wire::kSyn) || !s.tcp.has(wire::kAck) || live.capture_duplicates > 0) return Answerable::no; ;; if (!s.tcp.has(wire::kSyn) || !s.tcp.has(wire::kAck)) return Answerable::no; ;; a capture that duplicates datagrams: the copy of a held SYN-ACK read as the answer
synack-maybe-timer-off ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; maybe_timer = peer_syn_again_ && in_window && synack_timer_due(s.time); ;; maybe_timer = false; ;; a SYN-ACK that may be the timer's or the answer always read as the answer
synack-maybe-timer-any-time ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; maybe_timer = peer_syn_again_ && in_window && synack_timer_due(s.time); ;; maybe_timer = peer_syn_again_ && in_window; ;; a SYN-ACK held as maybe the timer's whenever it answers, the timer due or not
synack-due-no-backoff ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;     rto = std::min(2 * rto, opt_.config.max_rto);\n  return since(t, syn_arm_->sent()) ;;     (void)0;\n  return since(t, syn_arm_->sent()) ;; the SYN-ACK timer read as due after its initial RTO whatever its backoff
synack-due-no-tick ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; >= rto - opt_.config.tick - opt_.absolute_tolerance; ;; >= rto - opt_.absolute_tolerance; ;; the SYN-ACK timer's least wait without the tick it may fire early by
synack-due-no-tolerance ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; >= rto - opt_.config.tick - opt_.absolute_tolerance; ;; >= rto - opt_.config.tick; ;; the SYN-ACK timer's least wait without the capture's absolute tolerance
synack-timer-first-gap ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(next.time, held.captured) < limits::kMinTimerWait && ;; since(next.time, held.captured) <= limits::kMinTimerWait && ;; the timer's first when the same SYN-ACK follows within kMinTimerWait inclusive
synack-timer-first-window ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;; since(next.time, held.captured) < limits::kMinTimerWait && answers_in_window(held.asked, next.time); ;; since(next.time, held.captured) < limits::kMinTimerWait; ;; the second SYN-ACK read as the answer outside the SYN's response window
synack-settle-at-finish ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;   settle_held_synack(nullptr);\n  settle_pending_samples(CaptureTime::max()); ;;   settle_pending_samples(CaptureTime::max()); ;; a SYN-ACK held at the end of the capture never read
tsbound-factor-3 ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (since_first > limits::kFastTsvalFactor * ((us(t) - t0_us_) / kTickUs) + 2) ;; if (since_first > 3 * ((us(t) - t0_us_) / kTickUs) + 2) ;; kFastTsvalFactor 2 -> 3 (a clock up to 3 kHz bounds send times)
tsbound-factor-1 ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (since_first > limits::kFastTsvalFactor * ((us(t) - t0_us_) / kTickUs) + 2) ;; if (since_first > 1 * ((us(t) - t0_us_) / kTickUs) + 2) ;; kFastTsvalFactor 2 -> 1 (a first segment held a few ms turns the bound off)
tsbound-no-guard ;; pcap-replay/src/analysis/rtt_sampling.cpp ;; if (since_first > limits::kFastTsvalFactor * ((us(t) - t0_us_) / kTickUs) + 2) return std::chrono::microseconds{0}; ;; (void)since_first; (void)t; ;; delete: a clock faster than RFC 7323 allows (a microsecond clock) bounds send times at 1 ms a tick
tsbound-all-ticks ;; pcap-replay/src/analysis/rtt_sampling.cpp ;;   return std::chrono::microseconds{(ticks - 1) * kTickUs}; ;;   return std::chrono::microseconds{ticks * kTickUs}; ;; the bound counts every tick (both TSvals stamped at their tick's start)
tsbound-one-tick ;; pcap-replay/src/analysis/rtt_sampling.cpp ;;   if (!seen_ || ticks < 2) return std::chrono::microseconds{0}; ;;   if (!seen_ || ticks < 3) return std::chrono::microseconds{0}; ;; TSvals 2 ticks apart bound nothing
tsbound-probe-reading ;; pcap-replay/src/analysis/engine/causes.cpp ;;   return due(o.since_arm, o.since_new_data) || due(o.sender_since_arm, o.sender_since_new_data); ;;   return due(o.since_arm, o.since_new_data); ;; the probe timer fitted on the capture's times only (a hold before the rate is known)
tsbound-arm-by-ack ;; pcap-replay/src/analysis/engine/sender_engine.cpp ;;       return true;\n    case ArmCause::ack:\n    case ArmCause::sack: ;;     case ArmCause::ack:\n      return true;\n    case ArmCause::sack: ;; an arm by the peer's ACK read on the sender's clock as its own send
third-reading-off ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;;       deadline_kept = ReadingJudge(opt_, chain, syn).run(); ;;       (void)chain; ;; a probe that may have left the deadline as it was is not weighed (every reading broken reads cannot tell)
third-reading-linux ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; if (open.size() == 1 && events[open[0]].maybe_probe && !opt_.profile->rearm_from_head &&\n ;; if (open.size() == 1 && events[open[0]].maybe_probe &&\n ;; the third reading weighed for a stack that re-arms at a probe (Linux)
third-reading-no-sum ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;;       merged.wait = Interval{p.wait.lo + merged.wait.lo, p.wait.hi + merged.wait.hi}; ;;       (void)p; ;; the deadline kept, the next expiry's wait still counted from the probe
third-reading-any-rule ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;; [&](const Judgement& x) { return x.outcome == Outcome::broken && x.rule == rule; }); ;; [&](const Judgement& x) { (void)rule; return x.outcome == Outcome::broken; }); ;; the third reading counted as breaking a rule when it breaks any
third-reading-two-probes ;; pcap-replay/src/analysis/engine/chain_judge.cpp ;;       opt_.profile->probe.max_per_flight == 1) { ;;       opt_.profile->probe.max_per_flight >= 1) { ;; the three readings taken as all for a stack that may send two probes a flight (FreeBSD's RACK)
freebsd-tlp-limit ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{10'000}, false, 2} ;; microseconds{10'000}, false, 1} ;; FreeBSD's RACK read as sending one probe a flight (rack_tlp_limit 2 -> 1)
rfc-tlp-limit ;; pcap-replay/src/analysis/stack_profile.cpp ;; microseconds{8'000}, false, 1} ;; microseconds{8'000}, false, 0} ;; RFC 8985's one probe a flight read as not known
EOF

# ---- the table ------------------------------------------------------------------
# table list: "id<TAB>description<TAB>files" per mutation, in table order.
# table check ROOT ID...: every edit's text is found exactly once under ROOT.
# table apply ROOT ID...: the same, then the edits are made.
table() {
  python3 -B - "$TABLE" "$@" <<'PY'
import re, sys
table, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
order, desc, edits = [], {}, {}
for n, line in enumerate(open(table, encoding="utf-8"), 1):
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    f = [x.strip() for x in re.split(r"(?<=\s);;(?=\s|$)", line.rstrip("\n"))]
    if len(f) != 5 or not f[0] or not f[1] or not f[2]:
        print(f"mutation table line {n}: want 'id ;; file ;; text ;; replacement ;; description'", file=sys.stderr)
        sys.exit(2)
    mid, path, old, new, d = f
    if mid not in edits:
        order.append(mid); desc[mid] = d; edits[mid] = []
    edits[mid].append((path, old.replace("\\n", "\n"), new.replace("\\n", "\n")))
if mode == "list":
    for mid in order:
        files = []
        for path, _, _ in edits[mid]:
            if path not in files: files.append(path)
        print(f"{mid}\t{desc[mid]}\t{' '.join(files)}")
    sys.exit(0)
root, bad = args[0], 0
for mid in args[1:]:
    if mid not in edits:
        print(f"{mid}: no such mutation", file=sys.stderr); bad = 1; continue
    texts = {}
    for path, old, new in edits[mid]:
        try:
            text = texts[path] if path in texts else open(f"{root}/{path}", encoding="utf-8").read()
        except OSError as e:
            print(f"{mid}: {path}: {e.strerror}", file=sys.stderr); bad = 1; continue
        k = text.count(old)
        if k != 1:
            print(f"{mid}: {path}: the text to replace is found {k} times, not once: {old!r}", file=sys.stderr)
            bad = 1; continue
        texts[path] = text.replace(old, new)
    if mode == "apply" and not bad:
        for path, text in texts.items():
            with open(f"{root}/{path}", "w", encoding="utf-8") as out:
                out.write(text)
sys.exit(2 if bad else 0)
PY
}

command -v python3 >/dev/null || { echo "mutate.sh: needs python3" >&2; exit 2; }
ALL=$(table list) || exit 2
if [ -n "$PATTERN" ]; then
  SELECTED=$(printf '%s\n' "$ALL" | awk -F'\t' -v p="$PATTERN" '$1 ~ p || $2 ~ p')
else
  SELECTED=$ALL
fi
if [ "$LIST" = 1 ]; then
  printf '%s\n' "$SELECTED" | awk -F'\t' 'NF { printf "%-28s %s\n", $1, $2 }'
  exit 0
fi
[ -n "$SELECTED" ] || { echo "mutate.sh: no mutation matches '$PATTERN'" >&2; exit 2; }
IDS=$(printf '%s\n' "$SELECTED" | cut -f1)
TOTAL=$(printf '%s\n' "$IDS" | wc -l)

# Every selected edit must match the caller's tree before anything is built.
# shellcheck disable=SC2086
table check "$HERE" $IDS || { echo "mutate.sh: the table is stale (above)" >&2; exit 2; }
if [ "$CHECK" = 1 ]; then
  echo "mutate.sh: $TOTAL mutation(s), every edit found exactly once"
  exit 0
fi

# ---- the scratch tree ------------------------------------------------------------
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rto-mutate.XXXXXX")
cleanup() {
  rm -f "$TABLE"
  if [ "$KEEP" = 1 ]; then echo "scratch tree and logs kept: $SCRATCH"; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
TREE=$SCRATCH/tree
LOGS=$SCRATCH/logs
SAVED=$SCRATCH/saved
mkdir -p "$TREE" "$LOGS"
(cd "$HERE" && git ls-files -z -co --exclude-standard) |
  (cd "$HERE" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
  tar -C "$HERE" --null -T - -cf - | tar -C "$TREE" -xf - || { echo "mutate.sh: cannot copy the tree" >&2; exit 2; }
for d in obj lib bin; do
  [ -d "$HERE/build/$d" ] && { mkdir -p "$TREE/build"; cp -a "$HERE/build/$d" "$TREE/build/$d"; }
done
TARGETS="build/bin/test-pcap-replay build/bin/pcap-replay"
FAST='*engine_*,*thresholds_test*,*stack_profiles_test*,*inference_*,*sender_view_test*,*rules_handmade_test*,*analysis_backoff_burst_test*,*setting_min_rto_test*'

export RTO_SHARED_DIR=$SHARED

build() { (cd "$TREE" && make --no-print-directory -j"$JOBS" $TARGETS) >"$1" 2>&1; }

# Runs the tests in the tree; prints "" when all passed, else what failed first.
run_tests() {  # run_tests LOG
  local log=$1 rc
  # The hand-made and white-box tests of the verdict path first (seconds),
  # then the rest (captures, tshark): a killed mutation stops early.
  (cd "$TREE" && timeout "$TEST_TIMEOUT" build/bin/test-pcap-replay --abort-after=1 --no-colors -sf="$FAST" &&
    timeout "$TEST_TIMEOUT" build/bin/test-pcap-replay --abort-after=1 --no-colors -sfe="$FAST") >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    local tc
    # The test case of the first failed assertion: doctest prints a TEST
    # CASE header before every MESSAGE too, so the first header may be a
    # passing test's.
    tc=$(awk '/^TEST CASE:/ { sub(/^TEST CASE: */, ""); tc = $0 } / (FATAL )?ERROR: / { print tc; exit }' "$log")
    [ $rc -eq 124 ] && tc="timed out after $TEST_TIMEOUT s${tc:+ in $tc}"
    echo "test-pcap-replay: ${tc:-exit status $rc}"
    return
  fi
  [ "${NO_E2E:-0}" = 1 ] && return
  (cd "$TREE" && timeout "$TEST_TIMEOUT" bash tests/e2e/lab_labels.sh) >>"$log" 2>&1
  rc=$?
  case $rc in
    0|77) ;;
    *) echo "lab_labels.sh: $(grep -m1 'FAIL' "$log" | cut -c1-100)" ;;
  esac
}

echo "mutate.sh: $TOTAL mutation(s); scratch tree $SCRATCH/tree; make -j$JOBS"
echo "building the unmutated tree..."
build "$LOGS/baseline.build" || { echo "mutate.sh: the unmutated tree does not build ($LOGS/baseline.build)" >&2; KEEP=1; exit 2; }
TEST_TIMEOUT=1200
t0=$(date +%s)
base=$(run_tests "$LOGS/baseline.test")
[ -z "$base" ] || { echo "mutate.sh: the unmutated tree fails: $base ($LOGS/baseline.test)" >&2; KEEP=1; exit 2; }
# A mutation that makes the tests hang is noticed: killed by the timeout.
TEST_TIMEOUT=$(( ( $(date +%s) - t0 ) * 5 + 60 ))
echo "baseline passes; per-mutation test timeout ${TEST_TIMEOUT} s"

killed=0 survived=0 errors=0
SURVIVORS=
while IFS=$'\t' read -r id desc files; do
  [ -n "$id" ] || continue
  start=$(date +%s)
  # What this mutation will rebuild: the objects depending on its files (by
  # their .d), the pcap-replay library and the two programs; saved to be put
  # back with their mtimes afterwards.
  rm -rf "$SAVED"; mkdir -p "$SAVED"
  deps=$(cd "$TREE" && for f in $files; do grep -l -F -- "$f" $(find build/obj -name '*.d' 2>/dev/null) /dev/null; done | sort -u)
  for d in $deps build/lib/libpcapreplay.a $TARGETS; do
    for x in "$d" "${d%.d}.o"; do
      [ -e "$TREE/$x" ] && { mkdir -p "$SAVED/$(dirname "$x")"; cp -a "$TREE/$x" "$SAVED/$x"; }
    done
  done
  for f in $files; do mkdir -p "$SAVED/src/$(dirname "$f")"; cp -a "$TREE/$f" "$SAVED/src/$f"; done

  if ! table apply "$TREE" "$id" 2>"$LOGS/$id.apply"; then
    verdict="ERROR (stale table: $(head -1 "$LOGS/$id.apply"))"; errors=$((errors + 1))
  elif ! build "$LOGS/$id.build"; then
    verdict="ERROR (does not build: $LOGS/$id.build)"; errors=$((errors + 1))
  else
    why=$(run_tests "$LOGS/$id.test")
    if [ -n "$why" ]; then verdict="KILLED by $why"; killed=$((killed + 1))
    else verdict="SURVIVED"; survived=$((survived + 1)); SURVIVORS="$SURVIVORS $id"; fi
  fi
  # Put the tree back as it was: sources, then what the build replaced.
  for f in $files; do cp -a "$SAVED/src/$f" "$TREE/$f"; done
  rm -rf "$SAVED/src"
  (cd "$SAVED" && find . -type f -print0) | (cd "$SAVED" && xargs -0 -r cp -a --parents -t "$TREE")
  case $verdict in
    SURVIVED) detail=$desc ;;
    *) detail=${verdict#* } ;;
  esac
  printf '%-28s %-8s %4ss  %s\n' "$id" "${verdict%% *}" "$(( $(date +%s) - start ))" "$detail"
done <<<"$SELECTED"

echo "total: $TOTAL mutation(s): $killed killed, $survived survived, $errors error(s)"
[ -n "$SURVIVORS" ] && echo "survived:$SURVIVORS"
[ $errors -gt 0 ] && { KEEP=1; exit 2; }
[ $survived -gt 0 ] && exit 1
exit 0
