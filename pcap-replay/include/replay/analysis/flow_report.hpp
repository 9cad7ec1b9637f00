#pragma once
// What the analysis finds, per connection and per direction (sender), in a
// form the text, JSON and CSV writers render. Durations in microseconds.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <replay/input/diagnostic.hpp>
#include <replay/analysis/lockstep.hpp>
#include <replay/analysis/options.hpp>
#include <replay/analysis/rtt_stats.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/analysis/rules.hpp>
#include <replay/input/segment.hpp>

namespace replay {

/// How a segment that occupies sequence space was sent (SYN and FIN count as
/// one byte), or what else a probe of the sender was.
enum class SendKind : std::uint8_t {
  first,                 ///< first transmission of new sequence space
  timeout,               ///< RTO expiry retransmission (5.4-5.6)
  syn_timeout,           ///< SYN or SYN-ACK retransmitted on its timer
  fast,                  ///< fast retransmit (3 dup ACKs, SACK or RACK evidence, ACK-triggered)
  tlp,                   ///< tail-loss probe (RFC 8985 7.3) resending the highest segment, ~2 SRTT after the last ACK
  slow_start_after_rto,  ///< rest of the window resent after an RTO, ACK-clocked or in its burst (not an expiry)
  spurious,              ///< retransmission of data the peer had already acknowledged
  /// a retransmission (its sequence range was sent before) whose cause the
  /// capture cannot show: nothing from the peer has been seen (one-direction
  /// capture: no ACKs, no SND.UNA), or it came back-to-back with the sender's
  /// previous segment, with no ACK, timer expiry or loss evidence before it.
  /// Never counted as a timeout; no backoff.
  unclassified,
  /// not a retransmission by the sender: a first transmission seen out of
  /// order (it fills a hole no earlier segment covered, soon after the
  /// highest), or an old copy delayed in the network (its TSval is older than
  /// what the sender had already sent). As tshark's tcp.analysis.out_of_order.
  out_of_order,
  /// a SYN-ACK sent again in reply to the peer's duplicate SYN (Linux
  /// tcp_check_req): an answer, not its timer's expiry.
  syn_reply,
  /// new data sent by the loss-probe timer (RFC 8985 7.3: a probe sends new
  /// data when it can): a first transmission that re-arms the RTO.
  tlp_new_data,
  /// a keep-alive (RFC 9293 3.8.4): one byte or none just below SND.UNA with
  /// nothing outstanding and a window open. Not a retransmission.
  keepalive,
  /// a zero-window probe (RFC 9293 3.8.6.1): into a zero window. Not a retransmission.
  zero_window_probe,
};
inline constexpr std::size_t kSendKinds = 13;
/// Whether a segment of kind `k` is a retransmission by the sender (every
/// kind but first, out_of_order, tlp_new_data, keepalive and zero_window_probe).
bool is_retransmission(SendKind k);

/// "send", "rto", "syn-rto", "fast-retx", "tlp", "slow-start-retx", "spurious-retx", "unclassified",
/// "out-of-order", "syn-reply", "tlp-new", "keepalive", "zero-window-probe".
std::string_view to_string(SendKind k);


/// The verdict on one expiry's timing.
enum class Verdict : std::uint8_t {
  ok,         ///< inside the accepted window
  early,      ///< before it (a finding says which rule)
  late,       ///< after it (never a departure)
  unchecked,  ///< nothing from the peer seen, or the wait is unknown: not judged
  cannot_tell,  ///< the readings (or the wait interval) hold both a compliant and a departing value
  setting,      ///< outside the window the profile's defaults give, where a documented setting of the stack
                ///< puts it (Linux rto_min, Windows InitialRto): the expiry's INFO names it; not a departure
};
/// "ok", "early", "late", "unchecked", "cannot-tell", "setting".
std::string_view to_string(Verdict v);
/// Whether an expiry with verdict `v` is on the timing of its reading: ok,
/// not judged, or where a setting the reading notes puts it (the choice
/// between readings counts the rest as off; ReadingScore counts settings apart).
constexpr bool on_time(Verdict v) { return v == Verdict::ok || v == Verdict::unchecked || v == Verdict::setting; }

/// Which clock an expiry's backoff was judged on.
enum class ClockUsed : std::uint8_t {
  capture,  ///< the capture's timestamps
  tsval,    ///< the sender's RFC 7323 TSval clock (the capture clock disagreed)
};
/// "capture", "tsval".
std::string_view to_string(ClockUsed c);

/// Where an RTT sample came from.
enum class SampleKind : std::uint8_t {
  seq,      ///< ACK time minus the send time of the oldest newly acked, never retransmitted segment (Karn)
  ts_echo,  ///< TSecr of a retransmitted segment (RFC 7323 section 4), 1 ms resolution
};
/// "karn", "ts_echo" (the timeline's words: timeline --csv, a JSON timeline).
std::string_view to_string(SampleKind k);

/// The timeline event of a packet of this sender captured again: a copy
/// of an earlier frame (FlowReport::duplicate_frames), not a transmission.
/// Its row names the copied frame (TimelineEvent::copy_of) and carries the
/// estimator state of the row before it (a copy changes nothing).
inline constexpr std::string_view kCaptureCopyEvent = "capture-copy";
/// The timeline event of an RTT sample held until the sender must have
/// processed the ACK that gave it (a capture point away from the sender),
/// taken then: its frame is the ACK's.
inline constexpr std::string_view kHeldSampleEvent = "held-sample";

/// One event of a sender's timeline (for `timeline --csv`), with the
/// estimator state after it.
struct TimelineEvent {
  std::uint64_t frame = 0;  ///< Wireshark frame number
  CaptureTime time{};       ///< capture timestamp
  /// SendKind name (a segment the sender sent), "ack", "dup-ack", "sack"
  /// (the peer's, as the sender saw it), kCaptureCopyEvent, or kHeldSampleEvent.
  std::string_view event;
  std::uint32_t rel_seq = 0;  ///< relative SEQ (send) or ACK (ack)
  std::optional<std::chrono::microseconds> sample;  ///< the RTT sample the event gave, if any
  std::optional<SampleKind> sample_kind;
  std::optional<std::chrono::microseconds> srtt, rttvar;  ///< estimator after the event
  std::chrono::microseconds rto{0};                       ///< RTO after the event, with backoff
  unsigned backoff = 0;                                   ///< backoff count after the event
  /// Sequence space the event covers, in bytes: a send's payload length plus
  /// one for SYN and one for FIN (its range is [rel_seq, rel_seq + len)); 0
  /// for the peer's ACKs. For the time-sequence graph.
  std::uint32_t len = 0;
  /// The SACK blocks (RFC 2018 section 3) of a peer's ACK, relative to this
  /// sender's ISN as rel_seq, [left, right); the first sack_count are valid.
  std::array<std::pair<std::uint32_t, std::uint32_t>, 4> sack{};
  std::uint8_t sack_count = 0;
  /// kCaptureCopyEvent: the frame of the datagram's first capture, which
  /// this frame copies (0 for every other event).
  std::uint64_t copy_of = 0;
};

/// One retransmission-timer expiry (data or SYN) and the judgement of its wait.
struct TimeoutRecord {
  std::uint64_t frame = 0;     ///< Wireshark frame number of the retransmission
  CaptureTime time{};          ///< its capture timestamp
  std::uint32_t rel_seq = 0;   ///< relative SEQ retransmitted
  bool syn = false;            ///< a SYN or SYN-ACK
  /// k: the expiry's position in its chain (1 = first): the expiries since
  /// the last valid RTT sample (5.5's backoff lasts until one, section 3).
  unsigned expiry = 0;
  /// The observed wait since what armed the timer (`armed_by`): an interval,
  /// because the capture may not show when the sender armed it (an ACK it
  /// received after the capture saw it; Linux's deadline from the head's
  /// send time). From the second expiry of a chain on, the wait since the
  /// previous expiry.
  Interval wait{};
  /// The capture clock stepped back between the arm and the expiry (a step
  /// larger than limits::kClockReorderMax): `wait` is unknown (not shown),
  /// the verdict is unchecked and an INFO judgement at the frame says why.
  bool wait_unknown = false;
  Basis basis = Basis::profile_rto;  ///< what `predicted` rests on
  /// The wait predicted before this expiry was compared: the profile's RTO
  /// with the backoff so far (Basis::profile_rto), or from the second expiry
  /// on the chain's own RTO doubled (Basis::doubling), fitted to its earlier
  /// waits.
  Interval predicted{};
  Interval accepted{};  ///< predicted with the timer's lateness and the tolerance
  /// Where the departure the check exists to catch would fall: a wait that
  /// did not double (5.5), or one that fired before the RTO (5.3/5.6).
  std::optional<Interval> alternative;
  ArmCause armed_by = ArmCause::send;  ///< what armed the timer the wait counts from
  Verdict verdict = Verdict::ok;
  ClockUsed clock = ClockUsed::capture;  ///< the clock the wait was read on
  /// The readings of the capture considered for this expiry (an expiry or a
  /// tail-loss probe; the timer's lateness) and whether each keeps the rules.
  std::vector<ReadingResult> readings;
  std::vector<RuleId> rules;  ///< the rules judged broken or undecided at this expiry (e.g. {2.4})
};

/// Where the sender's stack floors its RTO, as its first expiries show it.
enum class RtoFloor : std::uint8_t {
  unknown,   ///< no data expiry after a sample, or none whose wait shows the floor
  sum,       ///< a first expiry on time against the floored RTO, outside the floorless one's window (2.4)
  variance,  ///< below 1 s: a floor on the variance term (Linux rto_min), or none
};
/// "unknown", "sum", "variance".
std::string_view to_string(RtoFloor f);

/// What the sender did with 5.7 after a SYN timeout, as far as the wire shows.
enum class Seen57 : std::uint8_t {
  unknown,      ///< no SYN timeout, or nothing to see it by
  kept_3s,      ///< its first data expiry waited 3 s or more
  not_kept,     ///< it fired before 3 s (a 5.7 judgement)
  not_visible,  ///< the next sample came first (or the capture ended)
};
/// "unknown", "3 s", "kept the sample's RTO", "not visible".
std::string_view to_string(Seen57 s);

/// What the sender's stack does, read from its own expiries and probes (as
/// the engine under the judged profile classified them). A setting is read
/// only from evidence the later frames do not refute (a cap from a plateau
/// of at least two expiries, a constant lateness from a chain it explains).
/// Each optional is unset when the capture does not show it; `evidence`
/// lists the frames it was read from. report/ words it (inferred_text.hpp).
struct InferredSettings {
  std::optional<std::chrono::microseconds> initial_rto;  ///< first SYN wait, or first data wait with no sample yet
  std::vector<std::chrono::microseconds> syn_waits;      ///< the SYN timer's waits, in order
  std::optional<unsigned> syn_linear;   ///< SYN expiries that kept the RTO before doubling
  RtoFloor floor = RtoFloor::unknown;
  std::optional<std::chrono::microseconds> min_first_wait;  ///< shortest first-expiry wait with samples
  std::optional<std::chrono::microseconds> plateau;  ///< the cap the backoff was held at (a plateau of expiries)
  std::optional<std::chrono::microseconds> additive;  ///< a constant lateness the chains show: waits = RTO x 2^k + it
  std::optional<std::chrono::microseconds> lateness;  ///< largest observed wait beyond the prediction (within the window)
  std::uint64_t probes = 0;        ///< tail-loss probes sent (the sender's `tlp` count)
  unsigned linear_data = 0;        ///< data expiries that kept the RTO (thin-stream linear timeouts?)
  std::optional<double> tsval_hz;  ///< the TSval clock's rate
  Seen57 fallback_57 = Seen57::unknown;
  std::vector<std::string_view> settings;  ///< the documented settings its judgements relied on
  std::vector<std::string_view> ties;      ///< other profiles that fit as well (--profile auto)
  std::vector<std::uint64_t> evidence;     ///< frames the settings were read from
};

/// One sender (one direction of one connection).
/// (The members most segments update come first, in one cache line: the
/// replay of a capture is bound by the lines each segment touches.)
struct SenderReport {
  bool timestamps = false;           ///< RFC 7323 timestamps seen both ways
  bool tsval_sent = false;           ///< this sender's segments carry TSval (RFC 7323)
  bool tsval_peer = false;           ///< the peer's segments carry TSval (false also when the peer is not seen)
  bool sack = false;                 ///< SACK blocks seen from the peer
  bool peer_seen = false;  ///< any segment from the other side; without, timer rules are not checked
  std::uint64_t packets = 0;        ///< segments sent by this side
  std::uint64_t data_segments = 0;  ///< data-bearing segments (incl. retransmissions)
  std::uint64_t bytes = 0;          ///< payload bytes of first transmissions
  std::uint64_t samples_seq = 0;     ///< RTT samples from never-retransmitted data (ACK or SACK; Karn, section 3)
  std::uint64_t samples_ts = 0;      ///< RTT samples from the TSecr of retransmitted data (RFC 7323 4)
  std::uint64_t ambiguous_acks = 0;  ///< ACKs of retransmitted data that gave no sample (Karn)
  /// Samples the estimator refused (over 1 hour, rto::Estimator::on_rtt_sample:
  /// a capture clock that jumped); in neither count nor the RTT statistics.
  std::uint64_t samples_refused = 0;
  // (The counters every segment or sample updates come first, then the
  // first kinds of by_kind: two cache lines per segment, not four.)
  RttStats rtt_karn;                 ///< the samples_seq samples: min/avg/max/stdev (tcptrace -l -r's "RTT")
  std::array<std::uint64_t, kSendKinds> by_kind{};  ///< index = SendKind
  std::uint64_t keepalives = 0;      ///< keep-alives (not retransmissions)
  std::uint64_t zero_window_probes = 0;  ///< zero-window probes (not retransmissions)
  RttStats rtt_ts_echo;              ///< the samples_ts samples (at the TSval clock's resolution)
  Endpoint src, dst;                ///< this sender and its peer
  /// The profile this sender was judged against (--profile, or the best fit under auto).
  std::string_view profile;
  InferredSettings inferred;
  std::optional<std::chrono::microseconds> srtt, rttvar;  ///< replayed estimator at the end (nullopt: no sample)
  std::chrono::microseconds rto{0};  ///< replayed RTO at the end, with backoff
  unsigned backoff = 0;              ///< replayed backoff count at the end
  /// The round trip from the capture point to this sender that each RTT
  /// sample was corrected by at the end (nullopt: none known, read as at the
  /// sender; 0: captured there). The replayed estimator reads the samples
  /// from uncorrected to corrected.
  std::optional<std::chrono::microseconds> capture_rtt;
  /// capture_rtt is an upper bound only: which SYN the first SYN-ACK
  /// answers the capture could not tell (the SYN-ACK timer's bound), or an
  /// ACK of the peer's data bounded it.
  bool capture_rtt_bound = false;
  std::vector<TimeoutRecord> timeouts;  ///< every timer expiry (data and SYN), capture order
  /// The judgement log: every rule broken or undecided, and every note. The
  /// analysis appends each once settled (a chain's when it ends) and never
  /// edits one; when the sender is finished the log is ordered by frame
  /// (stable), the order the reports show.
  std::vector<Judgement> findings;
  std::vector<TimelineEvent> timeline;  ///< filled when Analyzer was asked to keep it

