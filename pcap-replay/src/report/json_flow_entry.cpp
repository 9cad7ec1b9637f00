// A connection's entry in the report documents' "flows" array (check's and
// flows'), written as text (JsonText) in nlohmann::json's order: each
// object's keys in byte order. The documents' other keys are trees
// (report_json.cpp).
#include <replay/report/report_json.hpp>

#include <algorithm>
#include <array>

#include <replay/analysis/analyzer.hpp>
#include <replay/analysis/milliseconds.hpp>
#include <replay/report/inferred_text.hpp>
#include <replay/report/judgement_text.hpp>
#include <replay/report/json_text.hpp>
#include <replay/report/wireshark_ref.hpp>

namespace replay {

using std::chrono::microseconds;

namespace {

void opt_ms(JsonText& w, const std::optional<microseconds>& d) {
  if (d)
    w.number(ms(*d));
  else
    w.null();
}

void interval(JsonText& w, const Interval& i) {
  w.begin_array();
  w.number(ms(i.lo));
  if (i.bounded())
    w.number(ms(i.hi));
  else
    w.null();
  w.end_array();
}

void opt_interval(JsonText& w, const std::optional<Interval>& i) {
  if (i)
    interval(w, *i);
  else
    w.null();
}

template <class Range>
void numbers(JsonText& w, const Range& r) {
  w.begin_array();
  for (const auto& n : r) w.number(n);
  w.end_array();
}

// A frame number where 0 means none.
void frame_or_null(JsonText& w, std::uint64_t frame) {
  if (frame)
    w.number(frame);
  else
    w.null();
}

void rtt(JsonText& w, const RttStats& s) {
  w.begin_object();
  w.key("avg_ms");
  if (const auto v = s.mean_ms())
    w.number(*v);
  else
    w.null();
  w.key("max_ms");
  s.samples ? w.number(ms(s.max)) : w.null();
  w.key("min_ms");
  s.samples ? w.number(ms(s.min)) : w.null();
  w.key("samples").number(s.samples);
  w.key("stdev_ms");
  if (const auto v = s.stdev_ms())
    w.number(*v);
  else
    w.null();
  // The sums avg_ms and stdev_ms are computed from (RttStats), exact: a
  // reader gets the same mean and deviation back (json_report_reader.hpp).
  w.key("sum_sq_us").number(s.sum_sq_us);
  w.key("sum_us").number(s.sum_us);
  w.end_object();
}

void readings(JsonText& w, const std::vector<ReadingResult>& rs) {
  w.begin_array();
  for (const ReadingResult& r : rs) {
    w.begin_object();
    w.key("keeps").boolean(r.keeps);
    w.key("reading").string(to_string(r.reading));
    w.end_object();
  }
  w.end_array();
}

// A judgement's fields, and its words ("message").
template <class Rel>
void judgement(JsonText& w, const Judgement& x, const Options& options, const Rel& rel) {
  const bool rule_5_4 = x.rule == RuleId::rfc6298_5_4;
  w.begin_object();
  w.key("accepted_ms");
  opt_interval(w, x.accepted);
  w.key("alternative_ms");
  opt_interval(w, x.alternative);
  w.key("armed_by").string(to_string(x.armed_by));
  w.key("basis").string(to_string(x.basis));
  w.key("display_filter").string(frame_filter(x.frame));
  w.key("evidence_frames");
  numbers(w, x.evidence);
  w.key("expiry").number(x.expiry);
  w.key("frame").number(x.frame);
  if (x.topic == Topic::flushed_burst) w.key("hold").string(to_string(x.hold));
  if (x.joint_waited) {
    w.key("joint_accepted_ms");
    opt_interval(w, x.joint_accepted);
    w.key("joint_expiries").number(x.joint_expiries);
    w.key("joint_wait_ms");
    opt_interval(w, x.joint_waited);
  }
  w.key("level").string(to_string(x.level));
  w.key("message").string(describe(x, options));
  w.key("other_frame");
  frame_or_null(w, x.other_frame);
  w.key("other_prev_frame");
  frame_or_null(w, x.other_prev_frame);
  w.key("outcome").string(to_string(x.outcome));
  w.key("predicted_ms");
  opt_interval(w, x.predicted);
  w.key("prev_wait_ms");
  opt_interval(w, x.prev_waited);
  w.key("readings");
  readings(w, x.readings);
  if (rule_5_4) w.key("rel_seq").number(x.rel_seq);
  w.key("rel_time").number(rel(x.time));
  if (rule_5_4) w.key("rel_una").number(x.rel_una);
  w.key("rule").string(to_string(x.rule));
  w.key("setting");
  if (x.setting.kind == SettingUse::Kind::none) {
    w.null();
  } else {
    w.begin_object();
    w.key("count").number(x.setting.count);
    w.key("kind").string(to_string(x.setting.kind));
    w.key("name");
    x.setting.name.empty() ? w.null() : w.string(x.setting.name);
    w.key("value_ms");
    interval(w, x.setting.value);
    w.end_object();
  }
  w.key("step_ns").number(static_cast<std::int64_t>(x.step.count()));
  w.key("syn").boolean(x.syn);
  w.key("time").number(to_seconds(x.time));
  w.key("topic").string(to_string(x.topic));
  w.key("wait_ms");
  opt_interval(w, x.waited);
  w.end_object();
}

void inferred(JsonText& w, const SenderReport& s, const Options& options) {
  const InferredSettings& in = s.inferred;
  w.begin_object();
  w.key("additive_ms");
  opt_ms(w, in.additive);
  w.key("cap_reached_ms");
  opt_ms(w, in.plateau);
  w.key("evidence_frames");
  numbers(w, in.evidence);
  w.key("fallback_57");
  in.fallback_57 == Seen57::unknown ? w.null() : w.string(to_string(in.fallback_57));
  w.key("first_rto_ms");
  opt_ms(w, in.min_first_wait);
  w.key("initial_rto_ms");
  opt_ms(w, in.initial_rto);
  w.key("linear_data_timeouts").number(in.linear_data);
  w.key("loss_probes").number(in.probes);
  w.key("max_lateness_ms");
  opt_ms(w, in.lateness);
  w.key("rto_floor");
  in.floor == RtoFloor::unknown ? w.null() : w.string(to_string(in.floor));
  w.key("settings").begin_array();
  for (std::string_view name : in.settings) w.string(name);
  w.end_array();
  w.key("summary").string(summarize(s, options));
  w.key("syn_linear_timeouts");
  in.syn_linear ? w.number(*in.syn_linear) : w.null();
  w.key("syn_waits_ms").begin_array();
  for (microseconds d : in.syn_waits) w.number(ms(d));
  w.end_array();
  w.key("ties").begin_array();
  for (std::string_view name : in.ties) w.string(name);
  w.end_array();
  w.key("tsval_hz");
  in.tsval_hz ? w.number(*in.tsval_hz) : w.null();
  w.end_object();
}

// "retransmissions": the count of each retransmission kind and of
// out-of-order first transmissions, by name.
void retransmissions(JsonText& w, const SenderReport& s) {
  std::array<std::pair<std::string_view, std::uint64_t>, kSendKinds> kinds{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < kSendKinds; ++k) {
    const auto kind = static_cast<SendKind>(k);
    if (is_retransmission(kind) || kind == SendKind::out_of_order) kinds[n++] = {to_string(kind), s.by_kind[k]};
  }
  std::sort(kinds.begin(), kinds.begin() + static_cast<std::ptrdiff_t>(n));
  w.begin_object();
  for (std::size_t i = 0; i < n; ++i) w.key(kinds[i].first).number(kinds[i].second);
  w.end_object();
}

template <class Rel>
void timeout(JsonText& w, const TimeoutRecord& t, const Rel& rel) {
  w.begin_object();
  w.key("accepted_ms");
  interval(w, t.accepted);
  w.key("alternative_ms");
  opt_interval(w, t.alternative);
  w.key("armed_by").string(to_string(t.armed_by));
  // Schema 1's names (backoff, observed_rto_ms, predicted_rto_ms, relative),
  // kept for its readers: the expiry number, the wait's latest reading, the
  // prediction's low end, the doubling basis.
  w.key("backoff").number(t.expiry);
  w.key("basis").string(to_string(t.basis));
  w.key("clock").string(to_string(t.clock));
  w.key("display_filter").string(frame_filter(t.frame));
  w.key("expiry").number(t.expiry);
  w.key("frame").number(t.frame);
  w.key("observed_rto_ms");
  t.wait_unknown ? w.null() : w.number(ms(t.wait.lo));
  w.key("predicted_ms");
  interval(w, t.predicted);
  w.key("predicted_rto_ms").number(ms(t.predicted.lo));
  w.key("readings");
  readings(w, t.readings);
  w.key("rel_time").number(rel(t.time));
  w.key("relative").boolean(t.basis == Basis::doubling);
  w.key("rules").begin_array();
  for (RuleId r : t.rules) w.string(to_string(r));
  w.end_array();
  w.key("seq").number(t.rel_seq);
  w.key("syn").boolean(t.syn);
  w.key("time").number(to_seconds(t.time));
  w.key("verdict").string(to_string(t.verdict));
  w.key("wait_ms");
  t.wait_unknown ? w.null() : interval(w, t.wait);
  w.end_object();
}

// One event of a sender's timeline (--timeline): what `timeline --csv`
// writes of it, and what the pictures draw (its length and SACK blocks).
template <class Rel>
void timeline_event(JsonText& w, const TimelineEvent& e, const Rel& rel) {
  w.begin_object();
  w.key("backoff").number(e.backoff);
  w.key("copy_of");
  frame_or_null(w, e.copy_of);
  w.key("event").string(e.event);
  w.key("frame").number(e.frame);
  w.key("len").number(e.len);
  w.key("rel_seq").number(e.rel_seq);
  w.key("rel_time").number(rel(e.time));
  w.key("rto_ms").number(ms(e.rto));
  w.key("rttvar_ms");
  opt_ms(w, e.rttvar);
  w.key("sack").begin_array();
  for (std::size_t i = 0; i < e.sack_count; ++i) {
    w.begin_array();
    w.number(e.sack[i].first);
    w.number(e.sack[i].second);
    w.end_array();
  }
  w.end_array();
  w.key("sample_kind");
  e.sample_kind ? w.string(to_string(*e.sample_kind)) : w.null();
  w.key("sample_ms");
  opt_ms(w, e.sample);
  w.key("srtt_ms");
  opt_ms(w, e.srtt);
  w.end_object();
}

void sender(JsonText& w, const FlowReport& f, const Options& options, std::size_t dir, CaptureTime origin,
            const ReportView& view) {
  const auto rel = [&](CaptureTime t) { return seconds_between(t, origin); };
  const SenderReport& s = f.senders[dir];
  w.begin_object();
  w.key("bytes").number(s.bytes);
  w.key("data_segments").number(s.data_segments);
  w.key("direction").string(dir == 0 ? "client->server" : "server->client");
  w.key("dst").string(to_string(s.dst));
  w.key("final").begin_object();
  w.key("backoff").number(s.backoff);
  w.key("rto_ms").number(ms(s.rto));
  w.key("rttvar_ms");
  opt_ms(w, s.rttvar);
  w.key("srtt_ms");
  opt_ms(w, s.srtt);
  w.end_object();
  w.key("findings").begin_array();
  std::array<std::uint64_t, 4> hidden{};  // by Level
  for (const auto& x : s.findings) {
    if (view.shows(x))
      judgement(w, x, options, rel);
    else
      ++hidden[static_cast<std::size_t>(x.level)];
  }
  w.end_array();
  // The findings the selection (--level, -Y) hid, by level: the text report
  // counts them, and the sender's summary says whether any is a MUST.
  w.key("findings_hidden").begin_object();
  w.key("info").number(hidden[static_cast<std::size_t>(Level::info)]);
  w.key("may").number(hidden[static_cast<std::size_t>(Level::may)]);
  w.key("must").number(hidden[static_cast<std::size_t>(Level::must)]);
  w.key("should").number(hidden[static_cast<std::size_t>(Level::should)]);
  w.end_object();
  w.key("inferred");
  inferred(w, s, options);
  w.key("keepalives").number(s.keepalives);
  w.key("new_data_probes").number(s.by_kind[static_cast<std::size_t>(SendKind::tlp_new_data)]);
  w.key("packets").number(s.packets);
  w.key("peer_seen").boolean(s.peer_seen);
  if (view.timeline) {
    // The probes that carried a byte (BSD, Windows: SenderReport::by_kind),
    // which the picture's legend names; "keepalives" and
    // "zero_window_probes" count them all.
    w.key("probes_with_data").begin_object();
    w.key("keepalive").number(s.by_kind[static_cast<std::size_t>(SendKind::keepalive)]);
    w.key("zero_window_probe").number(s.by_kind[static_cast<std::size_t>(SendKind::zero_window_probe)]);
    w.end_object();
  }
  w.key("profile").string(s.profile);
  w.key("retransmissions");
  retransmissions(w, s);
  w.key("rtt").begin_object();
  w.key("karn");
  rtt(w, s.rtt_karn);
  w.key("ts_echo");
  rtt(w, s.rtt_ts_echo);
  w.end_object();
  w.key("rtt_samples").begin_object();
  w.key("ambiguous_acks").number(s.ambiguous_acks);
  w.key("capture_rtt_bound").boolean(s.capture_rtt_bound);
  w.key("capture_rtt_ms");
  opt_ms(w, s.capture_rtt);
  w.key("karn").number(s.samples_seq);
  w.key("refused").number(s.samples_refused);
  w.key("ts_echo").number(s.samples_ts);
  w.end_object();
  w.key("sack").boolean(s.sack);
  w.key("src").string(to_string(s.src));
  if (view.timeline) {
    w.key("timeline").begin_array();
    for (const auto& e : s.timeline) timeline_event(w, e, rel);
    w.end_array();
  }
  w.key("timeouts").begin_array();
  for (const auto& t : s.timeouts) timeout(w, t, rel);
  w.end_array();
  w.key("timestamps").boolean(s.timestamps);
  w.key("tsval_peer").boolean(s.tsval_peer);
  w.key("tsval_sent").boolean(s.tsval_sent);
  w.key("zero_window_probes").number(s.zero_window_probes);
  w.end_object();
}

// flows --json's sender: its counts only.
void sender_counts(JsonText& w, const SenderReport& s, std::size_t dir) {
  w.begin_object();
  w.key("bytes").number(s.bytes);
  w.key("data_segments").number(s.data_segments);
  w.key("direction").string(dir == 0 ? "client->server" : "server->client");
  w.key("dst").string(to_string(s.dst));
  w.key("packets").number(s.packets);
  w.key("src").string(to_string(s.src));
  w.end_object();
}

// A connection's own fields, as both documents give them, with "senders"
// (written by `senders`) in its place among them.
template <class Senders>
void connection(JsonText& w, const FlowReport& f, std::optional<std::uint64_t> stream, CaptureTime origin,
                const Senders& senders) {
  w.begin_object();
  w.key("alongside");
  if (f.alongside) {
    const AlongsideOf& a = *f.alongside;
    w.begin_object();
    w.key("another_clock");
    a.another_clock ? w.boolean(*a.another_clock) : w.null();
    w.key("flow").number(a.flow);
    w.key("host").string(a.server ? "server" : "client");
    w.key("isn").number(a.isn);
    w.key("other_isn").number(a.other_isn);
    w.key("syn_frame");
    frame_or_null(w, a.syn_frame);
    w.end_object();
  } else {
    w.null();
  }
  w.key("capture_duplicate_frames");
  numbers(w, f.duplicate_frames);
  w.key("capture_duplicates").number(f.capture_duplicates);
  w.key("client").string(to_string(f.client));
  w.key("duration_s").number(seconds_between(f.last_time, f.first_time));
  w.key("file").string(f.file);
  w.key("fin").boolean(f.saw_fin);
  w.key("first_frame").number(f.first_frame);
  w.key("flow").number(f.id);
  w.key("last_frame").number(f.last_frame);
  w.key("packets").number(f.packets);
  w.key("rel_time").number(seconds_between(f.first_time, origin));
  w.key("rst").boolean(f.saw_rst);
  w.key("senders").begin_array();
  senders();
  w.end_array();
  w.key("server").string(to_string(f.server));
  w.key("stream_filter").string(stream_filter(f, stream));
  w.key("syn").boolean(f.saw_syn);
  w.key("tcp_stream");
  stream ? w.number(*stream) : w.null();
  w.key("time").number(to_seconds(f.first_time));
  w.key("virtual_networks").begin_array();
  for (const VirtualNetwork& v : f.vnets) w.string(v.empty() ? std::string("none") : to_string(v));
  w.end_array();
  w.key("vnet_apart").boolean(f.vnet_apart);
  w.end_object();
}

}  // namespace

void write_flow_json(std::string& out, const FlowReport& f, const Options& options,
                     std::optional<std::uint64_t> stream, CaptureTime origin, const ReportView& view,
                     int base_indent) {
  JsonText w(out, base_indent);
  connection(w, f, stream, origin, [&] {
    for (std::size_t dir = 0; dir < 2; ++dir)
      if (f.senders[dir].data_segments != 0 && view.shows(f.senders[dir])) sender(w, f, options, dir, origin, view);
  });
}

void write_flow_list_entry(std::string& out, const FlowReport& f, std::optional<std::uint64_t> stream,
                           CaptureTime origin, int base_indent) {
  JsonText w(out, base_indent);
  connection(w, f, stream, origin, [&] {
    for (std::size_t dir = 0; dir < 2; ++dir) sender_counts(w, f.senders[dir], dir);
  });
}

}  // namespace replay
