#include <replay/report/shard_merge.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>

#include <fmt/format.h>

namespace replay {

using nlohmann::json;

json shard_json(const Report& r, const HintTally& hint) {
  json hits = json::array();
  for (const LimitHit& h : r.limit_hits)
    hits.push_back({{"file_index", h.file_index}, {"frame", h.frame}, {"message", h.message}});
  return {{"k", r.options.shard_k},
          {"n", r.options.shard_n},
          {"dropped_segments", r.dropped_segments},
          {"limit_hits", hits},
          {"hint", {{"departing", hint.departing}, {"explained", hint.explained}, {"fits", hint.fits()}}}};
}

namespace {

// The counts each shard has its part of: in "summary", and in each input's.
constexpr std::array<std::string_view, 5> kSummedSummary{"flows", "must", "should", "may", "info"};
constexpr std::array<std::string_view, 7> kSummedInput{"flows", "timeouts", "retransmissions", "must",
                                                       "should", "may", "info"};

using Named = std::pair<std::string, json>;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw MergeError(fmt::format("{}: {}", name, what));
}

// `j[key]` as a count, or fail naming `where`.
std::uint64_t count_at(const Named& d, const json& j, std::string_view key, const std::string& where) {
  const auto it = j.find(std::string(key));
  if (it == j.end() || !it->is_number_unsigned()) fail(d.first, fmt::format("{}.{} is not a count", where, key));
  return it->get<std::uint64_t>();
}

// `j[key]`, which must be of `type` ("object", "array"), or fail naming `where`.
const json& member(const Named& d, const json& j, std::string_view key, json::value_t type, const std::string& where) {
  const auto it = j.is_object() ? j.find(std::string(key)) : j.end();
  if (it == j.end() || it->type() != type)
    fail(d.first, fmt::format("{}{}{} is not an {}", where, where.empty() ? "" : ".", key,
                              type == json::value_t::object ? "object" : "array"));
  return *it;
}

// a + b, or fail: a count no run can reach.
std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string& what) {
  std::uint64_t s = 0;
  if (__builtin_add_overflow(a, b, &s)) throw MergeError(fmt::format("the sum of the shards' {} overflows", what));
  return s;
}

// What every shard of one run computes alike: the document without its
// flows, its counts, what follows from them (the note on empty input, the
// profile hint) and its shard's own part, but with the run's options and
// version (shard.run).
json common_part(const json& doc) {
  json c = doc;
  for (const char* k : {"flows", "note", "profile_hint", "shard"}) c.erase(k);
  c["shard.run"] = doc["shard"].contains("run") ? doc["shard"]["run"] : json(nullptr);
  for (std::string_view k : kSummedSummary) c["summary"].erase(std::string(k));
  for (json& in : c["inputs"]) in.erase("summary");
  return c;
}

// Checks the shape merge_shards reads of shard document `d` (its shard
// object is checked already).
void check_shape(const Named& d) {
  const json& j = d.second;
  member(d, j, "flows", json::value_t::array, "");
  const json& sum = member(d, j, "summary", json::value_t::object, "");
  for (std::string_view k : kSummedSummary) count_at(d, sum, k, "summary");
  const json& inputs = member(d, j, "inputs", json::value_t::array, "");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string where = fmt::format("inputs[{}]", i);
    if (!inputs[i].is_object()) fail(d.first, where + " is not an object");
    const json& s = member(d, inputs[i], "summary", json::value_t::object, where);
    for (std::string_view k : kSummedInput) count_at(d, s, k, where + ".summary");
  }
  // The selection, which says whether the flows are every connection
  // (merge counts them then).
  const json& sel = member(d, j, "selection", json::value_t::object, "");
  for (const char* k : {"flow", "stream"})
    if (!sel.contains(k) || !(sel[k].is_null() || sel[k].is_number_unsigned()))
      fail(d.first, fmt::format("selection.{} is neither null nor a number", k));
  if (!sel.contains("findings_only") || !sel["findings_only"].is_boolean())
    fail(d.first, "selection.findings_only is not true or false");
  if (!sel.contains("display_filter") || !(sel["display_filter"].is_null() || sel["display_filter"].is_string()))
    fail(d.first, "selection.display_filter is neither null nor a string");
  const json& shard = j["shard"];
  if (!shard.contains("run") || !shard["run"].is_object())
    fail(d.first, "shard.run is not an object (a document of another version?)");
  count_at(d, shard, "dropped_segments", "shard");
  for (const json& h : member(d, shard, "limit_hits", json::value_t::array, "shard")) {
    if (!h.is_object() || !h.contains("message") || !h["message"].is_string())
      fail(d.first, "a shard.limit_hits entry without its message");
    count_at(d, h, "file_index", "shard.limit_hits[]");
    count_at(d, h, "frame", "shard.limit_hits[]");
  }
  const json& hint = member(d, shard, "hint", json::value_t::object, "shard");
  count_at(d, hint, "departing", "shard.hint");
  count_at(d, hint, "explained", "shard.hint");
  for (const auto& [name, v] : member(d, hint, "fits", json::value_t::object, "shard.hint").items())
    count_at(d, hint["fits"], name, "shard.hint.fits");
}

}  // namespace

