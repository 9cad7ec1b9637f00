#include "report/lockstep_report.hpp"

#include <fmt/format.h>
#include <replay/analysis/milliseconds.hpp>

namespace replay {

using std::chrono::microseconds;
using nlohmann::json;

namespace {
double rel(const Report& r, CaptureTime t) { return std::chrono::duration<double>(t - r.first_time).count(); }
std::string file_of(const Report& r, std::size_t i) { return i < r.files.size() ? r.files[i] : std::string(); }

std::string first_frames(const std::vector<std::uint64_t>& f) {
  std::string t;
  for (std::size_t i = 0; i < f.size() && i < 3; ++i) t += fmt::format("{}{}", i ? ", " : "", f[i]);
  if (f.size() > 3) t += ", ...";
  return t;
}

json offset_json(const lockstep::Offset& o) {
  return {{"retry", o.retry},
          {"offset_ms", ms(o.offset)},
          {"spread_ms", ms(o.spread)},
          {"members", o.members},
          {"frames", o.frames}};
}
}  // namespace

void write_lockstep_text(std::ostream& os, const Report& r) {
  const auto& L = r.lockstep;
  if (L.groups.empty() && L.dispersed.empty()) return;
  os << "\nlockstep (connections to one server that retried together; INFO, not an RFC 6298 rule):\n";
  for (const auto& g : L.groups) {
    os << fmt::format("  [INFO lockstep] {} ({}), from {:.3f} s: {}\n", file_of(r, g.file_index),
                      lockstep::to_string(g.kind), rel(r, g.start), g.message);
    for (const auto& o : g.offsets)
      os << fmt::format("    retry {:>2} at +{:>9.3f} s: {} within {:.1f} ms, frames {}\n", o.retry,
                        ms(o.offset) / 1000.0, o.members, ms(o.spread), first_frames(o.frames));
    if (g.dispersed)
      os << fmt::format("    retry {:>2} at +{:>9.3f} s: {} spread over {:.1f} ms (no lockstep), frames {}\n",
                        g.dispersed->retry, ms(g.dispersed->offset) / 1000.0, g.dispersed->members,
                        ms(g.dispersed->spread), first_frames(g.dispersed->frames));
  }
  for (const auto& d : L.dispersed)
    os << fmt::format("  [INFO dispersed] {} ({}): {}; first at frame {}\n", file_of(r, d.file_index),
                      lockstep::to_string(d.kind), d.message, d.first_frame);
}

std::string lockstep_summary(const Report& r) {
  if (r.lockstep.groups.empty()) return {};
  return fmt::format("; lockstep: {} group(s)", r.lockstep.groups.size());
}

json lockstep_json(const Report& r) {
  json a = json::array();
  for (const auto& g : r.lockstep.groups) {
    json offs = json::array();
    for (const auto& o : g.offsets) offs.push_back(offset_json(o));
    a.push_back({{"lockstep", true},
                 {"level", "INFO"},
                 {"file", file_of(r, g.file_index)},
                 {"server", to_string(g.server)},
                 {"retry_kind", lockstep::to_string(g.kind)},
                 {"members", g.members},
                 {"client_hosts", g.client_hosts},
                 {"start_frame", g.start_frame},
                 {"time", to_seconds(g.start)},
                 {"rel_time", rel(r, g.start)},
                 {"offsets", offs},
                 {"dispersed", g.dispersed ? offset_json(*g.dispersed) : json(nullptr)},
                 {"message", g.message}});
  }
  for (const auto& d : r.lockstep.dispersed)
    a.push_back({{"lockstep", false},
                 {"level", "INFO"},
                 {"file", file_of(r, d.file_index)},
                 {"server", to_string(d.server)},
                 {"retry_kind", lockstep::to_string(d.kind)},
                 {"members", d.chains},
                 {"first_frame", d.first_frame},
                 {"spread_ms", ms(d.spread)},
                 {"stddev_ms", ms(d.stddev)},
                 {"largest_cluster", d.largest_cluster},
                 {"message", d.message}});
  return a;
}

}  // namespace replay
