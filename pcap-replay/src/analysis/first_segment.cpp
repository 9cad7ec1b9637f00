#include "analysis/first_segment.hpp"

#include <cmath>
#include <limits>

namespace replay {

// Every field of Segment and wire::TcpHeader is kept here or by the caller;
// a field added to either must be added to FirstSegment too.
static_assert(sizeof(Segment) == 200 && sizeof(wire::TcpHeader) == 80 && sizeof(wire::TcpOptions) == 60,
              "Segment or TcpHeader changed: keep FirstSegment in step with it");
static_assert(sizeof(FirstSegment) <= 88, "FirstSegment grew past a 96-byte heap block");

FirstSegment::FirstSegment(const Segment& s, int dir)
    : ip_ttl_(s.ip_ttl),
      src_port_(s.tcp.src_port),
      dst_port_(s.tcp.dst_port),
      ip_checksum_(s.ip_checksum),
      seq_(s.tcp.seq),
      ack_(s.tcp.ack),
      data_offset_(s.tcp.data_offset),
      flags_(s.tcp.flags),
      window_(s.tcp.window),
      checksum_(s.tcp.checksum),
      urgent_(s.tcp.urgent),
      mss_(s.tcp.options.mss),
      window_scale_(s.tcp.options.window_scale),
      sack_permitted_(s.tcp.options.sack_permitted),
      sack_count_(s.tcp.options.sack_count),
      tsval_(s.tcp.options.tsval),
      tsecr_(s.tcp.options.tsecr),
      rebase_(s.rebase),
      payload_len_(s.payload_len),
      flow_label_(s.flow_label),
      ip_id_(s.ip_id),
      tcp_options_cut_(s.tcp_options_cut),
      tcp_options_bad_(s.tcp_options_bad),
      dir_(static_cast<std::int8_t>(dir)),
      first_rate_(std::numeric_limits<double>::quiet_NaN()) {
  for (const wire::SackBlock& b : s.tcp.options.sack)
    if (b.left != 0 || b.right != 0) {
      sack_ = std::make_unique<std::array<wire::SackBlock, 4>>(s.tcp.options.sack);
      break;
    }
}

Segment FirstSegment::segment(std::size_t file_index, std::uint64_t frame, CaptureTime time, const Endpoint& client,
                              const Endpoint& server, const VirtualNetwork& vnet) const {
  Segment s;
  s.file_index = file_index;
  s.frame = frame;
  s.time = time;
  s.rebase = rebase_;
  s.src = dir_ == 0 ? client : server;
  s.dst = dir_ == 0 ? server : client;
  s.tcp.src_port = src_port_;
  s.tcp.dst_port = dst_port_;
  s.tcp.seq = seq_;
  s.tcp.ack = ack_;
  s.tcp.data_offset = data_offset_;
  s.tcp.flags = flags_;
  s.tcp.window = window_;
  s.tcp.checksum = checksum_;
  s.tcp.urgent = urgent_;
  s.tcp.options.mss = mss_;
  s.tcp.options.window_scale = window_scale_;
  s.tcp.options.sack_permitted = sack_permitted_;
  s.tcp.options.sack_count = sack_count_;
  if (sack_) s.tcp.options.sack = *sack_;
  s.tcp.options.tsval = tsval_;
  s.tcp.options.tsecr = tsecr_;
  s.payload_len = payload_len_;
  s.flow_label = flow_label_;
  s.ip_id = ip_id_;
  s.ip_checksum = ip_checksum_;
  s.ip_ttl = ip_ttl_;
  s.vnet = vnet;
  s.tcp_options_cut = tcp_options_cut_;
  s.tcp_options_bad = tcp_options_bad_;
  return s;
}

std::optional<double> FirstSegment::first_rate() const {
  if (std::isnan(first_rate_)) return std::nullopt;
  return first_rate_;
}

void FirstSegment::set_first_rate(std::optional<double> hz) {
  first_rate_ = hz ? *hz : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace replay
