#pragma once
// Problems found while reading the input. A Diagnostic names a file, a frame
// (as Wireshark numbers it), a field and what is wrong, and says whether the
// frame was skipped (not analysed) or used with a warning (decoded the way
// Wireshark does, e.g. TCP options cut by the snaplen). Reading goes on after
// a diagnostic; only the frame it names is lost (or, for a read error in the
// middle of a file, the frames after it). An InputFile records what became of
// one whole file: a file that cannot be opened, or whose first record cannot
// be read, is unusable (exit status 2, see pcap-replay/SCHEMA.md).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace replay {

/// One reader diagnostic.
struct Diagnostic {
  std::string file;         ///< the path as given on the command line ("-" for stdin)
  std::uint64_t frame = 0;  ///< Wireshark frame number from 1; 0 = the file as a whole
  std::string field;        ///< Wireshark-style field name: "tcp.hdr_len", "ip.len", "frame.time", "pcap" ...
  std::string message;      ///< one sentence, e.g. "header length 40 bytes runs past the 34 bytes captured"
  /// true: the frame was not analysed (malformed, unreadable; for a "pcap"
  /// read error, neither were the frames after it). false: a warning, the
  /// frame was analysed with the problem worked around (options cut by the
  /// snaplen, a bad option skipped, an IP length beyond the frame capped).
  bool skipped = true;
};

/// "FILE: frame N: FIELD: MESSAGE" (or "FILE: FIELD: MESSAGE" when frame is 0).
std::string to_string(const Diagnostic& d);

/// A stretch of an input that could not be read (a damaged record or block
/// header, a file cut short, a corrupt gzip stream): the reader skipped it
/// and, when it found a plausible record after it, went on reading.
struct LostRange {
  std::uint64_t byte_begin = 0;     ///< offset of the first byte lost (in the decompressed stream for gzip)
  std::uint64_t byte_end = 0;       ///< offset one past the last byte lost
  std::uint64_t frames_before = 0;  ///< the last frame number read before the loss (0: none)
  /// How many frames the lost bytes held, when it can be told (1 for one
  /// damaged pcap record or pcapng packet block); nullopt when unknown. The
  /// frames after the loss are numbered as if it held this many (1 when unknown).
  std::optional<std::uint64_t> frames_lost;
  bool to_end = false;              ///< nothing readable followed: the rest of the input is lost
};

/// A frame dated before the frame read just before it.
struct ClockStep {
  std::uint64_t frame = 0;        ///< the frame dated earlier than its predecessor
  std::chrono::nanoseconds back{}; ///< how much earlier (> 0)
  /// back > limits::kClockReorderMax: a step of the capture clock, re-based
  /// (else reordering, the frame keeps its time).
  bool rebased = false;
  /// Segment::rebase of this frame and the later ones (until the next re-based step).
  std::chrono::nanoseconds rebase{0};
  /// Not a step back: this frame returns to the clock from before the
  /// re-based step back at frame `returns_from` (limits::kClockReturnSlack);
  /// `back` is then how much later than its predecessor it is dated.
  std::optional<std::uint64_t> returns_from;
};

/// What became of one input file (in command-line order).
struct InputFile {
  std::string name;                ///< the path as given ("-" for stdin)
  bool opened = false;             ///< libpcap opened it (and the BPF filter compiled)
  std::uint64_t frames = 0;        ///< records read (the last Wireshark frame number)
  /// The time of its frame 1 (Wireshark's frame.time_relative origin for
  /// this file), when frame 1 had a usable one.
  std::optional<std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>> first_frame_time;
  std::uint64_t tcp_segments = 0;  ///< TCP segments analysed (after the filter)
  std::uint64_t skipped_frames = 0;  ///< frames skipped with a diagnostic
  bool read_error = false;         ///< part of the file could not be read (see lost)
  std::vector<LostRange> lost;     ///< the stretches that could not be read, in file order
  /// Frames dated before their predecessor (CaptureStats::clock_steps_back),
  /// and the listed ones larger than limits::kClockReorderMax, which the
  /// model's clock was re-based at (CaptureStats::clock_steps, rebased).
  std::uint64_t clock_steps_back = 0;
  std::vector<ClockStep> clock_rebased;
  /// Live capture only (unset for files): packets libpcap reports lost
  /// before they reached pcap-replay, pcap_stats(3PCAP) ps_drop (the
  /// capture buffer was full) + ps_ifdrop (the interface dropped them).
  std::optional<std::uint64_t> kernel_drops;
  /// Empty when usable; else why not: libpcap's reason for not opening it,
  /// or the read error at its first record, or "every frame is malformed".
  std::string error;

  /// A file is usable when it opened and at least one record was readable
  /// and not malformed (a valid capture with no frame at all is usable).
  bool usable() const { return error.empty(); }
  /// True when part of the file was lost: the exit status is then 2 even
  /// though the rest was analysed (nothing lost silently).
  /// Packets a live capture's kernel dropped count as lost data too, and so
  /// does a live capture that failed midway (read_error, a Diagnostic).
  bool lost_data() const { return !lost.empty() || kernel_drops.value_or(0) > 0 || (kernel_drops && read_error); }
};

/// "FILE: bytes 18396-18539 lost after frame 149 (1 frame)" ("an unknown
/// number of frames", "to the end of the file"), for the report and stderr.
std::string to_string(const std::string& file, const LostRange& lost);

/// What a live capture lost, one sentence each, for the report and stderr:
/// the packets its kernel dropped ("live:eth0: 12 packets dropped before
/// pcap-replay saw them (pcap_stats: the capture buffer was full, or the
/// interface dropped them); the analysis misses them"), and a capture that
/// failed midway ("live:eth0: the capture failed after frame 340; what came
/// after is lost"). Empty when nothing was lost, and for a file.
std::vector<std::string> live_lost_text(const InputFile& in);

}  // namespace replay
