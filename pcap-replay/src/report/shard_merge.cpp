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

// What every shard of one run computes alike: the document without its
// flows, its counts, what follows from them (the note on empty input, the
// profile hint) and the shard object.
json common_part(const json& doc) {
  json c = doc;
  for (const char* k : {"flows", "note", "profile_hint", "shard"}) c.erase(k);
  if (c.contains("summary") && c["summary"].is_object())
    for (std::string_view k : kSummedSummary) c["summary"].erase(std::string(k));
  if (c.contains("inputs") && c["inputs"].is_array())
    for (json& in : c["inputs"])
      if (in.is_object()) in.erase("summary");
  return c;
}

}  // namespace

MergedReport merge_shards(const std::vector<Named>& docs) {
  if (docs.empty()) throw MergeError("no document to merge");
  // Each is a check document of a shard; which one, of how many.
  std::vector<const Named*> by_k;
  std::uint64_t n = 0;
  for (const Named& d : docs) {
    const json& j = d.second;
    if (!j.is_object() || j.value("tool", "") != "pcap-replay")
      fail(d.first, "not a pcap-replay JSON document");
    if (j.value("kind", "") != "check")
      fail(d.first, fmt::format("a \"{}\" document: merge takes check --json --shard K/N documents",
                                j.value("kind", "")));
    const auto s = j.find("shard");
    if (s == j.end() || !s->is_object())
      fail(d.first, "no \"shard\" object: not written by check --shard K/N");
    const std::uint64_t k = count_at(d, *s, "k", "shard"), dn = count_at(d, *s, "n", "shard");
    if (n == 0) n = dn;
    if (dn != n || k < 1 || k > n)
      fail(d.first, fmt::format("shard {}/{} does not belong with shard(s) of {}", k, dn, n));
    if (by_k.empty()) by_k.assign(n, nullptr);
    if (by_k[k - 1]) fail(d.first, fmt::format("shard {}/{} is given twice (also {})", k, n, by_k[k - 1]->first));
    by_k[k - 1] = &d;
  }
  std::vector<std::uint64_t> missing;
  for (std::uint64_t k = 1; k <= n; ++k)
    if (!by_k[k - 1]) missing.push_back(k);
  if (!missing.empty())
    throw MergeError(fmt::format("shard(s) {} of {} missing: a merge needs every shard of the run",
                                 fmt::join(missing, ", "), n));

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
  out.doc.erase("shard");
  // The connections, in id order as one run writes them.
  std::vector<json> flows;
  for (const Named* d : by_k) {
    const auto it = d->second.find("flows");
    if (it == d->second.end() || !it->is_array()) fail(d->first, "\"flows\" is not an array");
    for (const json& f : *it) {
      if (!f.is_object() || !f.contains("flow") || !f["flow"].is_number_unsigned())
        fail(d->first, "a \"flows\" entry without its \"flow\" id");
      flows.push_back(f);
    }
  }
  std::stable_sort(flows.begin(), flows.end(),
                   [](const json& a, const json& b) { return a["flow"].get<std::uint64_t>() < b["flow"].get<std::uint64_t>(); });
  for (std::size_t i = 1; i < flows.size(); ++i)
    if (flows[i]["flow"] == flows[i - 1]["flow"])
      throw MergeError(fmt::format("connection {} is in two shards' documents", flows[i]["flow"].get<std::uint64_t>()));
  out.doc["flows"] = json(std::move(flows));

  // The counts: each shard's part, summed.
  for (std::string_view k : kSummedSummary) {
    std::uint64_t sum = 0;
    for (const Named* d : by_k) sum += count_at(*d, d->second["summary"], k, "summary");
    out.doc["summary"][std::string(k)] = sum;
  }
  json& inputs = out.doc["inputs"];
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (std::string_view k : kSummedInput) {
      std::uint64_t sum = 0;
      for (const Named* d : by_k)
        sum += count_at(*d, d->second["inputs"][i]["summary"], k, fmt::format("inputs[{}].summary", i));
      inputs[i]["summary"][std::string(k)] = sum;
    }
  // The note on an input without TCP: one run has it only when no shard has
  // a connection (then every shard has it alike).
  if (out.doc["summary"]["flows"].get<std::uint64_t>() != 0) out.doc["note"] = nullptr;

  // The hint from the summed tally; the limits in the order one run meets
  // them (input by input, frame by frame: the shards' own orders merged).
  HintTally tally(out.doc.value("profile", ""));
  struct Hit {
    std::uint64_t file, frame;
    std::string message;
  };
  std::vector<Hit> hits;
  for (const Named* d : by_k) {
    const json& s = d->second["shard"];
    out.dropped_segments += count_at(*d, s, "dropped_segments", "shard");
    const auto lh = s.find("limit_hits");
    if (lh == s.end() || !lh->is_array()) fail(d->first, "shard.limit_hits is not an array");
    for (const json& h : *lh) {
      if (!h.is_object() || !h.contains("message") || !h["message"].is_string())
        fail(d->first, "a shard.limit_hits entry without its message");
      hits.push_back(Hit{count_at(*d, h, "file_index", "shard.limit_hits[]"), count_at(*d, h, "frame", "shard.limit_hits[]"),
                         h["message"].get<std::string>()});
    }
    const auto hint = s.find("hint");
    if (hint == s.end() || !hint->is_object() || !hint->contains("fits") || !(*hint)["fits"].is_object())
      fail(d->first, "shard.hint is not a tally");
    std::map<std::string, std::size_t> fits;
    for (const auto& [name, v] : (*hint)["fits"].items()) fits[name] = count_at(*d, (*hint)["fits"], name, "shard.hint.fits");
    tally.add(count_at(*d, *hint, "departing", "shard.hint"), count_at(*d, *hint, "explained", "shard.hint"), fits);
  }
  const auto text = tally.text();
  out.doc["profile_hint"] = text ? json(*text) : json(nullptr);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const Hit& a, const Hit& b) { return std::pair(a.file, a.frame) < std::pair(b.file, b.frame); });
  for (Hit& h : hits) out.limit_hits.push_back(std::move(h.message));
  return out;
}

}  // namespace replay
