#pragma once
// A tcpdump filter expression compiled by libpcap (pcap_compile on a
// pcap_open_dead handle) once per link type and snapshot length it meets,
// applied with pcap_offline_filter: so files whose interfaces differ in link
// type (pcapng) are filtered per interface, as tshark -Y would not but
// tcpdump -r would per link type.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace replay {

/// One filter expression, compiled on demand per (DLT_, snaplen).
class BpfFilter {
 public:
  /// An empty expression matches everything.
  explicit BpfFilter(std::string expression);
  BpfFilter(BpfFilter&&) noexcept;
  BpfFilter& operator=(BpfFilter&&) noexcept;
  ~BpfFilter();

  /// True when there is an expression to apply.
  bool active() const { return !expr_.empty(); }
  const std::string& expression() const { return expr_; }

  /// Compiles for link type `dlt` (if not done yet); libpcap's error
  /// message when the expression does not compile for it, else nullopt.
  std::optional<std::string> prepare(int dlt, std::uint32_t snaplen);

  /// Whether the frame matches (a link type the expression does not compile
  /// for matches nothing). `wire_len` is the original length.
  bool matches(int dlt, std::uint32_t snaplen, std::span<const std::uint8_t> frame, std::uint32_t wire_len);

 private:
  struct Program;
  Program* find(int dlt, std::uint32_t snaplen);
  std::string expr_;
  std::vector<std::unique_ptr<Program>> programs_;
};

}  // namespace replay
