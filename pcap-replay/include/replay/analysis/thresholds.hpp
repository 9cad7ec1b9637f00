#pragma once
// Every heuristic threshold of the analysis, stated once (the reader's
// limits are the input room's: input/reader_limits.hpp). Each is a property
// of real TCP stacks or of capture equipment, not a tuning knob: the comment
// says what it stands for, and tests/pcap-replay/thresholds_test.cpp has a
// keep/break pair at each boundary. The report's explanatory text is written
// from these values (see describe_thresholds()).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <replay/input/reader_limits.hpp>  // the reader's limits, in the same namespace

namespace replay::limits {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// ---- what is a timer expiry ---------------------------------------------

/// A threshold that is a fraction num/den, applied exactly (integer
/// arithmetic: no floating point on the verdict path).
struct Ratio {
  std::int64_t num, den;
  /// x * num / den, truncated as integer division is (x: an integer or a duration).
  template <class T>
  constexpr T of(T x) const {
    return x * num / den;
  }
  /// Whether a / b reaches num / den (b > 0): a * den >= b * num, no division.
  template <class T>
  constexpr bool reached_by(T a, T b) const {
    return a * den >= b * num;
  }
};

/// No retransmission timer of any stack fires sooner than this after the
/// event that armed it: Linux's shortest timer is the loss probe at
/// 2*SRTT + 2 jiffies (8 ms at HZ=250, tcp_schedule_loss_probe); RTOs are at
/// least 200 ms (Linux rto_min), 30 ms + 200 ms slop (FreeBSD), 300 ms
/// (Windows). A repeat sent sooner than this after the sender's previous
/// transmission, with no quiet period, or sooner than this after a segment
/// from the peer, was not sent on a timer (ACK clock, go-back-N burst).
/// The same segment sent again this soon with nothing from the peer between
/// was sent by nothing at all that moment: the two left a timer's wait apart
/// and were held before the capture point (HoldSign::repeat).
inline constexpr microseconds kMinTimerWait{5'000};

/// A segment sent within this time of a segment from the peer is taken as a
/// response to it (ACK clock) when the capture is at the sender. With the
/// capture elsewhere the response comes one capture-to-sender round trip d
/// (measured in the handshake) after the peer segment it answers, or sooner
/// (the capture may see the peer's segment late as well): within
/// d x (1 + kAckClockBand) plus this.
inline constexpr microseconds kAckClockMin{2'000};
/// See kAckClockMin: the relative width of the band around the
/// capture-to-sender round trip in which a response shows up (path jitter,
/// the sender's own processing). Below, the band is taken from the quickest
/// answer the capture has shown (the sender's first ACK of the peer's data,
/// or the handshake's round trip if less): no response is captured sooner
/// than that less this fraction of it; before any answer, from 0.
inline constexpr Ratio kAckClockBand{1, 2};
/// How many of the peer's latest segments a response may answer.
inline constexpr std::size_t kAckClockHistory = 32;
/// A segment sent within this time of the sender's previous segment, which
/// was itself a response to the peer, belongs to the same response (one ACK
/// releases several segments back to back); new data this soon behind new
/// data read as a loss probe left with it in one transmission, which no
/// probe is (a probe sends one segment: a write sent both).
inline constexpr microseconds kResponseTrain{200};

/// A capture-to-sender round trip (the sender's response time in the
/// handshake, as the capture saw it) below this means the capture was taken
/// at the sender: RTT samples are used as measured. Above it, the round trip
/// is added to every sample and to every timing tolerance.
inline constexpr microseconds kCaptureAtSender{1'000};


/// After a timeout, the go-back-N burst (RFC 5681 3.1): a repeat sent,
/// with no segment from the peer since, less than this fraction of the
/// expiry's wait after the previous retransmission of the burst is part of
/// the burst, not a further expiry (a further expiry comes no sooner than
/// the backed-off RTO, i.e. about 1x to 2x the previous wait).
inline constexpr Ratio kBurstFraction{1, 2};

/// RACK's reordering timer (RFC 8985 6.2) fires a fraction of an RTT after
/// an ACK that showed a hole: a timer-driven repeat with loss evidence within
/// max(SRTT, this) of the last ACK is RACK, not an RTO.
inline constexpr microseconds kRackWindowFloor{10'000};

// ---- the network, not the sender -----------------------------------------

/// A repeat whose TSval is at least this many TSval ticks older than the
/// newest TSval the sender had already sent is an old copy delayed in the
/// network (RFC 7323: TSval is monotonic, a retransmission carries the
/// current one), not a retransmission.
inline constexpr std::uint32_t kOldTsvalTicks = 2;

/// A segment that fills a hole in the sequence space no earlier segment of
/// the capture covered, sent within max(handshake RTT, this) of the highest
/// segment, is a reordered first transmission (as tshark's
/// tcp.analysis.out_of_order), not a retransmission.
inline constexpr microseconds kReorderWindowFloor{3'000};

/// A sender whose profile numbers each connection's IPv4 packets with a
/// counter of its own (StackProfile::ip_id_per_connection) is read by its
/// IDs only where this many steps of exactly one in a row, on the
/// connection and up to the packet a skip follows, show the counter (a
/// stack that sends ID 0, or a random ID, never shows it; after a packet
/// that may be a GSO packet, its step, of its segment count, is not read).
inline constexpr unsigned kIpIdCounterRun = 3;
/// New data after exactly this many of the sender's packets the capture
/// did not see (its counter skipped them), on a loss probe's time from when
/// the unseen one can have left, is read as the probe resending it (the
/// original lost before the capture point: a receiver-side capture's tail
/// loss). With more unseen, which of them carried the data, and what the
/// others were, is open: read as new data.
inline constexpr unsigned kUnseenOriginalPackets = 1;

// ---- one datagram captured more than once (analysis/capture_copy.hpp) ---
// A segment is a copy of another (one datagram seen twice: two interfaces,
// the VLANs of a tap, a mirror port, a router's way in and out, a host's
// capture inside and outside a tunnel), not a retransmission, when both have
// the same addresses, ports, TCP header (SEQ, ACK, flags, window, payload
// length, TSval and TSecr, SACK blocks) and TCP checksum; when both are IPv4,
// the same ID and, at the same TTL, the same IPv4 header checksum (a router
// between two capture points lowers the TTL and rewrites the checksum; at
// one TTL another checksum is another header, e.g. a retransmission without
// ECT, RFC 3168 6.1.5); and when they are within the window of what proves
// them one datagram (either order: capture points timestamp independently).
// Different IDs are always two datagrams. The virtual network may differ:
// the copy on VLAN 20 of a packet first seen on VLAN 10 is a copy.

/// A non-zero IPv4 ID from a sender that numbers its datagrams (no two of
/// its segments in a row in the connection carried the same ID) names one
/// datagram: a resend gets a new ID however soon, so the window only bounds
/// how far apart two capture points may timestamp it (a mirror's queue,
/// interfaces buffered apart before they were merged into one file: copies
/// 50 ms apart are seen, arkime's wireshark-retrans.pcap), counted from the
/// datagram's latest capture. Some stacks reuse the ID for a resend, which
/// shows only once they do it twice in a row (zeek's pppoe-over-qinq.pcap:
/// FINs resent with one ID; before that, a segment resent with its ID 182 ms
/// after the original): half the 200 ms RTO floor of the fastest stacks
/// (Linux's rto_min) keeps such a resend out.
inline constexpr microseconds kSameIdWindow{100'000};
/// Without an ID that names the datagram (IPv6, ID 0 as many stacks send
/// with DF, a sender seen repeating its IDs): a segment that occupies
/// sequence space (identical pure ACKs are real duplicate ACKs), nothing
/// from the peer between the two (so no ACK triggered a resend), and the
/// same TSval. Only a timer could have resent it, within one tick of the
/// sender's TSval clock; at 1 kHz (Linux, FreeBSD, Darwin, Windows) a resend
/// 1 ms later carries another TSval, and no stack whose clock is 100 Hz or
/// slower fires a timer this soon. Except one pair of sends that can leave
/// within one tick, on a capture that has shown no copy in the connection:
/// a SYN-ACK within the response window of the peer's SYN sent again at a
/// time the SYN-ACK timer can be due (with its backoff), and the same
/// SYN-ACK sooner than kMinTimerWait after it and within that window, are
/// the timer's and the answer (both due 1 s after the first exchange, they
/// cross: SenderEngine::second_of_held_synack).
inline constexpr microseconds kSameTsvalWindow{10'000};
/// As above, without a TSval either: only a near-simultaneous copy. On a
/// 0.1 ms path a fast retransmit comes ~0.1 ms after the original (but
/// after a duplicate ACK from the peer, which rules it out).
inline constexpr microseconds kNoIdWindow{200};

// ---- connection identity (analysis/flow_table.hpp) ---------------------

/// A side's first segment on a 4-tuple joins the conversation whose other
/// side was seen on another virtual network (a capture where each direction
/// has its own VLAN, or one is untagged: a tap's two ports, a router's two
/// sides) only when it acknowledges what that side sent there: its ACK at
/// most the end of the peer's highest segment seen and no more than this
/// behind it (16 MiB: more than the data in flight of any window seen);
/// else it is another conversation on its own virtual network.
inline constexpr std::uint32_t kJoinAckSlack = 1u << 24;
/// RFC 7323 5.4: a TSval clock ticks between once a millisecond and once a
/// second. A SYN-ACK that follows another of the same 4-tuple with a TSval
/// lower, or higher by more than this rate times the time between them plus
/// one tick, comes from another clock: another host behind the address.
inline constexpr std::uint32_t kMaxTsvalHz = 1000;

// ---- judging an expiry ---------------------------------------------------

/// RFC 6298 2.4's floor: a first expiry at least this long (within the
/// tolerance) reads as a floor on the sum; a shorter one as a floor on the
/// variance term (Linux rto_min) or none.
inline constexpr microseconds kRfcMinRto{1'000'000};

/// A chain's waits "grew" (inference: no plateau, no cap read from them)
/// where one is at least this factor (x 3/2) of the previous.
inline constexpr Ratio kDoublingExpected{3, 2};

// ---- reading a sender's settings (inference.hpp) -------------------------

/// Two waits are "the same" (a linear timeout, a plateau) within this
/// percentage of the larger plus kSameWaitTicks.
inline constexpr unsigned kSameWaitPercent = 10;
/// See kSameWaitPercent: the absolute part (timer ticks and wheel buckets).
inline constexpr microseconds kSameWaitTicks{4'000};

// ---- the sender's TSval clock -------------------------------------------

/// The TSval clock's rate is fitted over at least this span of capture time.
inline constexpr microseconds kTsClockMinSpan{200'000};
/// A fitted rate within this percentage of a common rate (1, 10, 100, 250,
/// 1000 Hz) snaps to it.
inline constexpr unsigned kTsRateTolerancePercent = 5;
/// When the capture clock and the sender's TSval clock disagree on an
/// interval by more than this many TSval ticks (their quantisation: a
/// capture app on the device, a busy tap batching timestamps, a queue
/// between sender and capture), a wait that departs on the capture clock is
/// judged on the TSval clock too, and the report says which clock was used.
inline constexpr std::int64_t kClockDisagreeTicks = 2;
/// Two TSvals of a sender are read as at least their ticks less one apart
/// at kMaxTsvalHz (TsClock::least_between) only while the clock has not run
/// faster than this many times kMaxTsvalHz over the capture time since its
/// first TSval (room for a first segment held on its way; a microsecond
/// clock runs a thousand times faster).
inline constexpr std::int64_t kFastTsvalFactor = 2;

// ---- a host's queue flushed at once --------------------------------------

/// A host silent this long whose next packets come in a burst...
inline constexpr microseconds kFlushSilence{500'000};
/// ...within this window of the first of them...
inline constexpr microseconds kFlushWindow{5'000};
/// ...one of which its own TSval shows sent at least this long before it was
/// captured (its TSval-to-capture offset this much above its connection's
/// least): the burst was held in a queue and flushed (host_activity.hpp).
inline constexpr microseconds kFlushHeld{100'000};

/// RFC 1122 4.2.3.2: an ACK is never delayed more than 0.5 s. A pure ACK
/// that first acknowledges data the capture saw arrive longer ago than this
/// was held between the sender and the capture point (with the capture
/// near the sender, its own queue): it proves a burst flushed as kFlushHeld does.
inline constexpr microseconds kDelayedAckMax{500'000};
/// The least full-sized segment a receiver assumes (RFC 9293 3.7.1's
/// default MSS; Linux's initial rcv_mss, TCP_MSS_DEFAULT): more than this,
/// and more than the peer's largest segment, acknowledged at once is an ACK
/// no receiver delays (HostFeed::prompt_capture_acked).
inline constexpr std::uint32_t kDefaultMss = 536;
/// How many of the peer's latest data segments a pure ACK is matched against.
inline constexpr std::size_t kPeerDataHistory = 64;

// ---- the pictures (report_html, plot --svg) ------------------------------
// Not heuristics of the analysis: limits that keep a page readable and small.

/// At most this many transmissions (first and repeated, each kind counted
/// apart), ACKs, and estimator steps drawn per graph; a longer series is
/// decimated to every n-th point (n = ceil(count / this)) and the graph says so.
inline constexpr std::size_t kPlotMaxPoints = 2'000;
/// The estimator graph uses a log scale when its largest plotted value
/// (RTO, SRTT, RTTVAR, ms) is at least this many times its smallest
/// positive one: two decades, where a linear axis flattens SRTT to the floor.
inline constexpr double kPlotLogRatio = 100.0;
/// The HTML page shows this many senders' sections open (the worst first);
/// the rest are collapsed (<details>), so a page of 100+ connections stays readable.
inline constexpr std::size_t kHtmlOpenSenders = 8;
/// The HTML page gives at most this many senders (the worst first) a
/// section with a picture; the others are one row each of a table (their
/// pictures: `pcap-replay plot --svg DIR`), so a capture of thousands of
/// connections makes a page of a few MB, not hundreds.
inline constexpr std::size_t kHtmlMaxSections = 100;
/// A retransmission episode (plot/sender_graph.hpp) gets a zoomed picture of
/// its own when, padded, it spans less than this share of the sender's
/// whole picture: below it, its expiries and windows crowd together there.
inline constexpr double kZoomBelowShare = 0.25;
/// An episode's picture shows this share of the episode's span before and
/// after it (and at least kZoomMinPad), so its arming and what followed show.
inline constexpr double kZoomPadShare = 0.15;
inline constexpr std::chrono::milliseconds kZoomMinPad{20};
/// Zoomed pictures per sender on the HTML page (its first episodes).
inline constexpr std::size_t kZoomMaxEpisodes = 3;

/// One line naming these values, for the report's explanation.
std::string describe_thresholds();

// ---- resources (not heuristics: bounds on what one run may hold) ---------

/// Default of --max-flows: connections one run analyses. Each finished
/// connection's report stays in memory until the report is written (about
/// 2 KB each), so this bounds the run to a few GB; the connections after it
/// are not analysed (named on stderr, exit status 2).
inline constexpr std::size_t kDefaultMaxFlows = 4'000'000;
/// Default of --max-outstanding: unacknowledged segments one sender may have.
/// Above any real window: Linux's largest, 1 GiB (tcp_rmem max with window
/// scaling 14), is about 741 000 segments of 1448 bytes. A sender beyond it
/// is analysed up to that frame only (named on stderr, exit status 2).
inline constexpr std::size_t kDefaultMaxOutstanding = 1'000'000;
/// TSvals a sender's clock remembers the first send time of until the peer
/// echoes them (rtt_sampling.hpp): 65 536 distinct TSvals are 65 s at 1 kHz,
/// longer than any RTT; only a capture without the peer's echoes reaches it.
inline constexpr std::size_t kTsSendTimesKept = 65'536;
/// Segments of one side a connection keeps for the other side's sender
/// model while that side has sent nothing (the model is created when it
/// first sends, or the connection ends): a connection of one SYN then holds
/// one model, not two. Past this many (a capture of one direction only) the
/// model is created and hears them. Changes no verdict, only when memory is taken.
inline constexpr std::size_t kUnheardKept = 4;

// ---- the terminal status line and live capture (progress_line.hpp, -i) ----

/// The one-line status on a terminal (a live capture's counts, a large
/// file's progress) is redrawn at most this often: four times a second
/// moves visibly without flicker, and costs nothing measurable.
inline constexpr std::chrono::milliseconds kStatusLineInterval{250};
/// A capture file gets a progress line only from this size on (bytes as
/// stored, compressed ones for gzip): 16 MiB, about a second of reading at
/// the slowest rate bench/README.md measured (137 000 packets/s of
/// header-only records, 94 bytes each with their record header: 13 MB/s);
/// a smaller file is done before a line would help.
inline constexpr std::uint64_t kProgressMinFileBytes = 16ull * 1024 * 1024;
/// TCP segments between two looks at a file's progress (analyze_files'
/// callback): at 137 000 segments/s, the slowest rate in bench/README.md,
/// about 33 looks a second, enough for a line redrawn every
/// kStatusLineInterval; the clock is not read per segment.
inline constexpr std::uint64_t kProgressEverySegments = 4096;

}  // namespace replay::limits