  std::uint64_t retransmissions() const;  ///< segments of the kinds is_retransmission() names
};

/// A connection opened on a 4-tuple while another connection of that
/// 4-tuple went on (analysis/flow_table.hpp): another host behind one of the
/// addresses. A SYN-ACK with another ISN than the earlier SYN-ACK answering
/// the same SYN is another server's answer, not a retransmission of it; a SYN
/// with another ISN from another TSval clock is another client's.
struct AlongsideOf {
  std::size_t flow = 0;         ///< the connection that went on (FlowReport::id)
  bool server = true;           ///< the new host is the server (a SYN-ACK), else the client (a SYN)
  std::uint32_t isn = 0;        ///< the ISN of this connection's SYN or SYN-ACK
  std::uint32_t other_isn = 0;  ///< that side's ISN in `flow`
  /// For a server: the frame of the client's SYN it answers, which begins
  /// this connection too (the one frame in both; 0: not kept, this
  /// connection begins with the SYN-ACK).
  std::uint64_t syn_frame = 0;
  /// Its TSval cannot come from the clock of that side in `flow`
  /// (limits::kMaxTsvalHz): true, another host; false: it could be the
  /// same host answering anew (a SYN cookie, a request it forgot);
  /// nullopt: no TSval to tell.
  std::optional<bool> another_clock;
};

/// One connection (4-tuple, split on reuse), both directions.
/// A connection as a whole, as the analysis holds it while the connection is
/// read (Analyzer: one per open connection, so kept small) and as its report
/// states it (FlowReport).
struct FlowHead {
  Endpoint client, server;       ///< client = the side that sent the first SYN (else the first sender)
  std::uint32_t file_index = 0;  ///< Segment::file_index: which input file (an index into the command line's)
  /// SEQ of the SYN (without ACK) that is the connection's first segment, when it is one.
  std::optional<std::uint32_t> syn_isn;
  bool saw_syn = false, saw_fin = false, saw_rst = false;  ///< flags seen on the connection
  /// One of its packets is among Options::frames (-Y frame.number), captured again or not.
  bool has_selected_frame = false;
  std::uint64_t packets = 0;                      ///< segments of both directions
  std::uint64_t first_frame = 0, last_frame = 0;  ///< Wireshark frame numbers in its file
  CaptureTime first_time{}, last_time{};
};

struct FlowReport : FlowHead {
  // (FlowHead's fields: the connection as a whole; per direction in `senders`)
  std::size_t id = 0;  ///< 1-based, in order of first packet
  std::string file;    ///< its input file's name (FlowHead::file_index)
  /// Copies of its packets captured again (on another interface, VLAN or
  /// capture point), ignored: the rule and its windows are stated once in
  /// thresholds.hpp ("one datagram captured more than once"). A copy seen on
  /// another virtual network counts here, where its datagram was first seen.
  std::uint64_t capture_duplicates = 0;
  std::vector<std::uint64_t> duplicate_frames;  ///< their frame numbers, capture order
  /// duplicate_of[i]: the frame duplicate_frames[i] copies (the datagram's
  /// first capture; a third capture names the first too).
  std::vector<std::uint64_t> duplicate_of;
  /// The virtual networks (VLAN ids, VNIs: VirtualNetwork) its packets were
  /// seen on, its first segment's first (an empty one: untagged); empty when
  /// none was ever tagged. Two when each direction has its own, or when
  /// copies were seen on another.
  std::vector<VirtualNetwork> vnets;
  /// Another connection of its 4-tuple on another virtual network was open
  /// at the same time: Wireshark, which keys conversations by addresses and
  /// ports, merges their frames; its display filter names the network.
  bool vnet_apart = false;
  /// Opened while another connection of its 4-tuple went on (another host).
  std::optional<AlongsideOf> alongside;
  std::array<SenderReport, 2> senders;  ///< [0] client -> server, [1] server -> client
  /// Analysed by another shard (Options::shard_n > 1, Options::owns false):
  /// only the connection's fields are set (what tcp.stream numbering needs),
  /// its senders' reports are empty, and no count of the Report has it.
  bool elsewhere = false;
};

/// What the end of a report needs of the connections a flow sink wrote and
/// the Analyzer then dropped (Analyzer::set_flow_sink, SinkMode::keep_reports
/// false): the summary's counts.
struct FlowTotals {
  std::uint64_t flows = 0;            ///< connections
  std::uint64_t retransmissions = 0;  ///< SenderReport::retransmissions() of their senders, summed
  std::uint64_t timeouts = 0;         ///< their senders' timer expiries (SenderReport::timeouts)
  std::array<std::uint64_t, 4> findings{};  ///< their senders' findings, by Level (index = Level)
  /// Adds connection `f` to the totals.
  void add(const FlowReport& f);
  /// Adds other connections' totals.
  void add(const FlowTotals& other);
};

/// A resource limit a run hit (Report::limit_hits), where the input was when
/// it did: by that position a merge of shards (`pcap-replay merge`) orders
/// the shards' hits as one run would have had them.
struct LimitHit {
  std::size_t file_index = 0;  ///< Segment::file_index
  std::uint64_t frame = 0;
  std::string message;         ///< names file, frame and flag
};

/// The result of analysing one or more capture files.
struct Report {
  Options options;                      ///< what the captures were checked against
  std::vector<std::string> files;       ///< inputs, by Segment::file_index
  std::vector<Diagnostic> diagnostics;  ///< reader problems (bad frames), in file order
  std::vector<InputFile> inputs;        ///< what became of each input file, by file_index
  /// The connections kept (every one, unless a flow sink wrote them and they
  /// were dropped: see `streamed`).
  std::vector<FlowReport> flows;
  /// The connections written by a flow sink and then dropped, as totals.
  FlowTotals streamed;
  /// Every connection (kept or streamed) as totals per input file, by file_index.
  std::vector<FlowTotals> file_totals;
  /// The report's origin: frame 1 of the first input read by analyze_files
  /// (Wireshark frame.time_relative), else the earliest segment. A
  /// connection's times count from its own file's frame 1 (origin_of).
  CaptureTime first_time{};
  bool have_first_time = false;
  /// Connections to one server that retried in lockstep (INFO), and herds
  /// that retried jittered; see lockstep.hpp.
  lockstep::Result lockstep;
  /// Resource limits the run hit (--max-flows, --max-outstanding): one
  /// message each, naming file, frame and flag; the CLI prints them on
  /// stderr and exits 2. Empty when the whole input was analysed.
  std::vector<LimitHit> limit_hits;
  std::uint64_t dropped_segments = 0;  ///< segments not analysed because of a limit
  /// Connections the input holds (within --max-flows), whoever analysed
  /// them: flow_count() and more when the run is a shard (Options::shard_n).
  std::uint64_t input_flows = 0;
  /// Reader diagnostics beyond limits::kMaxDiagnostics: counted, not kept
  /// (skipped frames, and frames analysed with a warning).
  std::uint64_t dropped_skipped = 0, dropped_warned = 0;

