#pragma once
// `-Y EXPR`: the part of Wireshark's display-filter language whose meaning
// for a report of connections and findings is plain: which connections
// (tcp.stream, ip.addr, ipv6.addr, tcp.port: a connection matches when one
// of its endpoints does, as its packets do in Wireshark) and which frames
// (frame.number: the findings at those frames, and the connections with a
// frame in range). Terms are joined by && (or "and"): every one must hold.
// Anything else is refused with what is read, and -f for filtering packets
// before the analysis (a BPF filter): a filter half understood would show a
// report of other packets than the user asked for. The analysis itself
// reads every packet either way, as Wireshark's does.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>

namespace replay {

struct DisplayFilter {
  enum class Field : std::uint8_t { tcp_stream, frame_number, ip_addr, tcp_port };
  enum class Op : std::uint8_t { eq, ne, lt, le, gt, ge };
  struct Term {
    Field field;
    Op op = Op::eq;
    std::uint64_t number = 0;   ///< tcp.stream, frame.number, tcp.port
    wire::IpAddress address{};  ///< ip.addr, ipv6.addr
  };
  std::vector<Term> terms;  ///< all must hold
  std::string text;         ///< as given

  /// Parses `text`; the error names the term and says what is read:
  /// "-Y \"tcp.flags.syn == 1\": tcp.flags.syn is not a field pcap-replay
  /// reads (...)".
  static std::variant<DisplayFilter, std::string> parse(std::string_view text);

  /// Whether connection `f` (tcp.stream `stream`, nullopt when unknown)
  /// matches the connection terms, and has a packet the frame terms allow
  /// (FlowReport::has_selected_frame: the analysis ran with frames()).
  bool shows(const FlowReport& f, std::optional<std::uint64_t> stream) const;
  /// Whether frame `frame` satisfies the frame.number terms.
  bool shows_frame(std::uint64_t frame) const;
  /// Whether a term reads tcp.stream (unknown under -f: the caller refuses it).
  bool reads_stream() const;
  /// The frames the frame.number terms allow (for Options::frames: the
  /// analysis notes which connections have a packet among them); nullopt
  /// when no term reads frame.number.
  std::optional<FrameSelection> frames() const;
};

/// Arguments `args` (the positional ones, in order) that are not files and
/// read as a tcpdump filter expression after them ("tcp port 80", "host
/// 10.0.0.1 and port 443"): the expression, for a hint to give it with -f;
/// nullopt when they do not. `exists` says whether a path names a file.
std::optional<std::string> trailing_bpf(const std::vector<std::string>& args, bool (*exists)(const std::string&));

}  // namespace replay
