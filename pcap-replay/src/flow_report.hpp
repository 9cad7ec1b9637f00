#pragma once
// What the analysis finds, per connection and per direction (sender), in a
// form the text, JSON and CSV writers render. Durations in microseconds.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.hpp"
#include "lockstep.hpp"
#include "options.hpp"
#include "rules.hpp"
#include "segment.hpp"

namespace replay {

/// How a data-bearing segment (SYN and FIN count as one byte) was sent.
enum class SendKind : std::uint8_t {
  first,                 ///< first transmission of new sequence space
  timeout,               ///< RTO expiry retransmission (5.4-5.6)
  syn_timeout,           ///< SYN or SYN-ACK retransmitted on its timer
  fast,                  ///< fast retransmit (3 dup ACKs, SACK or RACK evidence, ACK-triggered)
  tlp,                   ///< Linux tail-loss probe (RFC 8985): highest segment, ~2 SRTT after the last ACK
  slow_start_after_rto,  ///< rest of the window resent after an RTO, ACK-clocked (not a timer expiry)
  spurious,              ///< retransmission of data the peer had already acknowledged
  /// a retransmission (its sequence range was sent before) whose cause the
  /// capture cannot show: nothing from the peer has been seen (one-direction
  /// capture: no ACKs, no SND.UNA), or it came back-to-back with the sender's
  /// previous segment, with no ACK, timer expiry or loss evidence before it.
  /// Never counted as a timeout; no backoff.
  unclassified,
};
inline constexpr std::size_t kSendKinds = 8;

/// "send", "rto", "syn-rto", "fast-retx", "tlp", "slow-start-retx", "spurious-retx", "unclassified".
std::string_view to_string(SendKind k);

/// Where an RTT sample came from.
enum class SampleKind : std::uint8_t {
  seq,      ///< ACK time minus the send time of the oldest newly acked, never retransmitted segment (Karn)
  ts_echo,  ///< TSecr of a retransmitted segment (RFC 7323 section 4), 1 ms resolution
};

/// One event of a sender's timeline (for `timeline --csv`), with the
/// estimator state after it.
struct TimelineEvent {
  std::uint64_t frame = 0;  ///< Wireshark frame number
  CaptureTime time{};       ///< capture timestamp
  std::string_view event;  ///< SendKind name, "ack", "dup-ack"
  std::uint32_t rel_seq = 0;  ///< relative SEQ (send) or ACK (ack)
  std::optional<std::chrono::microseconds> sample;  ///< the RTT sample the event gave, if any
  std::optional<SampleKind> sample_kind;
  std::optional<std::chrono::microseconds> srtt, rttvar;  ///< estimator after the event
  std::chrono::microseconds rto{0};                       ///< RTO after the event, with backoff
  unsigned backoff = 0;                                   ///< backoff count after the event
};

/// One retransmission timeout (data or SYN) and its check.
struct TimeoutRecord {
  std::uint64_t frame = 0;     ///< Wireshark frame number of the retransmission
  CaptureTime time{};          ///< its capture timestamp
  std::uint32_t rel_seq = 0;   ///< relative SEQ retransmitted
  bool syn = false;            ///< a SYN or SYN-ACK
  unsigned backoff = 0;                 ///< k: the expiry number in its chain (1 = first)
  std::chrono::microseconds waited{0};  ///< observed: time since the timer was (re)armed
  std::chrono::microseconds predicted{0};  ///< the profile's RTO at that moment (with backoff)
  std::chrono::microseconds earliest{0};   ///< accepted window, as a wait from the same arm time
  std::chrono::microseconds latest{0};
  std::string_view armed_by;  ///< "ack", "send", "timeout", "tlp", "retransmit", "oldest-send"
  std::string_view verdict;   ///< "ok", "early", "late", or "unchecked" (no segment from the peer seen)
  /// true: `predicted` is the 5.5 expectation from the observed previous
  /// interval of the chain, min(2 x it, max RTO) (1 x for linear SYN timeouts
  /// or at the max RTO), because this or an earlier expiry of the chain
  /// departed (reported once; the rest of the chain is judged by its
  /// doubling, 5.5); `earliest`/`latest` are then that check's window.
  bool relative = false;
  std::vector<std::string> rules;  ///< ids of the findings raised at this expiry (e.g. {"2.4"}), if any
};

/// One sender (one direction of one connection).
struct SenderReport {
  Endpoint src, dst;                ///< this sender and its peer
  std::uint64_t packets = 0;        ///< segments sent by this side
  std::uint64_t data_segments = 0;  ///< data-bearing segments (incl. retransmissions)
  std::uint64_t bytes = 0;          ///< payload bytes of first transmissions
  std::array<std::uint64_t, kSendKinds> by_kind{};  ///< index = SendKind
  std::uint64_t samples_seq = 0;     ///< RTT samples from never-retransmitted data (ACK or SACK; Karn, section 3)
  std::uint64_t samples_ts = 0;      ///< RTT samples from the TSecr of retransmitted data (RFC 7323 4)
  std::uint64_t ambiguous_acks = 0;  ///< ACKs of retransmitted data that gave no sample (Karn)
  std::uint64_t keepalives = 0;      ///< keep-alives (not retransmissions)
  std::uint64_t zero_window_probes = 0;  ///< zero-window probes (not retransmissions)
  bool timestamps = false;           ///< RFC 7323 timestamps seen both ways
  bool tsval_sent = false;           ///< this sender's segments carry TSval (RFC 7323)
  bool tsval_peer = false;           ///< the peer's segments carry TSval (false also when the peer is not seen)
  bool sack = false;                 ///< SACK blocks seen from the peer
  bool peer_seen = false;  ///< any segment from the other side; without, timer rules are not checked
  std::optional<std::chrono::microseconds> srtt, rttvar;  ///< replayed estimator at the end (nullopt: no sample)
  std::chrono::microseconds rto{0};  ///< replayed RTO at the end, with backoff
  unsigned backoff = 0;              ///< replayed backoff count at the end
  std::vector<TimeoutRecord> timeouts;  ///< every timer expiry (data and SYN), capture order
  std::vector<Finding> findings;        ///< departures and notes, capture order
  std::vector<TimelineEvent> timeline;  ///< filled when Analyzer was asked to keep it

