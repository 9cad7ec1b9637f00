// A check --json document read back into the analysis' values
// (json_report_reader.hpp): the inverse of json_flow_entry.cpp and
// report_json.cpp, key by key.
#include <replay/report/json_report_reader.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <replay/analysis/milliseconds.hpp>
#include <replay/report/display_filter.hpp>
#include <replay/report/input_counts.hpp>
#include <replay/report/report_text.hpp>

namespace replay {

using nlohmann::json;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

namespace {

// ---- where a value is, for errors ---------------------------------------

// The document being read: its name, what part of it ("flow 7"), and the
// root every path is counted from.
struct Source {
  const std::string& document;
  std::string part;  // "flow 7", or empty for the document's top level
  const json& root;
};

// The path from `at` down to `target` ("senders[0].timeouts[2]"); false
// when `target` is not inside `at`. Only computed for an error.
bool path_to(const json& at, const json* target, std::string& path) {
  if (&at == target) return true;
  const std::size_t keep = path.size();
  if (at.is_object()) {
    for (const auto& [k, v] : at.items()) {
      path += (path.empty() ? "" : ".") + k;
      if (path_to(v, target, path)) return true;
      path.resize(keep);
    }
  } else if (at.is_array()) {
    for (std::size_t i = 0; i < at.size(); ++i) {
      path += fmt::format("[{}]", i);
      if (path_to(at[i], target, path)) return true;
      path.resize(keep);
    }
  }
  return false;
}

// A value of the document, and where it is.
class V {
 public:
  V(const json& j, const Source& s) : j_(&j), s_(&s) {}

  [[noreturn]] void fail(std::string_view what) const { fail_at({}, what); }

  // Member `key` of this object: missing, it is an error.
  V operator[](std::string_view key) const {
    if (!j_->is_object()) fail("not an object");
    const auto it = j_->find(key);
    if (it == j_->end())
      fail_at(key, "missing (a document of another version of pcap-replay? merge --text needs the keys of this one's)");
    return V(*it, *s_);
  }
  bool has(std::string_view key) const { return j_->is_object() && j_->contains(key); }
  bool is_null() const { return j_->is_null(); }

