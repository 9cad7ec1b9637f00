// JsonText and the connection entries written with it: the truth is
// nlohmann::json itself. A value's text is what dump() gives for the same
// value, and an entry's text is what dump(2) gives for the tree parsed
// from it (which holds only if its keys are in nlohmann's order and every
// number and string is written as nlohmann writes it).

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/json_text.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/wireshark_ref.hpp>
#include "common/paths.hpp"
#include "common/tools.hpp"

namespace {

using nlohmann::json;

std::string number_text(double x) {
  std::string out;
  replay::JsonText w(out);
  w.number(x);
  return out;
}

std::string string_text(const std::string& s) {
  std::string out;
  replay::JsonText w(out);
  w.string(s);
  return out;
}

// Each line of `text` after the first indented `n` more spaces.
std::string indented(const std::string& text, std::size_t n) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(n, ' ');
  }
  return out;
}

}  // namespace

TEST_CASE("JsonText: a double is written as nlohmann writes it") {
  std::vector<double> xs{0.0,    -0.0,   1.0,     1000.0, 0.25,   1e-5,    1e-4,   123456789012345.0,
                         1e15,   1e16,   1e17,    1e21,   1e300,  5e-324,  0.1,    1795000000.0070982,
                         200.0,  -3.5,   2.0 / 3, 1e-7,   12.345, 99999.9, -1e-20, std::numeric_limits<double>::max(),
                         1e-300, 4.9e-5, 7e22};
  std::mt19937_64 rng(20261205);
  for (int i = 0; i < 20000; ++i) {
    // Any finite bit pattern, and the report's kind of values: microseconds
    // as ms and capture times as seconds.
    const double any = std::bit_cast<double>(rng());
    if (std::isfinite(any)) xs.push_back(any);
    xs.push_back(static_cast<double>(rng() % 200'000'000'000ULL) / 1000.0);
    xs.push_back(1.7e9 + static_cast<double>(rng() % 1'000'000'000'000ULL) / 1e6);
  }
  for (double x : xs) {
    CAPTURE(x);
    REQUIRE(number_text(x) == json(x).dump());
  }
  // NaN and the infinities: null, as dump() writes them.
  for (double x : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    CHECK(number_text(x) == "null");
  CHECK(json(std::nan("")).dump() == "null");
}

TEST_CASE("JsonText: integers and strings are written as nlohmann writes them") {
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{7}, std::numeric_limits<std::uint64_t>::max()}) {
    std::string out;
    replay::JsonText(out).number(n);
    CHECK(out == json(n).dump());
  }
  for (std::int64_t n : {std::int64_t{-1}, std::numeric_limits<std::int64_t>::min()}) {
    std::string out;
    replay::JsonText(out).number(n);
    CHECK(out == json(n).dump());
  }
  const std::vector<std::string> strings{
      "",   "plain text", "a \"quoted\" word", "back\\slash", "tab\there",           "new\nline", "bell\x07",
      "\x1f", "del\x7f",  "caf\xc3\xa9",       "\xe2\x82\xac", "\xf0\x9f\x98\x80 grin", "/slash/",  "\b\f\r"};
  for (const std::string& s : strings) {
    CAPTURE(s);
    CHECK(string_text(s) == json(s).dump());
  }
  // Not UTF-8 (a file name can be any bytes): each invalid byte as U+FFFD
  // ("\xef\xbf\xbd"), where dump() with its default handler throws.
  CHECK(string_text("a\xff\xfe.pcap") == "\"a\xef\xbf\xbd\xef\xbf\xbd.pcap\"");
  CHECK_THROWS_AS(json(std::string("\xff\xfe")).dump(), json::type_error);
}

TEST_CASE("JsonText: nested containers as dump(2) writes them, at any base indent") {
  const json tree = {{"a", json::array()},
                     {"b", json::object()},
                     {"c", {1, json::array({2.5, nullptr}), {{"x", true}, {"y", "z"}}}},
                     {"d", {{"e", json::array({json::object()})}}}};
  for (int base : {0, 4}) {
    std::string out;
    replay::JsonText w(out, base);
    w.begin_object();
    w.key("a").begin_array();
    w.end_array();
    w.key("b").begin_object();
    w.end_object();
    w.key("c").begin_array();
    w.number(1);
    w.begin_array();
    w.number(2.5);
    w.null();
    w.end_array();
    w.begin_object();
    w.key("x").boolean(true);
    w.key("y").string("z");
    w.end_object();
    w.end_array();
    w.key("d").begin_object();
    w.key("e").begin_array();
    w.begin_object();
    w.end_object();
    w.end_array();
    w.end_object();
    w.end_object();
    CHECK(out == indented(tree.dump(2), static_cast<std::size_t>(base)));
  }
}

TEST_CASE("JsonText: a key out of nlohmann's order, or misplaced, is refused") {
  std::string out;
  {
    replay::JsonText w(out);
    w.begin_object();
    w.key("b").null();
    CHECK_THROWS_AS(w.key("a"), std::logic_error);  // before the key written last
  }
  {
    replay::JsonText w(out);
    w.begin_object();
    w.key("rel_time").null();
    CHECK_THROWS_AS(w.key("rel_time"), std::logic_error);  // twice
    CHECK_NOTHROW(w.key("relative"));                      // '_' (0x5f) sorts before 'a'
  }
  {
    replay::JsonText w(out);
    w.begin_object();
    CHECK_THROWS_AS(w.null(), std::logic_error);  // a value without its key
  }
  {
    replay::JsonText w(out);
    w.begin_array();
    CHECK_THROWS_AS(w.key("a"), std::logic_error);       // a key in an array
    CHECK_THROWS_AS(w.end_object(), std::logic_error);  // closes what is not open
  }
}

TEST_CASE("report JSON: each connection's entry is dump(2) of itself, on the shipped and shared captures") {
  std::vector<std::string> files{"tests/captures/linux-blackhole.pcap"};
  for (const auto& e : std::filesystem::directory_iterator("tests/captures/lab"))
    if (e.path().extension() == ".pcap") files.push_back(e.path().string());
  const auto linux_dir = testcommon::shared_dir() / "traces" / "linux";
  if (!std::filesystem::exists(linux_dir)) testcommon::skip_or_fail("the shared Linux captures (" + linux_dir.string() + ")");
  for (const auto& e : std::filesystem::directory_iterator(linux_dir))
    if (e.path().extension() == ".pcap") files.push_back(e.path().string());
  // What the entries held, so that the comparison covers each kind of field.
  std::size_t flows = 0, timeouts = 0, findings = 0, settings = 0, rule_5_4 = 0, copies = 0;
  for (const char* profile : {"rfc6298", "linux"}) {
    const replay::Options opt = replay::Options::for_profile(profile);
    for (const std::string& file : files) {
      CAPTURE(file);
      std::vector<std::string> errors;
      const replay::Report r = replay::analyze_files({file}, opt, false, errors);
      const replay::StreamNumbers streams(r);
      for (const replay::FlowReport& f : r.flows) {
        std::string text;
        replay::write_flow_json(text, f, opt, streams.of(f), r.origin_of(f.file_index));
        const json tree = json::parse(text);
        REQUIRE(tree.dump(2) == text);
        std::string list;
        replay::write_flow_list_entry(list, f, streams.of(f), r.origin_of(f.file_index));
        REQUIRE(json::parse(list).dump(2) == list);
        std::string deeper;
        replay::write_flow_json(deeper, f, opt, streams.of(f), r.origin_of(f.file_index), {}, 4);
        REQUIRE(deeper == indented(text, 4));
        ++flows;
        copies += f.capture_duplicates != 0;
        for (const json& s : tree["senders"]) {
          timeouts += s["timeouts"].size();
          findings += s["findings"].size();
          for (const json& x : s["findings"]) {
            settings += !x["setting"].is_null();
            rule_5_4 += x.contains("rel_seq");
          }
        }
      }
    }
  }
  MESSAGE(flows << " connections, " << timeouts << " timeouts, " << findings << " judgements (" << settings
                << " with a setting, " << rule_5_4 << " of 5.4), " << copies << " with capture copies");
  CHECK(timeouts > 0);
  CHECK(findings > 0);
  CHECK(settings > 0);
  CHECK(copies > 0);
}

TEST_CASE("report JSON: the fields no shipped capture holds (5.4's SEQs, alongside, virtual networks)") {
  const replay::Options opt = replay::Options::for_profile("rfc6298");
  replay::FlowReport f;
  f.id = 3;
  f.file = "t.pcap";
  f.packets = 2;
  f.senders[0].data_segments = 1;
  replay::Judgement x;
  x.rule = replay::RuleId::rfc6298_5_4;
  x.frame = 9;
  x.rel_seq = 1449;
  x.rel_una = 1;
  x.evidence = {7, 8};
  x.setting.kind = replay::SettingUse::Kind::min_rto;
  x.setting.name = "net.ipv4.tcp_rto_min_us";
  f.senders[0].findings.push_back(x);
  f.alongside = replay::AlongsideOf{};
  f.alongside->another_clock = true;
  f.vnets.emplace_back();
  f.vnets.emplace_back().push(replay::VirtualNetwork::Kind::vlan, 10);
  std::string text;
  replay::write_flow_json(text, f, opt, 2, replay::CaptureTime{});
  const json tree = json::parse(text);
  CHECK(tree.dump(2) == text);
  const json& j = tree["senders"][0]["findings"][0];
  CHECK(j["rel_seq"] == 1449);
  CHECK(j["rel_una"] == 1);
  CHECK(j["evidence_frames"] == json::array({7, 8}));
  CHECK(j["setting"]["name"] == "net.ipv4.tcp_rto_min_us");
  CHECK(tree["alongside"]["another_clock"] == true);
  CHECK(tree["virtual_networks"] == json::array({"none", "vlan 10"}));
  CHECK(tree["senders"].size() == 1);  // the other sender sent no data
  // A file name that is not UTF-8: its byte as U+FFFD.
  f.file = "\xff.pcap";
  std::string latin;
  replay::write_flow_json(latin, f, opt, 2, replay::CaptureTime{});
  CHECK(json::parse(latin)["file"] == "\xef\xbf\xbd.pcap");
}
