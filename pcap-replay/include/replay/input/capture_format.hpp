#pragma once
// What the file-format parsers (pcap_file.hpp, pcapng_file.hpp) hand the
// capture reader: one record at a time, its bytes still inside the
// ByteStream's buffer (no copy), or the news that a damaged stretch of the
// file was skipped and where reading picked up again.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <replay/input/byte_stream.hpp>
#include <replay/input/reader_limits.hpp>

namespace replay {

// The reader's limits (kMaxCaplen, kMaxBlockBytes, kResyncConfirmRecords,
// kResyncMaxJumpSeconds) are in reader_limits.hpp.
using limits::kMaxBlockBytes;
using limits::kMaxCaplen;
using limits::kResyncConfirmRecords;
using limits::kResyncMaxJumpSeconds;

/// What a timestamp field held when it could not be turned into nanoseconds.
enum class TimeIssue : std::uint8_t {
  kNone,
  kFractionTooLarge,  ///< pcap: the fraction is 1 s or more (raw value in RawRecord::raw_fraction)
  kOutOfRange,        ///< pcapng: the instant is outside int64 nanoseconds (before 1678 or after 2262)
};

/// One packet record as the file holds it.
struct RawRecord {
  std::span<const std::uint8_t> data;  ///< captured bytes (caplen), valid until the parser's next call
  std::uint32_t wire_len = 0;          ///< original length on the wire
  int dlt = 0;                         ///< libpcap DLT_ value of the record's interface
  std::uint32_t snaplen = 0;           ///< snapshot length of the record's interface
  std::uint32_t interface = 0;         ///< pcapng: index of its interface in the file (over all sections); pcap: 0
  std::int64_t time_ns = 0;            ///< nanoseconds since the epoch (when issue is kNone)
  TimeIssue time_issue = TimeIssue::kNone;
  std::uint64_t raw_fraction = 0;      ///< for kFractionTooLarge: the field's value
  const char* fraction_unit = "";      ///< for kFractionTooLarge: "µs" or "ns"
  bool bad_interface = false;          ///< pcapng: the block names an interface the section does not have
  bool no_timestamp = false;           ///< pcapng Simple Packet Block: the format has no timestamp
  std::uint64_t offset = 0;            ///< stream offset of the record (or block) header
  /// pcapng Enhanced / obsolete Packet Block: the block's options as stored
  /// (in the section's byte order, `options_swapped` when not the host's),
  /// valid until the parser's next call; empty for pcap and Simple Packet Blocks.
  std::span<const std::uint8_t> options;
  bool options_swapped = false;
};

/// A stretch of the file that could not be read: the parser has skipped it
/// and is positioned at the next plausible record (or at the end).
struct Damage {
  std::uint64_t begin = 0;   ///< stream offset of the damaged header
  std::uint64_t end = 0;     ///< stream offset where reading goes on (the end of the stream when !resynced)
  bool resynced = false;     ///< a plausible record was found after it
  /// Packet records the skipped bytes held, when they can be told: pcap, 1
  /// when the skipped bytes fit in one record; pcapng, 1 or 0 by the damaged
  /// block's type field; nullopt when unknown.
  std::optional<std::uint64_t> frames;
  std::string message;       ///< what was wrong, e.g. "record caplen 2147483647 exceeds 262144"

  /// Ends a scan that found nothing readable up to the end of the stream at
  /// `stream_end`: the bytes from `begin` on are lost, and the message says
  /// so ("no plausible record follows: bytes 179-238 (the rest of the file)
  /// are lost"); `what` names what was looked for ("plausible record").
  void lost_to_end(std::uint64_t stream_end, const std::string& what) {
    end = stream_end;
    resynced = false;
    frames = std::nullopt;
    message += "; no " + what + " follows: bytes " + std::to_string(begin) + "-" + std::to_string(end - 1) +
               " (the rest of the file) are lost";
  }
};

/// An interface of the file, as its records name it (RawRecord::interface).
struct RawInterface {
  int dlt = 0;                ///< libpcap DLT_ value
  std::uint32_t snaplen = 0;  ///< snapshot length (0: none given)
};

/// Result of a parser's next().
enum class ParseStep { kRecord, kDamage, kEnd };

/// Common interface of the pcap and pcapng parsers.
class RecordParser {
 public:
  virtual ~RecordParser() = default;
  /// Reads the next record into `out` (kRecord), reports and skips damage
  /// (kDamage, see damage()), or says the stream is over (kEnd).
  virtual ParseStep next(RawRecord& out) = 0;
  /// The last damage reported by next().
  const Damage& damage() const { return damage_; }
  /// The DLT_ value of the first interface ("the file's link type").
  virtual int first_dlt() const = 0;
  /// Interface `index` (RawRecord::interface's numbering) when the parser
  /// still knows it (pcapng: one of the current section's), else nullopt.
  virtual std::optional<RawInterface> interface(std::uint32_t index) const = 0;

 protected:
  Damage damage_;
};

/// libpcap's DLT_ value for a LINKTYPE_ value stored in a file (they differ
/// only for a few: LINKTYPE_RAW 101 is DLT_RAW 12 on Linux). Source:
/// libpcap pcap-common.c, linktype_to_dlt().
int dlt_of_linktype(std::uint32_t linktype);

}  // namespace replay
