#pragma once
// Reads one capture (a pcap or pcapng file, plain or gzip-compressed, a
// file or standard input; or a live interface, live_capture.hpp) and yields
// its TCP segments as replay::Segment, numbered by frame exactly as
// Wireshark numbers them.
//
//  - Files are parsed here (pcap_file.hpp, pcapng_file.hpp), not by libpcap,
//    so that a damaged record or block does not end the read: the reader
//    resynchronises at the next plausible record, records the lost byte
//    range (CaptureStats::lost, a "pcap" Diagnostic) and goes on. libpcap
//    is used for BPF (bpf_filter.hpp) and live capture.
//  - Timestamps in nanoseconds: pcap microsecond and nanosecond files (either
//    byte order, unsigned 32-bit seconds, valid to 2106); pcapng if_tsresol
//    (10^-n and 2^-n) and if_tsoffset per interface, converted with checked
//    arithmetic (an instant outside int64 nanoseconds, past 2262, is a
//    "frame.time" Diagnostic and the frame is skipped).
//  - Clock steps back: a frame dated before the frame before it is a
//    "frame.time" warning (the frame is still used) naming the step, counted
//    in CaptureStats::clock_steps_back. A step of at most
//    limits::kClockReorderMax is reordering (two interfaces or capture points
//    out of order): the frames keep their times. A larger one is a step of
//    the capture clock: the frame and every later one of the input are
//    re-based (Segment::rebase) so that the frame lands
//    limits::kClockReorderMax + 1 ns after the latest time read before it
//    (the time that passed across the step is unknown; the analysis judges
//    no interval across it). Segment::time stays the frame's own time.
//  - pcapng interfaces may differ in link type and snaplen: each frame is
//    decoded (and filtered) with its own interface's link type.
//  - Optional BPF filter (tcpdump syntax): frames that do not match still
//    count in the numbering.
//  - Link types: EN10MB (802.1Q / 802.1ad tags, stacked; PPPoE session;
//    MPLS), LINUX_SLL (113), LINUX_SLL2 (276), RAW (101 and DLT_RAW 12/14),
//    IPV4 (228), IPV6 (229), NULL (0) and LOOP (108); tunnels followed to the
//    innermost TCP (decode_frame.hpp).
//  - Not TCP: skipped and counted. Non-first IP fragments: skipped and
//    counted. Malformed / truncated frames: a Diagnostic, skipped. Frames
//    Wireshark still dissects (TCP options cut by the snaplen, a malformed
//    option, an IP length beyond what the frame carried): returned, flagged
//    in the Segment, and a Diagnostic (skipped = false).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <replay/input/diagnostic.hpp>
#include <replay/input/segment.hpp>
#include <replay/input/reader_limits.hpp>

namespace replay {

using limits::kMaxClockStepsListed;  // reader_limits.hpp

/// Counters of one input's frames. frames = the last Wireshark frame number;
/// the other counters partition them:
/// frames = tcp_segments + filtered_out + non_ip + non_tcp + fragments_skipped + malformed + frames_lost.
struct CaptureStats {
  std::uint64_t frames = 0;             ///< records read from the file
  std::uint64_t tcp_segments = 0;       ///< Segments returned by next()
  std::uint64_t filtered_out = 0;       ///< rejected by the BPF filter
  std::uint64_t non_ip = 0;             ///< link payload is not IPv4/IPv6 (ARP, LLC, ...)
  std::uint64_t non_tcp = 0;            ///< IP, but the upper layer is not TCP (UDP, ICMP ...)
  std::uint64_t fragments_skipped = 0;  ///< non-first IP fragments (no TCP header)
  std::uint64_t malformed = 0;          ///< frames skipped with a diagnostic (truncated, bad field, bad timestamp)
  std::uint64_t frames_lost = 0;        ///< frame numbers given to damaged stretches between readable records
  bool read_error = false;              ///< part of the input could not be read: see lost
  std::vector<LostRange> lost;          ///< every stretch that could not be read, in file order
  std::uint64_t clock_steps_back = 0;   ///< frames dated before their predecessor
  std::chrono::nanoseconds largest_step_back{0};  ///< the largest such step
  /// Of them, the reordering (a step back of at most limits::kClockReorderMax:
  /// interfaces timestamping independently), summarised in one diagnostic
  /// at the end of the file rather than one per frame: how many, the largest,
  /// the first frame.
  std::uint64_t reordered = 0;
  std::chrono::nanoseconds largest_reordered{0};
  std::uint64_t first_reordered_frame = 0;
  /// Frames whose clock returns to where it was before a step back
  /// (limits::kClockReturnSlack; ClockStep::returns_from).
  std::uint64_t clock_returns = 0;
  /// The first kMaxClockStepsListed of the steps back and the returns, in file order.
  std::vector<ClockStep> clock_steps;
  /// Re-basings: steps back larger than limits::kClockReorderMax, and returns.
  std::uint64_t clock_rebases = 0;
  std::uint64_t bytes_read = 0;         ///< bytes read from the input (compressed bytes for gzip)
  /// Timestamp of record 1 (filtered out or not TCP included): the origin of
  /// Wireshark's frame.time_relative. Unset before it is read, or when record
  /// 1's time is not usable (bad fraction, beyond 2262, no timestamp).
  std::optional<CaptureTime> first_frame_time;
  /// Diagnostics beyond limits::kMaxDiagnostics, counted and not kept: of
  /// frames skipped, and of frames used with a warning.
  std::uint64_t diagnostics_dropped_skipped = 0;
  std::uint64_t diagnostics_dropped_warned = 0;
};

/// Reader of one capture. Move-only.
class CaptureReader {
 public:
  /// Opens `path_or_dash` ("-" = standard input, which is duplicated so
  /// closing the reader does not close stdin); gzip is detected by its magic
  /// (1f 8b). `file_index` is copied into every Segment. `bpf` is a tcpdump
  /// filter expression, "" for none. Returns the reader, or an error
  /// sentence naming the file and the reason ("x.pcap: cannot open: No such
  /// file or directory", "x.pcap: cannot open: unknown file format (not
  /// pcap or pcapng)", "x.pcap: cannot open: archaic pcap savefile format"),
  /// the link type that is not supported ("x.pcap: link type 147 (USER0) is
  /// not supported"), or the filter that does not compile.
  static std::variant<CaptureReader, std::string> open(const std::string& path_or_dash,
                                                       std::size_t file_index,
                                                       const std::string& bpf = "");

