#pragma once
// Reads one pcap or pcapng file through libpcap and yields its TCP segments
// as replay::Segment, numbered by frame exactly as Wireshark numbers them.
//
//  - Timestamps at nanosecond precision (pcap_open_offline_with_tstamp_
//    precision(PCAP_TSTAMP_PRECISION_NANO)): libpcap scales microsecond
//    pcap, nanosecond pcap (magic 0xA1B23C4D) and pcapng if_tsresol (10^-n
//    and 2^-n) to nanoseconds.
//  - Optional BPF filter (tcpdump syntax), compiled by libpcap and applied
//    here with pcap_offline_filter, so that frames that do not match still
//    count in the numbering.
//  - Link types: EN10MB (802.1Q / 802.1ad tags, stacked; PPPoE session;
//    MPLS), LINUX_SLL (113), LINUX_SLL2 (276), RAW (101 and DLT_RAW 12/14),
//    IPV4 (228), IPV6 (229), NULL (0) and LOOP (108).
//  - IPv4 with options, IPv6 with extension headers, IP-in-IP tunnels
//    (inner addresses are used). Lengths come from the IP header, never from
//    the captured bytes (snaplen cuts are fine).
//  - Not TCP: skipped and counted. Non-first IP fragments: skipped and
//    counted. Malformed / truncated frames: a Diagnostic, skipped. Frames
//    Wireshark still dissects (TCP options cut by the snaplen, a malformed
//    option, an IP length beyond what the frame carried): returned, flagged
//    in the Segment, and a Diagnostic. A record with a timestamp fraction of
//    1 s or more: a Diagnostic ("frame.time"), skipped. A libpcap read error
//    mid-file (truncated record): a Diagnostic naming the frame; everything
//    read before it is kept and next() then ends.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "diagnostic.hpp"
#include "segment.hpp"

namespace replay {

/// Counters of one file's frames. frames = every record read (the last
/// Wireshark frame number); the other counters partition them:
/// frames = tcp_segments + filtered_out + non_ip + non_tcp + fragments_skipped + malformed.
struct CaptureStats {
  std::uint64_t frames = 0;             ///< records read from the file
  std::uint64_t tcp_segments = 0;       ///< Segments returned by next()
  std::uint64_t filtered_out = 0;       ///< rejected by the BPF filter
  std::uint64_t non_ip = 0;             ///< link payload is not IPv4/IPv6 (ARP, LLC, ...)
  std::uint64_t non_tcp = 0;            ///< IP, but the upper layer is not TCP (UDP, ICMP ...)
  std::uint64_t fragments_skipped = 0;  ///< non-first IP fragments (no TCP header)
  std::uint64_t malformed = 0;          ///< frames skipped with a diagnostic (truncated, bad field, bad timestamp)
  bool read_error = false;              ///< libpcap stopped before the end of the file
  /// Timestamp of record 1 (filtered out or not TCP included): the origin of
  /// Wireshark's frame.time_relative. Unset before it is read, or when its
  /// fraction of a second is invalid (1 s or more).
  std::optional<CaptureTime> first_frame_time;
};

/// Reader of one capture file. Move-only (owns the libpcap handle).
class CaptureReader {
 public:
  /// Opens `path_or_dash` ("-" = standard input, which is duplicated so
  /// closing the reader does not close stdin). `file_index` is copied into
  /// every Segment. `bpf` is a tcpdump filter expression, "" for none.
  /// Returns the reader, or an error sentence naming the file and libpcap's
  /// reason ("x.pcap: cannot open: archaic pcap savefile format"), the link
  /// type that is not supported ("x.pcap: link type 147 (USER0) is not
  /// supported"), or the filter that does not compile.
  static std::variant<CaptureReader, std::string> open(const std::string& path_or_dash,
                                                       std::size_t file_index,
                                                       const std::string& bpf = "");

  /// The next TCP segment in file order, or nullopt at the end of the file
  /// (or after a libpcap read error, which is then in diagnostics()).
  /// Frames that are not TCP or are malformed are skipped (counted / reported).
  std::optional<Segment> next();

  /// Problems found so far, in file order.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  /// Counters so far (final once next() returned nullopt).
  const CaptureStats& stats() const { return stats_; }

  /// The file as given to open().
  const std::string& file() const { return file_; }

  /// The libpcap DLT_ value of the file (pcap_datalink) and its name ("EN10MB").
  int linktype() const { return linktype_; }
  std::string linktype_name() const;

  CaptureReader(CaptureReader&&) noexcept;
  CaptureReader& operator=(CaptureReader&&) noexcept;
  ~CaptureReader();

 private:
  struct Handle;  // libpcap state (pcap_t*, compiled filter)
  CaptureReader() = default;
  void report(std::uint64_t frame, std::string field, std::string message);

  std::unique_ptr<Handle> h_;
  std::string file_;
  std::size_t file_index_ = 0;
  int linktype_ = 0;
  bool done_ = false;
  std::vector<Diagnostic> diagnostics_;
  CaptureStats stats_;
};

}  // namespace replay