  std::uint64_t u64() const {
    if (j_->is_number_unsigned()) return j_->get<std::uint64_t>();
    if (j_->is_number_integer() && j_->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(j_->get<std::int64_t>());
    fail("not a count (an integer, 0 or more)");
  }
  std::int64_t i64() const {
    if (j_->is_number_unsigned()) {
      if (j_->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail("out of range");
      return static_cast<std::int64_t>(j_->get<std::uint64_t>());
    }
    if (!j_->is_number_integer()) fail("not an integer");
    return j_->get<std::int64_t>();
  }
  template <class T>
  T narrow() const {
    const std::uint64_t n = u64();
    if (n > std::numeric_limits<T>::max()) fail("out of range");
    return static_cast<T>(n);
  }
  double f64() const {
    if (!j_->is_number()) fail("not a number");
    const double x = j_->get<double>();
    if (!std::isfinite(x)) fail("not a finite number");
    return x;
  }
  bool boolean() const {
    if (!j_->is_boolean()) fail("not true or false");
    return j_->get<bool>();
  }
  const std::string& str() const {
    if (!j_->is_string()) fail("not a string");
    return j_->get_ref<const std::string&>();
  }
  std::size_t size() const {
    if (!j_->is_array()) fail("not an array");
    return j_->size();
  }
  V at(std::size_t i) const { return V((*j_)[i], *s_); }
  template <class F>
  void each(F f) const {
    const std::size_t n = size();
    for (std::size_t i = 0; i < n; ++i) f(at(i));
  }

 private:
  [[noreturn]] void fail_at(std::string_view key, std::string_view what) const {
    std::string path;
    path_to(s_->root, j_, path);
    if (!key.empty()) path += (path.empty() ? "" : ".") + std::string(key);
    std::string where = s_->document.empty() ? std::string("the document") : s_->document;
    if (!s_->part.empty()) where += ": " + s_->part;
    throw JsonReadError(fmt::format("{}: {}: {}", where, path.empty() ? std::string("its top level") : path, what));
  }
  const json* j_;
  const Source* s_;
};

// ---- values ---------------------------------------------------------------

// The enumerator of E whose to_string is the value's text, among the first
// `bound` (every to_string here names a value beyond its enumerators as one
// of them, so the first match is the value).
template <class E>
E enum_of(const V& v, std::size_t bound, std::string_view what) {
  const std::string& s = v.str();
  for (std::size_t i = 0; i < bound; ++i) {
    const auto e = static_cast<E>(i);
    if (to_string(e) == s) return e;
  }
  v.fail(fmt::format("\"{}\" is not a {}", s, what));
}
// Enumerations whose to_string has a fallback: any bound is safe.
constexpr std::size_t kEnumBound = 64;

RuleId rule_of(const V& v) { return enum_of<RuleId>(v, kRuleIds, "rule"); }
// The key of a level in the documents' counts: "must", "should", "may", "info".
const char* level_key(Level l) {
  switch (l) {
    case Level::must: return "must";
    case Level::should: return "should";
    case Level::may: return "may";
    case Level::info: return "info";
  }
  return "info";
}
constexpr std::array<Level, 4> kLevels{Level::must, Level::should, Level::may, Level::info};
Level level_of_text(const V& v) {
  const auto l = parse_level(v.str());
  if (!l) v.fail("not a level (MUST, SHOULD, MAY, INFO)");
  return *l;
}

// The whole microseconds a document's ms value was written from
// (ms(microseconds): the same double again), the nearest when none is.
microseconds us_of(const V& v) {
  const double x = v.f64();
  if (std::fabs(x) > 9e12) v.fail("out of range (more than 285 years)");
  const std::int64_t nearest = std::llround(x * 1000.0);
  for (std::int64_t us : {nearest, nearest - 1, nearest + 1})
    if (ms(microseconds{us}) == x) return microseconds{us};
  return microseconds{nearest};
}
std::optional<microseconds> opt_us(const V& v) {
  if (v.is_null()) return std::nullopt;
  return us_of(v);
}
// A duration no writer gives below 0 (an RTO, an RTT sample, SRTT, RTTVAR).
microseconds length_us(const V& v) {
  const microseconds d = us_of(v);
  if (d.count() < 0) v.fail("negative (a duration)");
  return d;
}
std::optional<microseconds> opt_length_us(const V& v) {
  if (v.is_null()) return std::nullopt;
  return length_us(v);
}

// [lo, hi] in ms; hi null: unbounded (Interval::at_least).
Interval interval_of(const V& v) {
  if (v.size() != 2) v.fail("not an interval of ms ([lo, hi])");
  Interval i;
  i.lo = us_of(v.at(0));
  i.hi = v.at(1).is_null() ? microseconds::max() : us_of(v.at(1));
  return i;
}
std::optional<Interval> opt_interval(const V& v) {
  if (v.is_null()) return std::nullopt;
  return interval_of(v);
}

// The nanoseconds whose seconds (seconds_between: ns / 1e9 as a double) are
// the document's value exactly, the nearest when none is.
std::int64_t ns_of_seconds(const V& v) {
  const double s = v.f64();
  if (std::fabs(s) > 9.2e9) v.fail("out of range (more than 292 years)");
  std::int64_t ns = std::llround(s * 1e9);
  const std::int64_t first = ns;
  for (int i = 0; i < 16; ++i) {
    const double b = static_cast<double>(ns) / 1e9;
    if (b == s) return ns;
    const std::int64_t step = std::max<std::int64_t>(1, std::llround(std::fabs(s - b) * 1e9));
    ns += b < s ? step : -step;
  }
  return first;
}

CaptureTime time_at(const V& v, CaptureTime origin) {
  const std::int64_t d = ns_of_seconds(v);
  std::int64_t t = 0;
  if (__builtin_add_overflow(origin.time_since_epoch().count(), d, &t)) v.fail("a time out of range");
  return CaptureTime{nanoseconds{t}};
}

std::uint64_t frame_or_zero(const V& v) { return v.is_null() ? 0 : v.u64(); }

std::vector<std::uint64_t> frames_of(const V& v) {
  std::vector<std::uint64_t> out;
  out.reserve(v.size());
  v.each([&](const V& x) { out.push_back(x.u64()); });
  return out;
}

// "198.18.0.1:5001", "[fd00::1]:5001".
Endpoint endpoint_of(const V& v) {
  const std::string& s = v.str();
  const std::size_t colon = s.rfind(':');
  Endpoint e;
  std::optional<wire::IpAddress> a;
  if (colon != std::string::npos && colon + 1 < s.size()) {
    std::string_view host(s.data(), colon);
    const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
    if (bracketed) host = host.substr(1, host.size() - 2);
    a = wire::IpAddress::parse(host);
    if (a && a->is_v6() != bracketed) a.reset();  // IPv6 goes in brackets, IPv4 never
    const char* b = s.data() + colon + 1;
    const auto r = std::from_chars(b, s.data() + s.size(), e.port);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) a.reset();
  }
  if (!a) v.fail(fmt::format("\"{}\" is not an endpoint (ADDRESS:PORT, [IPv6]:PORT)", s));
  e.address = *a;
  return e;
}

// "vlan 10", "svlan 100/vlan 200", "vxlan 5001", "none" (untagged).
VirtualNetwork vnet_of(const V& v) {
  const std::string& s = v.str();
  VirtualNetwork n;
  if (s == "none") return n;
  std::string_view rest = s;
  bool ok = !rest.empty();
  while (ok && !rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (slash != std::string_view::npos && rest.empty()) ok = false;
    const std::size_t space = part.find(' ');
    if (space == std::string_view::npos) {
      ok = false;
      break;
    }
    const std::string_view kind = part.substr(0, space), id_text = part.substr(space + 1);
    std::uint32_t id = 0;
    const auto r = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
    ok = r.ec == std::errc() && r.ptr == id_text.data() + id_text.size() && !id_text.empty() && id <= 0xFFFFFFu &&
         n.count < VirtualNetwork::kMaxIds;
    if (!ok) break;
    if (kind == "vlan") n.push(VirtualNetwork::Kind::vlan, id);
    else if (kind == "svlan") n.push(VirtualNetwork::Kind::svlan, id);
    else if (kind == "vxlan") n.push(VirtualNetwork::Kind::vxlan, id);
    else if (kind == "geneve") n.push(VirtualNetwork::Kind::geneve, id);
    else if (kind == "nvgre") n.push(VirtualNetwork::Kind::nvgre, id);
    else ok = false;
  }
  if (!ok || to_string(n) != s) v.fail(fmt::format("\"{}\" is not a virtual network (\"vlan 10\", \"none\", ...)", s));
  return n;
}

// The reports hold names as string_views into the program's own tables
// (profiles, their settings): a name read back is found there, and kept
// for the process' lifetime when it is not (a name of another version).
std::string_view intern(std::string_view s) {
  static std::mutex m;
  static std::set<std::string, std::less<>> pool;
  const std::lock_guard lock(m);
  auto it = pool.find(s);
  if (it == pool.end()) it = pool.emplace(s).first;
  return *it;
}
std::string_view profile_name(const std::string& s) {
  if (const StackProfile* p = find_profile(s); p && p->name == s) return p->name;
  return intern(s);
}
std::string_view setting_name(const std::string& s) {
  for (const StackProfile& p : all_profiles())
    for (const Tunable& t : p.tunables)
      if (t.name == s) return t.name;
  return intern(s);
}

std::vector<ReadingResult> readings_of(const V& v) {
  std::vector<ReadingResult> out;
  v.each([&](const V& r) {
    out.push_back(ReadingResult{enum_of<Reading>(r["reading"], kEnumBound, "reading"), r["keeps"].boolean()});
  });
  return out;
}

// ---- a connection ---------------------------------------------------------

Judgement judgement_of(const V& v, CaptureTime origin) {
  Judgement x;
  x.rule = rule_of(v["rule"]);
  x.level = level_of_text(v["level"]);
  x.outcome = enum_of<Outcome>(v["outcome"], kEnumBound, "outcome");
  x.topic = enum_of<Topic>(v["topic"], kEnumBound, "topic");
  x.basis = enum_of<Basis>(v["basis"], kEnumBound, "basis");
  x.frame = v["frame"].u64();
  x.time = time_at(v["rel_time"], origin);
  x.syn = v["syn"].boolean();
  x.expiry = v["expiry"].narrow<unsigned>();
  x.armed_by = enum_of<ArmCause>(v["armed_by"], kEnumBound, "cause of an arm");
  x.waited = opt_interval(v["wait_ms"]);
  x.prev_waited = opt_interval(v["prev_wait_ms"]);
  x.predicted = opt_interval(v["predicted_ms"]);
  x.accepted = opt_interval(v["accepted_ms"]);
  x.alternative = opt_interval(v["alternative_ms"]);
  x.readings = readings_of(v["readings"]);
  x.evidence = frames_of(v["evidence_frames"]);
  if (const V s = v["setting"]; !s.is_null()) {
    x.setting.kind = enum_of<SettingUse::Kind>(s["kind"], kEnumBound, "setting kind");
    x.setting.count = s["count"].narrow<unsigned>();
    x.setting.name = s["name"].is_null() ? std::string_view() : setting_name(s["name"].str());
    x.setting.value = interval_of(s["value_ms"]);
  }
  // Rule 5.4's only (json_flow_entry.cpp writes them for it alone).
  if (x.rule == RuleId::rfc6298_5_4) {
    x.rel_seq = v["rel_seq"].narrow<std::uint32_t>();
    x.rel_una = v["rel_una"].narrow<std::uint32_t>();
  }
  // A flushed burst's only (json_flow_entry.cpp writes it for that topic alone).
  if (x.topic == Topic::flushed_burst) x.hold = enum_of<HoldSign>(v["hold"], kEnumBound, "hold");
  // Two waits judged together (json_flow_entry.cpp writes them then alone).
  if (v.has("joint_wait_ms")) {
    x.joint_waited = opt_interval(v["joint_wait_ms"]);
    x.joint_accepted = opt_interval(v["joint_accepted_ms"]);
    x.joint_expiries = v["joint_expiries"].narrow<unsigned>();
  }
  x.other_frame = frame_or_zero(v["other_frame"]);
  x.other_prev_frame = frame_or_zero(v["other_prev_frame"]);
  x.step = nanoseconds{v["step_ns"].i64()};
  return x;
}

TimeoutRecord timeout_of(const V& v, CaptureTime origin) {
  TimeoutRecord t;
  t.frame = v["frame"].u64();
  t.time = time_at(v["rel_time"], origin);
  t.rel_seq = v["seq"].narrow<std::uint32_t>();
  t.syn = v["syn"].boolean();
  t.expiry = v["expiry"].narrow<unsigned>();
  t.wait_unknown = v["wait_ms"].is_null();
  if (!t.wait_unknown) t.wait = interval_of(v["wait_ms"]);
  t.basis = enum_of<Basis>(v["basis"], kEnumBound, "basis");
  t.predicted = interval_of(v["predicted_ms"]);
  t.accepted = interval_of(v["accepted_ms"]);
  t.alternative = opt_interval(v["alternative_ms"]);
  t.armed_by = enum_of<ArmCause>(v["armed_by"], kEnumBound, "cause of an arm");
  t.verdict = enum_of<Verdict>(v["verdict"], kEnumBound, "verdict");
  t.clock = enum_of<ClockUsed>(v["clock"], kEnumBound, "clock");
  t.readings = readings_of(v["readings"]);
  v["rules"].each([&](const V& r) { t.rules.push_back(rule_of(r)); });
  return t;
}

// A timeline event's name as the analysis holds it (a view of its own
// tables: TimelineEvent::event): a SendKind's, the peer's "ack", "dup-ack",
// "sack", kCaptureCopyEvent or kHeldSampleEvent.
std::string_view timeline_event_name(const V& v) {
  const std::string& s = v.str();
  for (std::size_t k = 0; k < kSendKinds; ++k)
    if (const std::string_view name = to_string(static_cast<SendKind>(k)); name == s) return name;
  for (const std::string_view name : {std::string_view("ack"), std::string_view("dup-ack"), std::string_view("sack"),
                                      kCaptureCopyEvent, kHeldSampleEvent})
    if (name == s) return name;
  v.fail(fmt::format("\"{}\" is not a timeline event", s));
}

TimelineEvent timeline_event_of(const V& v, CaptureTime origin) {
  TimelineEvent e;
  e.backoff = v["backoff"].narrow<unsigned>();
  e.copy_of = frame_or_zero(v["copy_of"]);
  e.event = timeline_event_name(v["event"]);
  e.frame = v["frame"].u64();
  e.len = v["len"].narrow<std::uint32_t>();
  e.rel_seq = v["rel_seq"].narrow<std::uint32_t>();
  e.time = time_at(v["rel_time"], origin);
  e.rto = length_us(v["rto_ms"]);
  e.rttvar = opt_length_us(v["rttvar_ms"]);
  const V sack = v["sack"];
  if (sack.size() > e.sack.size()) sack.fail(fmt::format("more than {} SACK blocks", e.sack.size()));
  for (std::size_t i = 0; i < sack.size(); ++i) {
    const V block = sack.at(i);
    if (block.size() != 2) block.fail("not a block [left, right]");
    e.sack[i] = {block.at(0).narrow<std::uint32_t>(), block.at(1).narrow<std::uint32_t>()};
  }
  e.sack_count = static_cast<std::uint8_t>(sack.size());
  if (const V kind = v["sample_kind"]; !kind.is_null()) e.sample_kind = enum_of<SampleKind>(kind, 2, "sample kind");
  e.sample = opt_length_us(v["sample_ms"]);
  e.srtt = opt_length_us(v["srtt_ms"]);
  return e;
}

RttStats rtt_of(const V& v) {
  RttStats s;
  s.samples = v["samples"].u64();
  if (s.samples) {
    s.min = us_of(v["min_ms"]);
    s.max = us_of(v["max_ms"]);
  }
  s.sum_us = v["sum_us"].f64();
  s.sum_sq_us = v["sum_sq_us"].f64();
  return s;
}

InferredSettings inferred_of(const V& v) {
  InferredSettings in;
  in.additive = opt_us(v["additive_ms"]);
  in.plateau = opt_us(v["cap_reached_ms"]);
  in.evidence = frames_of(v["evidence_frames"]);
  if (!v["fallback_57"].is_null()) in.fallback_57 = enum_of<Seen57>(v["fallback_57"], kEnumBound, "5.7 reading");
  in.min_first_wait = opt_us(v["first_rto_ms"]);
  in.initial_rto = opt_us(v["initial_rto_ms"]);
  in.linear_data = v["linear_data_timeouts"].narrow<unsigned>();
  in.probes = v["loss_probes"].u64();
  in.lateness = opt_us(v["max_lateness_ms"]);
  if (!v["rto_floor"].is_null()) in.floor = enum_of<RtoFloor>(v["rto_floor"], kEnumBound, "RTO floor");
  v["settings"].each([&](const V& s) { in.settings.push_back(setting_name(s.str())); });
  if (!v["syn_linear_timeouts"].is_null()) in.syn_linear = v["syn_linear_timeouts"].narrow<unsigned>();
  v["syn_waits_ms"].each([&](const V& w) { in.syn_waits.push_back(us_of(w)); });
  v["ties"].each([&](const V& t) { in.ties.push_back(profile_name(t.str())); });
  if (!v["tsval_hz"].is_null()) in.tsval_hz = v["tsval_hz"].f64();
  return in;
}

// A frame `view` does not show a finding at (its -Y frame.number terms),
// for a stand-in of a finding at level `l` it hid; nullopt when it shows
// every frame.
std::optional<std::uint64_t> hidden_frame(const ReportView& view, Level l) {
  if (!at_least(l, view.level)) return 0;  // the level hides it, at any frame
  if (!view.display) return std::nullopt;
  // The frames a conjunction of comparisons hides are runs whose ends are
  // next to the numbers compared: one of these is hidden, if any is.
  std::vector<std::uint64_t> candidates{0, ~std::uint64_t{0}};
  for (const DisplayFilter::Term& t : view.display->terms) {
    if (t.field != DisplayFilter::Field::frame_number) continue;
    candidates.push_back(t.number);
    if (t.number > 0) candidates.push_back(t.number - 1);
    if (t.number < ~std::uint64_t{0}) candidates.push_back(t.number + 1);
  }
  for (std::uint64_t c : candidates)
    if (!view.display->shows_frame(c)) return c;
  return std::nullopt;
}

void sender_of(const V& v, SenderReport& s, const EntryContext& ctx) {
  s.bytes = v["bytes"].u64();
  s.data_segments = v["data_segments"].u64();
  s.dst = endpoint_of(v["dst"]);
  s.src = endpoint_of(v["src"]);
  const V fin = v["final"];
  s.backoff = fin["backoff"].narrow<unsigned>();
  s.rto = us_of(fin["rto_ms"]);
  s.rttvar = opt_us(fin["rttvar_ms"]);
  s.srtt = opt_us(fin["srtt_ms"]);
  v["findings"].each([&](const V& x) { s.findings.push_back(judgement_of(x, ctx.origin)); });
  // The findings the selection hid: stand-ins it hides too (EntryContext::view).
  const V hidden = v["findings_hidden"];
  for (Level l : kLevels) {
    const V n = hidden[level_key(l)];
    const std::uint64_t count = n.u64();
    if (count == 0) continue;
    const auto frame = hidden_frame(ctx.view, l);
    if (!frame) n.fail(fmt::format("{} finding(s) hidden where the document's selection shows every {} finding", count,
                                   to_string(l)));
    if (count > s.findings.max_size() - s.findings.size()) n.fail("out of range");
    Judgement stand_in;
    stand_in.level = l;
    stand_in.frame = *frame;
    s.findings.insert(s.findings.end(), count, stand_in);
  }
  s.inferred = inferred_of(v["inferred"]);
  s.keepalives = v["keepalives"].u64();
  s.by_kind[static_cast<std::size_t>(SendKind::tlp_new_data)] = v["new_data_probes"].u64();
  s.packets = v["packets"].u64();
  s.peer_seen = v["peer_seen"].boolean();
  s.profile = profile_name(v["profile"].str());
  const V retx = v["retransmissions"];
  for (std::size_t k = 0; k < kSendKinds; ++k) {
    const auto kind = static_cast<SendKind>(k);
    if (is_retransmission(kind) || kind == SendKind::out_of_order) s.by_kind[k] = retx[to_string(kind)].u64();
  }
  const V rtt = v["rtt"];
  s.rtt_karn = rtt_of(rtt["karn"]);
  s.rtt_ts_echo = rtt_of(rtt["ts_echo"]);
  const V samples = v["rtt_samples"];
  s.ambiguous_acks = samples["ambiguous_acks"].u64();
  s.capture_rtt_bound = samples["capture_rtt_bound"].boolean();
  s.capture_rtt = opt_length_us(samples["capture_rtt_ms"]);
  s.samples_seq = samples["karn"].u64();
  s.samples_refused = samples["refused"].u64();
  s.samples_ts = samples["ts_echo"].u64();
  s.sack = v["sack"].boolean();
  // check --json --timeline's (ReportView::timeline), with the counts its picture reads.
  if (v.has("timeline")) {
    v["timeline"].each([&](const V& e) { s.timeline.push_back(timeline_event_of(e, ctx.origin)); });
    const V probes = v["probes_with_data"];
    s.by_kind[static_cast<std::size_t>(SendKind::keepalive)] = probes["keepalive"].u64();
    s.by_kind[static_cast<std::size_t>(SendKind::zero_window_probe)] = probes["zero_window_probe"].u64();
  }
  v["timeouts"].each([&](const V& t) { s.timeouts.push_back(timeout_of(t, ctx.origin)); });
  s.timestamps = v["timestamps"].boolean();
  s.tsval_peer = v["tsval_peer"].boolean();
  s.tsval_sent = v["tsval_sent"].boolean();
  s.zero_window_probes = v["zero_window_probes"].u64();
}

std::string part_of(const json& entry) {
  const auto it = entry.is_object() ? entry.find("flow") : entry.end();
  if (it != entry.end() && it->is_number_unsigned()) return fmt::format("flow {}", it->get<std::uint64_t>());
  return "a \"flows\" entry";
}

// ---- the document -----------------------------------------------------------

InputFile input_of(const V& v) {
  InputFile in;
  in.name = v["file"].str();
  in.opened = true;
  if (!v["usable"].boolean()) {
    in.error = v["error"].str();
    if (in.error.empty()) v["error"].fail("empty for an unusable input");
  }
  in.frames = v["frames"].u64();
  in.tcp_segments = v["tcp_segments"].u64();
  in.read_error = v["read_error"].boolean();
  v["lost"].each([&](const V& l) {
    LostRange r;
    r.byte_begin = l["byte_begin"].u64();
    r.byte_end = l["byte_end"].u64();
    r.frames_before = l["frames_before"].u64();
    if (!l["frames_lost"].is_null()) r.frames_lost = l["frames_lost"].u64();
    r.to_end = l["to_end"].boolean();
    in.lost.push_back(r);
  });
  if (v.has("kernel_drops")) in.kernel_drops = v["kernel_drops"].u64();
  if (!v["first_time_ns"].is_null()) in.first_frame_time = CaptureTime{nanoseconds{v["first_time_ns"].i64()}};
  if (v.has("clock_steps_back")) {
    in.clock_steps_back = v["clock_steps_back"].u64();
    v["clock_rebased"].each([&](const V& c) {
      ClockStep step;
      step.frame = c["frame"].u64();
      step.rebased = true;
      if (!c["returns_from"].is_null()) step.returns_from = c["returns_from"].u64();
      const auto ns = [](const V& x) {
        const double v_ms = x.f64();
        if (std::fabs(v_ms) > 9e12) x.fail("out of range");
        return nanoseconds{std::llround(v_ms * 1e6)};
      };
      step.back = ns(c["back_ms"]);
      if (step.returns_from) step.back = -step.back;
      step.rebase = ns(c["rebase_ms"]);
      in.clock_rebased.push_back(step);
    });
  }
  return in;
}

FlowTotals totals_of(const V& v) {
  FlowTotals t;
  t.flows = v["flows"].u64();
  t.retransmissions = v["retransmissions"].u64();
  t.timeouts = v["timeouts"].u64();
  for (Level l : kLevels) t.findings[static_cast<std::size_t>(l)] = v[level_key(l)].u64();
  return t;
}

std::size_t file_index_of(const V& v, const Report& r) {
  const std::string& name = v.str();
  for (std::size_t i = 0; i < r.inputs.size(); ++i)
    if (r.inputs[i].name == name) return i;
  v.fail(fmt::format("\"{}\" is none of the document's inputs", name));
}

lockstep::Offset offset_of(const V& v) {
  lockstep::Offset o;
  o.retry = v["retry"].narrow<unsigned>();
  o.offset = us_of(v["offset_ms"]);
  o.spread = us_of(v["spread_ms"]);
  o.members = v["members"].narrow<std::size_t>();
  o.frames = frames_of(v["frames"]);
  return o;
}

void lockstep_of(const V& v, Report& r) {
  v.each([&](const V& e) {
    const auto kind = enum_of<lockstep::RetryKind>(e["retry_kind"], 2, "retry kind");
    if (e["lockstep"].boolean()) {
      lockstep::Group g;
      g.file_index = file_index_of(e["file"], r);
      g.server = endpoint_of(e["server"]);
      g.kind = kind;
      g.members = e["members"].narrow<std::size_t>();
      g.client_hosts = e["client_hosts"].narrow<std::size_t>();
      g.start = time_at(e["rel_time"], r.first_time);
      g.start_frame = e["start_frame"].u64();
      e["offsets"].each([&](const V& o) { g.offsets.push_back(offset_of(o)); });
      if (!e["dispersed"].is_null()) g.dispersed = offset_of(e["dispersed"]);
      g.message = e["message"].str();
      r.lockstep.groups.push_back(std::move(g));
    } else {
      lockstep::Dispersion d;
      d.file_index = file_index_of(e["file"], r);
      d.server = endpoint_of(e["server"]);
      d.kind = kind;
      d.chains = e["members"].narrow<std::size_t>();
      d.spread = us_of(e["spread_ms"]);
      d.stddev = us_of(e["stddev_ms"]);
      d.largest_cluster = e["largest_cluster"].narrow<std::size_t>();
      d.first_frame = e["first_frame"].u64();
      d.message = e["message"].str();
      r.lockstep.dispersed.push_back(std::move(d));
    }
  });
}

}  // namespace

FlowReport from_json_entry(const json& entry, const EntryContext& ctx) {
  const Source src{ctx.document, part_of(entry), entry};
  const V v(entry, src);
  FlowReport f;
  f.id = v["flow"].narrow<std::size_t>();
  f.file = v["file"].str();
  f.file_index = static_cast<std::uint32_t>(ctx.file_index);
  f.client = endpoint_of(v["client"]);
  f.server = endpoint_of(v["server"]);
  f.packets = v["packets"].u64();
  f.first_frame = v["first_frame"].u64();
  f.last_frame = v["last_frame"].u64();
  f.first_time = time_at(v["rel_time"], ctx.origin);
  f.last_time = time_at(v["duration_s"], f.first_time);
  f.saw_syn = v["syn"].boolean();
  f.saw_fin = v["fin"].boolean();
  f.saw_rst = v["rst"].boolean();
  f.capture_duplicates = v["capture_duplicates"].u64();
  f.duplicate_frames = frames_of(v["capture_duplicate_frames"]);
  v["virtual_networks"].each([&](const V& n) { f.vnets.push_back(vnet_of(n)); });
  f.vnet_apart = v["vnet_apart"].boolean();
  if (const V a = v["alongside"]; !a.is_null()) {
    AlongsideOf al;
    al.flow = a["flow"].narrow<std::size_t>();
    const std::string& host = a["host"].str();
    if (host != "server" && host != "client") a["host"].fail("neither \"server\" nor \"client\"");
    al.server = host == "server";
    al.isn = a["isn"].narrow<std::uint32_t>();
    al.other_isn = a["other_isn"].narrow<std::uint32_t>();
    al.syn_frame = frame_or_zero(a["syn_frame"]);
    if (!a["another_clock"].is_null()) al.another_clock = a["another_clock"].boolean();
    f.alongside = al;
  }
  std::array<bool, 2> seen{};
  v["senders"].each([&](const V& s) {
    const std::string& dir = s["direction"].str();
    if (dir != "client->server" && dir != "server->client")
      s["direction"].fail("neither \"client->server\" nor \"server->client\"");
    const std::size_t d = dir == "client->server" ? 0 : 1;
    if (seen[d]) s["direction"].fail("a second sender of this direction");
    seen[d] = true;
    sender_of(s, f.senders[d], ctx);
    if (f.senders[d].data_segments == 0) s["data_segments"].fail("0: a sender is listed only with a data-bearing segment");
  });
  // The senders not listed: their addresses (the writers show none of them).
  if (!seen[0]) f.senders[0].src = f.client, f.senders[0].dst = f.server;
  if (!seen[1]) f.senders[1].src = f.server, f.senders[1].dst = f.client;
  return f;
}

std::optional<std::uint64_t> entry_stream(const json& entry, const std::string& document) {
  const Source src{document, part_of(entry), entry};
  const V s = V(entry, src)["tcp_stream"];
  if (s.is_null()) return std::nullopt;
  return s.u64();
}

Options options_from_json(const json& doc, const std::string& document) {
  const Source src{document, {}, doc};
  const V v(doc, src);
  const V profile = v["profile"];
  Options o;
  try {
    o = Options::for_profile(profile.str());
  } catch (const std::invalid_argument& e) {
    profile.fail(e.what());
  }
  const V rto = v["rto_config"];
  o.config.initial_rto = us_of(rto["initial_rto_ms"]);
  o.config.min_rto = us_of(rto["min_rto_ms"]);
  o.config.max_rto = us_of(rto["max_rto_ms"]);
  o.config.syn_linear_timeouts = rto["syn_linear_timeouts"].narrow<unsigned>();
  o.config.granularity = us_of(rto["granularity_ms"]);
  o.config.syn_fallback_rto = us_of(rto["syn_fallback_rto_ms"]);
  rto["set_on_command_line"].each([&](const V& k) {
    const std::string& key = k.str();
    if (key == "min_rto_ms") o.user_min_rto = true;
    else if (key == "max_rto_ms") o.user_max_rto = true;
    else if (key == "syn_linear_timeouts") o.user_syn_linear = true;
    else if (key == "granularity_ms") o.user_granularity = true;
    else k.fail(fmt::format("\"{}\" is no setting the command line sets", key));
  });
  const V tol = v["tolerance"];
  o.absolute_tolerance = us_of(tol["granularity_ms"]);
  o.slack_percent = tol["slack_percent"].narrow<unsigned>();
  if (!v["bpf_filter"].is_null()) o.filter = v["bpf_filter"].str();
  return o;
}

ReportView view_from_json(const json& doc, const std::string& document) {
  const Source src{document, {}, doc};
  const V sel = V(doc, src)["selection"];
  ReportView view;
  if (!sel["flow"].is_null()) view.flow = sel["flow"].u64();
  if (!sel["stream"].is_null()) view.stream = sel["stream"].u64();
  view.findings_only = sel["findings_only"].boolean();
  view.level = level_of_text(sel["level"]);
  if (const V d = sel["display_filter"]; !d.is_null()) {
    auto parsed = DisplayFilter::parse(d.str());
    if (const auto* err = std::get_if<std::string>(&parsed)) d.fail(*err);
    view.display = std::get<DisplayFilter>(std::move(parsed));
  }
  return view;
}

Report report_from_json(const json& doc, const std::string& document) {
  const Source src{document, {}, doc};
  const V v(doc, src);
  Report r;
  r.options = options_from_json(doc, document);
  v["files"].each([&](const V& f) { r.files.push_back(f.str()); });
  const V inputs = v["inputs"];
  inputs.each([&](const V& in) {
    r.inputs.push_back(input_of(in));
    r.file_totals.push_back(totals_of(in["summary"]));
  });
  if (!v["first_time_ns"].is_null()) {
    r.first_time = CaptureTime{nanoseconds{v["first_time_ns"].i64()}};
    r.have_first_time = true;
  }
  v["diagnostics"].each([&](const V& d) {
    Diagnostic x;
    x.file = d["file"].str();
    x.frame = d["frame"].u64();
    x.field = d["field"].str();
    x.message = d["message"].str();
    x.skipped = d["skipped"].boolean();
    r.diagnostics.push_back(std::move(x));
  });
  lockstep_of(v["lockstep"], r);
  // Every connection as totals (the entries are read one at a time): the
  // summary's counts; its retransmissions and timeouts are the inputs' (each
  // connection is of one input, so they sum to the run's).
  const V sum = v["summary"];
  r.streamed.flows = sum["flows"].u64();
  for (Level l : kLevels) r.streamed.findings[static_cast<std::size_t>(l)] = sum[level_key(l)].u64();
  for (const FlowTotals& t : r.file_totals) {
    r.streamed.retransmissions += t.retransmissions;
    r.streamed.timeouts += t.timeouts;
  }
  r.input_flows = r.streamed.flows;
  // Diagnostics past limits::kMaxDiagnostics are counted, not listed.
  const InputCounts listed = input_counts(r);
  const std::uint64_t skipped = sum["frames_skipped"].u64(), warned = sum["frames_with_warning"].u64();
  if (skipped < listed.skipped) sum["frames_skipped"].fail("fewer than the skipped frames \"diagnostics\" lists");
  if (warned < listed.warned) sum["frames_with_warning"].fail("fewer than the warnings \"diagnostics\" lists");
  r.dropped_skipped = skipped - listed.skipped;
  r.dropped_warned = warned - listed.warned;
  return r;
}

JsonTextReport::JsonTextReport(std::ostream& os, const json& doc, std::string document)
    : os_(os), document_(std::move(document)) {
  report_ = report_from_json(doc, document_);
  view_ = view_from_json(doc, document_);
  const Source src{document_, {}, doc};
  if (const V hint = V(doc, src)["profile_hint"]; !hint.is_null()) hint_ = hint.str();
}

namespace {
// "flows" entry `entry` of a document whose report (without its
// connections) is `r` and selection `view`, read back with its tcp.stream.
std::pair<FlowReport, std::optional<std::uint64_t>> read_entry(const Report& r, const ReportView& view,
                                                               const json& entry, const std::string& document) {
  EntryContext ctx;
  ctx.document = document;
  const Source src{ctx.document, part_of(entry), entry};
  ctx.file_index = file_index_of(V(entry, src)["file"], r);
  ctx.origin = r.origin_of(ctx.file_index);
  ctx.view = view;
  FlowReport f = from_json_entry(entry, ctx);
  return {std::move(f), entry_stream(entry, ctx.document)};
}
}  // namespace

std::pair<FlowReport, std::optional<std::uint64_t>> JsonTextReport::read(const json& entry,
                                                                         const std::string& document) const {
  return read_entry(report_, view_, entry, document.empty() ? document_ : document);
}

JsonWholeReport::JsonWholeReport(const json& doc, std::string document) : document_(std::move(document)) {
  report_ = report_from_json(doc, document_);
  view_ = view_from_json(doc, document_);
  const Source src{document_, {}, doc};
  const V v(doc, src);
  const bool every_flow = view_.flow == std::nullopt && view_.stream == std::nullopt && !view_.findings_only &&
                          !view_.display && view_.level == Level::info;
  if (!every_flow)
    v["selection"].fail(
        "a selection (--flow, --stream, -Y, --findings-only, --level): the page needs every connection and finding");
  report_.streamed = FlowTotals{};  // every connection is added
}

FlowReport JsonWholeReport::read(const json& entry, const std::string& document) const {
  const std::string& name = document.empty() ? document_ : document;
  FlowReport f = read_entry(report_, view_, entry, name).first;
  const Source src{name, part_of(entry), entry};
  for (std::size_t d = 0; d < 2; ++d)
    if (f.senders[d].data_segments > 0 && f.senders[d].timeline.empty())
      V(entry, src)["senders"].fail(fmt::format("the {} sender has no \"timeline\" (check --json --timeline writes it)",
                                                d == 0 ? "client's" : "server's"));
  return f;
}

FlowTotals JsonWholeReport::check(const json& entry, const std::string& document) const {
  FlowTotals t;
  t.add(read(entry, document));
  return t;
}

void JsonWholeReport::check_summary(const FlowTotals& read, const json& doc, const std::string& document) {
  const FlowTotals sum = report_from_json(doc, document).streamed;
  const auto differs = [&](std::uint64_t got, std::uint64_t counted, std::string_view what, std::string_view key) {
    if (got != counted)
      throw JsonReadError(fmt::format("{}: its connections have {} {} where its {} counts {}", document, got, what, key,
                                      counted));
  };
  differs(read.flows, sum.flows, "connection(s)", "summary.flows");
  for (Level l : kLevels)
    differs(read.findings[static_cast<std::size_t>(l)], sum.findings[static_cast<std::size_t>(l)],
            fmt::format("{} finding(s)", to_string(l)), fmt::format("summary.{}", level_key(l)));
  differs(read.retransmissions, sum.retransmissions, "retransmission(s)", "inputs' summaries (retransmissions)");
  differs(read.timeouts, sum.timeouts, "timer expiries", "inputs' summaries (timeouts)");
}

void JsonWholeReport::add(const json& entry, const std::string& document) {
  report_.flows.push_back(read(entry, document));
}

Report JsonWholeReport::take() { return std::move(report_); }

void JsonTextReport::begin() {
  if (begun_) return;
  begun_ = true;
  write_text_heading(os_, report_.options);
}

void JsonTextReport::entry(const json& entry, const std::string& document) {
  const auto [f, stream] = read(entry, document);
  begin();
  write_text_flow(os_, f, report_.options, stream, report_.origin_of(f.file_index), view_);
}

void JsonTextReport::finish() {
  // No input usable: no report (as check, which prints none then).
  bool any_usable = false;
  for (const InputFile& in : report_.inputs) any_usable = any_usable || in.usable();
  if (!any_usable && !begun_) return;
  begin();
  write_text_ending(os_, report_);
  if (hint_) os_ << "hint: " << *hint_ << "\n";
}

void write_text_from_json(std::ostream& os, const json& doc, const std::string& document) {
  JsonTextReport text(os, doc, document);
  const Source src{document, {}, doc};
  const std::size_t n = V(doc, src)["flows"].size();
  for (std::size_t i = 0; i < n; ++i) text.entry(doc["flows"][i]);
  text.finish();
}

}  // namespace replay
