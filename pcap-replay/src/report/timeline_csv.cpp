#include <replay/report/timeline_csv.hpp>

#include <fmt/format.h>

namespace replay {

void write_timeline_header(std::ostream& os) {
  os << "flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,srtt_us,rttvar_us,rto_us,backoff,copy_of\n";
}

void write_timeline_rows(std::ostream& os, const FlowReport& f, CaptureTime origin) {
  const auto us = [](const std::optional<std::chrono::microseconds>& d) {
    return d ? std::to_string(d->count()) : std::string();
  };
  for (std::size_t dir = 0; dir < 2; ++dir)
    for (const auto& e : f.senders[dir].timeline) {
      os << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.id, dir == 0 ? "c2s" : "s2c", e.frame,
                        format_epoch(e.time), format_rel(e.time, origin), e.event, e.rel_seq, us(e.sample),
                        e.sample_kind ? to_string(*e.sample_kind) : std::string_view(), us(e.srtt),
                        us(e.rttvar), e.rto.count(), e.backoff,
                        e.copy_of != 0 ? std::to_string(e.copy_of) : std::string());
    }
}

void write_timeline_csv(std::ostream& os, const Report& r) {
  write_timeline_header(os);
  for (const auto& f : r.flows) write_timeline_rows(os, f, r.origin_of(f.file_index));
}

}  // namespace replay