  /// Decodes the next TCP segment in file order into `out` (overwriting
  /// every field; no allocation unless a diagnostic is made) and returns
  /// true, or returns false at the end of the input. Frames that are not
  /// TCP or are malformed are skipped (counted / reported); damaged stretches
  /// are skipped and recorded in stats().lost.
  bool next(Segment& out);

  /// The same, returning a copy (for callers that keep every segment).
  std::optional<Segment> next();

  /// Problems found so far, in file order. Each says whether its frame was
  /// skipped (Diagnostic::skipped) or used with a warning.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  /// Counters so far (final once next() returned false).
  const CaptureStats& stats() const { return stats_; }

  /// Fraction of the input read so far (0..1), when its size is known (a
  /// regular file); for a progress line.
  std::optional<double> progress() const;

  /// The file as given to open().
  const std::string& file() const { return file_; }

  /// The libpcap DLT_ value of the file's (first interface's) link type and its name ("EN10MB").
  int linktype() const { return linktype_; }
  std::string linktype_name() const;

  CaptureReader(CaptureReader&&) noexcept;
  CaptureReader& operator=(CaptureReader&&) noexcept;
  ~CaptureReader();

 private:
  struct State;  // the byte stream, the format parser, the BPF filter
  CaptureReader() = default;
  void report(std::uint64_t frame, std::string field, std::string message, bool skipped = true);
  void on_damage();
  bool check_time(std::uint64_t frame, std::int64_t t);
  // Frame `frame` at own time `t`, before the frame read just before it:
  // reordering or a step of the clock (check_time's rare case, a call apart
  // so that the common one stays small).
  [[gnu::noinline]] void step_back(std::uint64_t frame, std::int64_t t);
  /// The one diagnostic of the file's reordering (CaptureStats::reordered), at its end.
  void summarise_reordering();
  // The rebase that puts own time `t` just after the latest model time
  // (limits::kClockReorderMax + 1 ns later).
  std::int64_t after_latest(std::int64_t t) const;
  // Frame `frame` at own time `t` (not before its predecessor): whether it
  // returns to the clock from before the innermost open step back
  // (limits::kClockReturnSlack); if so the re-basing of that step ends.
  void check_return(std::uint64_t frame, std::int64_t t);

  std::unique_ptr<State> st_;
  std::string file_;
  std::size_t file_index_ = 0;
  int linktype_ = 0;
  bool done_ = false;
  std::int64_t last_time_ = 0;
  bool have_time_ = false;
  std::int64_t rebase_ns_ = 0;     // Segment::rebase from the last re-based step on
  std::int64_t latest_model_ = 0;  // the latest re-based time read so far (ns)
  // A re-based step back whose stretch may still end by the clock returning
  // to where it was (limits::kClockReturnSlack): the own time of the frame
  // before the step, the own time of the step's frame, and the rebase
  // before it. Innermost last; at most limits::kMaxClockStepsOpen.
  struct OpenStep {
    std::int64_t before, start, rebase;
    std::uint64_t frame_before, frame;  // the frame before the step, the step's own
  };
  std::vector<OpenStep> open_steps_;
  std::uint64_t last_frame_ = 0;
  std::vector<Diagnostic> diagnostics_;
  /// The diagnostic of the latest damage (on_damage), when it was kept: a
  /// compressed stream that stops inside that record adds its reason there.
  std::optional<std::size_t> damage_diagnostic_;
  CaptureStats stats_;
};

/// The name libpcap gives a DLT_ value ("EN10MB"), or "no libpcap name".
std::string linktype_name(int dlt);

}  // namespace replay
