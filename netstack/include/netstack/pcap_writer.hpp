#pragma once
// Writes IP datagrams to a classic pcap file through libpcap's dump API
// (pcap_open_dead + pcap_dump_open + pcap_dump), link type raw IP
// (LINKTYPE_RAW, 101), microsecond timestamps. Used by the simulator and by
// anything else that wants to save the traffic of a core for Wireshark,
// tshark or pcap-replay.

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "rto/clock.hpp"

namespace netstack {

/// Thrown when the capture file cannot be opened or written; the message
/// names the file and libpcap's reason.
class PcapWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A pcap file being written. Each record's timestamp is `epoch + t`, where t
/// is the rto::Instant given to write(). The file is flushed and closed by
/// the destructor (or close()).
class PcapWriter {
 public:
  /// Opens `path` for writing (truncating it). `epoch` is added to every
  /// timestamp (0 keeps virtual time as seconds since 1970).
  /// Throws PcapWriteError.
  explicit PcapWriter(const std::string& path, std::chrono::microseconds epoch = std::chrono::microseconds{0});
  /// Flushes and closes the file.
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  /// Appends one raw IPv4 or IPv6 datagram captured at time `t`.
  void write(rto::Instant t, std::span<const std::uint8_t> datagram);

  /// Flushes and closes the file; later writes are ignored.
  void close();

  /// Number of records written.
  std::uint64_t count() const { return count_; }
  /// The file being written.
  const std::string& path() const { return path_; }

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
  std::string path_;
  std::chrono::microseconds epoch_;
  std::uint64_t count_ = 0;
};

}  // namespace netstack