MergedReport merge_shards(const std::vector<Named>& docs) {
  if (docs.empty()) throw MergeError("no document to merge");
  // Each is a check document of a shard; which one, of how many.
  std::vector<const Named*> by_k;
  std::uint64_t n = 0;
  for (const Named& d : docs) {
    const json& j = d.second;
    if (!j.is_object() || !j.contains("tool") || j["tool"] != "pcap-replay")
      fail(d.first, "not a pcap-replay JSON document");
    if (!j.contains("kind") || j["kind"] != "check")
      fail(d.first, fmt::format("a {} document: merge takes check --json --shard K/N documents",
                                j.contains("kind") ? j["kind"].dump() : std::string("\"?\"")));
    const auto s = j.find("shard");
    if (s == j.end() || !s->is_object())
      fail(d.first, "no \"shard\" object: not written by check --shard K/N");
    const std::uint64_t k = count_at(d, *s, "k", "shard"), dn = count_at(d, *s, "n", "shard");
    if (dn < 1 || dn > kMaxShards || k < 1 || k > dn)
      fail(d.first, fmt::format("shard {}/{}: K must be from 1 to N, and N from 1 to {}", k, dn, kMaxShards));
    if (n == 0) n = dn;
    if (dn != n) fail(d.first, fmt::format("shard {}/{} does not belong with shard(s) of {}", k, dn, n));
    check_shape(d);
    if (by_k.empty()) by_k.assign(n, nullptr);
    if (by_k[k - 1]) fail(d.first, fmt::format("shard {}/{} is given twice (also {})", k, n, by_k[k - 1]->first));
    by_k[k - 1] = &d;
  }
  std::vector<std::uint64_t> missing;
  for (std::uint64_t k = 1; k <= n; ++k)
    if (!by_k[k - 1]) missing.push_back(k);
  if (!missing.empty()) {
    // The first few are enough to say what is missing.
    constexpr std::size_t kNamed = 10;
    const std::size_t shown = std::min(missing.size(), kNamed);
    throw MergeError(fmt::format("{} shard(s) of {} missing ({}{}): a merge needs every shard of the run", missing.size(),
                                 n, fmt::join(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                 missing.size() > shown ? ", ..." : ""));
  }

  const Named& first = *by_k[0];
  const json common = common_part(first.second);
  for (const Named* d : by_k) {
    const json c = common_part(d->second);
    if (c == common) continue;
    std::string key = "?";
    for (const auto& [k, v] : common.items())
      if (!c.contains(k) || c[k] != v) {
        key = k;
        break;
      }
    for (const auto& [k, v] : c.items())
      if (key == "?" && !common.contains(k)) key = k;
    throw MergeError(fmt::format("{} and {} are not shards of one run: their \"{}\" differs (the same input, "
                                 "options and version are needed)",
                                 first.first, d->first, key));
  }

  MergedReport out;
  out.doc = first.second;
  out.strict = first.second["shard"]["run"].value("strict", false);
  out.doc.erase("shard");
  out.doc["flows"] = json::array();  // the caller streams them (shard_entry_id, shard_docs)
  for (const Named* d : by_k) out.shard_docs.push_back(static_cast<std::size_t>(d - docs.data()));

  // The counts: each shard's part, summed.
  for (std::string_view k : kSummedSummary) {
    std::uint64_t sum = 0;
    for (const Named* d : by_k) sum = add(sum, d->second["summary"][std::string(k)].get<std::uint64_t>(), "summary." + std::string(k));
    out.doc["summary"][std::string(k)] = sum;
  }
  json& inputs = out.doc["inputs"];
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (std::string_view k : kSummedInput) {
      std::uint64_t sum = 0;
      for (const Named* d : by_k)
        sum = add(sum, d->second["inputs"][i]["summary"][std::string(k)].get<std::uint64_t>(), "inputs' " + std::string(k));
      inputs[i]["summary"][std::string(k)] = sum;
    }
  // The note on an input without TCP: one run has it only when no shard has
  // a connection (then every shard has it alike).
  if (out.doc["summary"]["flows"].get<std::uint64_t>() != 0) out.doc["note"] = nullptr;

  // The hint from the summed tally; the limits in the order one run meets
  // them (input by input, frame by frame: the shards' own orders merged).
  HintTally tally(out.doc.contains("profile") && out.doc["profile"].is_string() ? out.doc["profile"].get<std::string>()
                                                                               : std::string());
  struct Hit {
    std::uint64_t file, frame;
    std::string message;
  };
  std::vector<Hit> hits;
  for (const Named* d : by_k) {
    const json& s = d->second["shard"];
    out.dropped_segments = add(out.dropped_segments, s["dropped_segments"].get<std::uint64_t>(), "dropped segments");
    for (const json& h : s["limit_hits"])
      hits.push_back(Hit{h["file_index"].get<std::uint64_t>(), h["frame"].get<std::uint64_t>(), h["message"].get<std::string>()});
    const json& hint = s["hint"];
    std::map<std::string, std::size_t> fits;
    for (const auto& [name, v] : hint["fits"].items()) fits[name] = v.get<std::uint64_t>();
    tally.add(hint["departing"].get<std::uint64_t>(), hint["explained"].get<std::uint64_t>(), fits);
  }
  const auto text = tally.text();
  out.doc["profile_hint"] = text ? json(*text) : json(nullptr);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const Hit& a, const Hit& b) { return std::pair(a.file, a.frame) < std::pair(b.file, b.frame); });
  for (Hit& h : hits) out.limit_hits.push_back(std::move(h.message));
  return out;
}

std::uint64_t shard_entry_id(const std::string& name, const json& entry, std::uint64_t k, std::uint64_t n) {
  if (!entry.is_object() || !entry.contains("flow") || !entry["flow"].is_number_unsigned())
    throw MergeError(fmt::format("{}: a \"flows\" entry without its \"flow\" id", name));
  const std::uint64_t id = entry["flow"].get<std::uint64_t>();
  const std::uint32_t owner = Options::shard_of(id, static_cast<std::uint32_t>(n));
  if (owner != k)
    throw MergeError(fmt::format("{}: connection {} is not shard {}/{}'s (it is shard {}'s)", name, id, k, n, owner));
  return id;
}

}  // namespace replay