  std::uint64_t retransmissions() const;  ///< every kind but `first`
};

/// One connection (4-tuple, split on reuse), both directions.
struct FlowReport {
  // (fields below: the connection as a whole; per direction in `senders`)
  std::size_t id = 0;           ///< 1-based, in order of first packet
  std::size_t file_index = 0;
  std::string file;
  Endpoint client, server;      ///< client = the side that sent the first SYN (else the first sender)
  std::uint64_t packets = 0;     ///< segments of both directions
  std::uint64_t first_frame = 0, last_frame = 0;  ///< Wireshark frame numbers in `file`
  CaptureTime first_time{}, last_time{};
  bool saw_syn = false, saw_fin = false, saw_rst = false;  ///< flags seen on the connection
  /// Packets captured twice, ignored: every header field and the IPv4 ID equal
  /// within 10 ms; without a usable ID (IPv6, ID 0) a data segment within
  /// 0.2 ms with no peer segment between. See Analyzer::add().
  std::uint64_t capture_duplicates = 0;
  std::vector<std::uint64_t> duplicate_frames;  ///< their frame numbers
  std::array<SenderReport, 2> senders;  ///< [0] client -> server, [1] server -> client
};

/// The result of analysing one or more capture files.
struct Report {
  Options options;                      ///< what the captures were checked against
  std::vector<std::string> files;       ///< inputs, by Segment::file_index
  std::vector<Diagnostic> diagnostics;  ///< reader problems (bad frames), in file order
  std::vector<InputFile> inputs;        ///< what became of each input file, by file_index
  std::vector<FlowReport> flows;
  CaptureTime first_time{};             ///< first frame over all files (rel_time origin)
  bool have_first_time = false;
  /// Connections to one server that retried in lockstep (INFO), and herds
  /// that retried jittered; see lockstep.hpp.
  lockstep::Result lockstep;

  std::uint64_t count(Level l) const;   ///< findings of level l over all flows
  /// Exit status: 1 if any MUST finding (or SHOULD when strict), else 0.
  int exit_status(bool strict) const;
};

/// Seconds since the epoch, e.g. 1795998040.381147 (a double: about 0.1 us precision).
double to_seconds(CaptureTime t);
/// Seconds since the epoch, exact to the nanosecond: "1795998040.381147000".
std::string format_epoch(CaptureTime t);
/// Seconds from `origin` to `t`, exact to the nanosecond: "2.238000000" (may be negative).
std::string format_rel(CaptureTime t, CaptureTime origin);

}  // namespace replay