  std::uint64_t count(Level l) const;   ///< findings of level l over all flows (kept and streamed)
  /// Where the times of file `file_index`'s connections count from: its own
  /// frame 1, as Wireshark opening that file shows them (InputFile::
  /// first_frame_time), else first_time.
  CaptureTime origin_of(std::size_t file_index) const {
    if (file_index < inputs.size() && inputs[file_index].first_frame_time) return *inputs[file_index].first_frame_time;
    return first_time;
  }
  /// Connections analysed: the kept ones and the streamed (dropped) ones.
  std::uint64_t flow_count() const { return streamed.flows + flows.size(); }
  /// Exit status: 1 if any MUST finding (or SHOULD when strict), else 0.
  int exit_status(bool strict) const;
};

/// Seconds since the epoch, e.g. 1795998040.381147 (a double: about 0.1 us precision).
double to_seconds(CaptureTime t);
/// Seconds since the epoch, exact to the nanosecond: "1795998040.381147000".
std::string format_epoch(CaptureTime t);
/// Seconds from `origin` to `t`, exact to the nanosecond: "2.238000000" (may
/// be negative); no overflow for any two capture times (128-bit difference).
std::string format_rel(CaptureTime t, CaptureTime origin);
/// Seconds from `origin` to `t` (negative when `t` is earlier), as a double;
/// no overflow for any two capture times (the report writers' time arithmetic).
double seconds_between(CaptureTime t, CaptureTime origin);

}  // namespace replay
