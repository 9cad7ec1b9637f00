#pragma once
// A problem found while reading a capture: which file, which frame (as
// Wireshark numbers it), which field, and what is wrong. Reading goes on
// after a diagnostic; only the frame it names is lost (or, for a read error
// in the middle of a file, the frames after it).

#include <cstdint>
#include <string>

namespace replay {

/// One reader diagnostic.
struct Diagnostic {
  std::string file;         ///< the path as given on the command line ("-" for stdin)
  std::uint64_t frame = 0;  ///< Wireshark frame number from 1; 0 = the file as a whole
  std::string field;        ///< Wireshark-style field name: "tcp.hdr_len", "ip.len", "frame.time", "pcap" ...
  std::string message;      ///< one sentence, e.g. "header length 40 bytes runs past the 34 bytes captured"
};

/// "FILE: frame N: FIELD: MESSAGE" (or "FILE: FIELD: MESSAGE" when frame is 0).
std::string to_string(const Diagnostic& d);

}  // namespace replay
