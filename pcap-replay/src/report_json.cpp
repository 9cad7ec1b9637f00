#include "report_json.hpp"

namespace replay {

using std::chrono::microseconds;
using nlohmann::json;

namespace {
double ms(microseconds d) { return static_cast<double>(d.count()) / 1000.0; }
json opt_ms(const std::optional<microseconds>& d) { return d ? json(ms(*d)) : json(nullptr); }
}  // namespace

json to_json(const Report& r) {
  const auto rel = [&](CaptureTime t) { return std::chrono::duration<double>(t - r.first_time).count(); };
  const Options& o = r.options;
  json doc;
  doc["tool"] = "pcap-replay";
  doc["schema_version"] = 1;
  doc["profile"] = to_string(o.profile);
  doc["tolerance"] = {{"granularity_ms", ms(o.granularity)},
                      {"slack_percent", o.slack_percent},
                      {"timer_wheel_lateness", o.timer_wheel_lateness}};
  doc["rto_config"] = {{"initial_rto_ms", ms(o.config.initial_rto)},
                       {"min_rto_ms", ms(o.config.min_rto)},
                       {"max_rto_ms", ms(o.config.max_rto)},
                       {"syn_linear_timeouts", o.config.syn_linear_timeouts}};
  doc["files"] = r.files;
  doc["first_time"] = r.have_first_time ? json(to_seconds(r.first_time)) : json(nullptr);
  json diags = json::array();
  for (const auto& d : r.diagnostics)
    diags.push_back({{"file", d.file}, {"frame", d.frame}, {"field", d.field}, {"message", d.message}});
  doc["diagnostics"] = diags;
  json flows = json::array();
  for (const auto& f : r.flows) {
    for (std::size_t dir = 0; dir < 2; ++dir) {
      const SenderReport& s = f.senders[dir];
      if (s.data_segments == 0) continue;
      json jf;
      jf["flow"] = f.id;
      jf["direction"] = dir == 0 ? "client->server" : "server->client";
      jf["file"] = f.file;
      jf["src"] = to_string(s.src);
      jf["dst"] = to_string(s.dst);
      jf["packets"] = s.packets;
      jf["data_segments"] = s.data_segments;
      jf["bytes"] = s.bytes;
      jf["timestamps"] = s.timestamps;
      jf["sack"] = s.sack;
      jf["peer_seen"] = s.peer_seen;
      jf["capture_duplicates"] = f.capture_duplicates;
      jf["rtt_samples"] = {{"karn", s.samples_seq}, {"ts_echo", s.samples_ts}, {"ambiguous_acks", s.ambiguous_acks}};
      jf["final"] = {{"srtt_ms", opt_ms(s.srtt)}, {"rttvar_ms", opt_ms(s.rttvar)}, {"rto_ms", ms(s.rto)},
                     {"backoff", s.backoff}};
      json kinds = json::object();
      for (std::size_t k = 1; k < kSendKinds; ++k) kinds[std::string(to_string(static_cast<SendKind>(k)))] = s.by_kind[k];
      jf["retransmissions"] = kinds;
      jf["keepalives"] = s.keepalives;
      jf["zero_window_probes"] = s.zero_window_probes;
      json touts = json::array();
      for (const auto& t : s.timeouts)
        touts.push_back({{"frame", t.frame},
                         {"time", to_seconds(t.time)},
                         {"rel_time", rel(t.time)},
                         {"seq", t.rel_seq},
                         {"syn", t.syn},
                         {"backoff", t.backoff},
                         {"observed_rto_ms", ms(t.waited)},
                         {"predicted_rto_ms", ms(t.predicted)},
                         {"accepted_ms", {ms(t.earliest), ms(t.latest)}},
                         {"armed_by", t.armed_by},
                         {"verdict", t.verdict}});
      jf["timeouts"] = touts;
      json finds = json::array();
      for (const auto& x : s.findings)
        finds.push_back({{"rule", x.rule},
                         {"level", to_string(x.level)},
                         {"frame", x.frame},
                         {"time", to_seconds(x.time)},
                         {"rel_time", rel(x.time)},
                         {"message", x.message}});
      jf["findings"] = finds;
      flows.push_back(std::move(jf));
    }
  }
  doc["flows"] = flows;
  doc["summary"] = {{"flows", r.flows.size()},
                    {"must", r.count(Level::must)},
                    {"should", r.count(Level::should)},
                    {"may", r.count(Level::may)},
                    {"info", r.count(Level::info)}};
  return doc;
}

void write_json_report(std::ostream& os, const Report& r) { os << to_json(r).dump(2) << "\n"; }

}  // namespace replay
