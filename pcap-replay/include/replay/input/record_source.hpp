#pragma once
// Every packet record of a capture file as the file holds it (bytes, wire
// length, time, link type, interface), numbered as Wireshark numbers
// frames: from 1, every packet record counted, a damaged stretch skipped
// and not counted (CaptureReader numbers them the same way). What a copy of
// the capture needs (pcap-replay annotate); the analysis reads CaptureReader.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <replay/input/byte_stream.hpp>
#include <replay/input/capture_format.hpp>

namespace replay {

/// The parser for the stream's format, by its magic (pcap or pcapng; gzip
/// underneath is ByteStream's). Errors name the file: "PATH: cannot open:
/// the file is empty", "PATH: cannot open: unknown file format (neither
/// pcap nor pcapng)", or the parser's own.
std::variant<std::unique_ptr<RecordParser>, std::string> open_record_parser(ByteStream& in, const std::string& name);

/// The LINKTYPE_ value a file stores for libpcap's DLT_ value `dlt` (the
/// inverse of dlt_of_linktype).
std::uint32_t linktype_of_dlt(int dlt);

class RecordSource {
 public:
  /// Opens a capture file ("-": standard input). Errors as
  /// open_record_parser's, or ByteStream::open's.
  static std::variant<RecordSource, std::string> open(const std::string& path_or_dash);
  RecordSource(RecordSource&&) noexcept;
  RecordSource& operator=(RecordSource&&) noexcept;
  ~RecordSource();

  /// The next packet record and its frame number (Wireshark's); false at
  /// the end of the file. `rec.data` is valid until the next call.
  bool next(RawRecord& rec, std::uint64_t& frame);
  /// Interface `index` of the file, while the parser knows it (RecordParser::interface).
  std::optional<RawInterface> interface(std::uint32_t index) const;
  /// The damaged stretches skipped so far (each with where reading resumed).
  const std::vector<Damage>& damage() const { return damage_; }
  /// Why the stream ended early (a read or decompression error), else empty.
  std::string error() const;

 private:
  RecordSource() = default;
  struct State;
  std::unique_ptr<State> st_;
  std::uint64_t frames_ = 0;
  std::vector<Damage> damage_;
};

}  // namespace replay
