#include "sim_fixture.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "netstack/sim_random.hpp"

namespace nstest {

netstack::SenderConfig sender_config(bool v6) {
  netstack::SenderConfig c;
  if (v6) {
    c.local = {*netstack::IpAddress::parse("fd00::1"), 40000};
    c.remote = {*netstack::IpAddress::parse("fd00::2"), 5001};
  } else {
    c.local = {netstack::IpAddress::v4(198, 18, 0, 1), 40000};
    c.remote = {netstack::IpAddress::v4(198, 18, 0, 2), 5001};
  }
  return c;
}

netstack::ReceiverConfig receiver_config(bool v6) {
  netstack::ReceiverConfig c;
  c.local = sender_config(v6).remote;
  return c;
}

void set_sweep_links(netstack::SimConfig& cfg, std::uint64_t seed) {
  for (auto* l : {&cfg.forward, &cfg.reverse}) {
    l->delay = milliseconds{10 + static_cast<int>(seed % 40)};
    l->jitter = milliseconds{3};
    l->bandwidth_bps = 10'000'000;
    l->queue_limit = 30;
    l->loss = 0.05;
    l->reorder = 0.02;
    l->duplicate = 0.02;
  }
  cfg.forward.seed = seed;
  cfg.reverse.seed = seed * 7919;
}

netstack::LinkConfig plain_link(microseconds one_way) {
  netstack::LinkConfig l;
  l.delay = one_way;
  return l;
}

std::vector<std::uint8_t> pattern(std::size_t n, std::uint64_t seed) {
  netstack::SimRandom r(seed);
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t x = r.next();
    for (std::size_t j = i; j < std::min(n, i + 8); ++j) {
      v[j] = static_cast<std::uint8_t>(x);
      x >>= 8;
    }
  }
  return v;
}

namespace {

// Removes the temp dirs at exit unless NETSTACK_KEEP_CAPTURES is set (then
// their paths are printed, to open the captures in Wireshark).
struct TempDirs {
  std::vector<std::filesystem::path> dirs;
  ~TempDirs() {
    const bool keep = std::getenv("NETSTACK_KEEP_CAPTURES") != nullptr;
    for (const auto& d : dirs) {
      std::error_code ec;
      if (keep) {
        std::fprintf(stderr, "netstack tests: captures kept in %s\n", d.c_str());
      } else {
        std::filesystem::remove_all(d, ec);
      }
    }
  }
};
TempDirs temp_dirs;

}  // namespace

std::filesystem::path temp_dir() {
  std::string templ = (std::filesystem::temp_directory_path() / "netstack-test-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
  temp_dirs.dirs.emplace_back(templ);
  return templ;
}

netstack::SimConfig rtt100(const std::vector<netstack::SimInterval>& holes) {
  netstack::SimConfig cfg;
  cfg.forward = plain_link(milliseconds{50});
  cfg.reverse = plain_link(milliseconds{50});
  cfg.forward.blackholes = holes;
  cfg.reverse.blackholes = holes;
  return cfg;
}

std::optional<long> tshark_retransmissions(const std::filesystem::path& pcap, std::uint16_t sport) {
  if (run_command("command -v tshark >/dev/null 2>&1").status != 0) return std::nullopt;
  const std::string filter = "tcp.srcport==" + std::to_string(sport) +
                             " && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission || "
                             "tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order)";
  const auto r = run_command("tshark -n -r '" + pcap.string() + "' -Y '" + filter + "' -T fields -e frame.number 2>/dev/null");
  if (r.status != 0) return std::nullopt;
  long lines = 0;
  for (char c : r.output) lines += c == '\n';
  return lines;
}

std::optional<std::filesystem::path> pcap_replay_binary() {
  const char* build = std::getenv("BUILD");
  std::vector<std::filesystem::path> candidates;
  if (build != nullptr) candidates.push_back(repo_root() / build / "bin" / "pcap-replay");
  candidates.push_back(repo_root() / "build" / "bin" / "pcap-replay");
  for (const auto& c : candidates) {
    if (std::filesystem::exists(c)) return c;
  }
  return std::nullopt;
}

// Runs pcap-replay on the capture; checks that its findings are exactly
// `expected` (normally none) and that every timeout it predicted came on
// time, and returns the sender flow's retransmission count (all kinds), or
// nullopt if pcap-replay is not built.
namespace {

std::optional<long> pcap_replay_retransmissions(const std::filesystem::path& pcap,
                                                const std::vector<Expected>& expected, const std::string& profile) {
  const auto bin = pcap_replay_binary();
  if (!bin) return std::nullopt;
  const auto r = run_command("'" + bin->string() + "' check --profile " + profile + " --json '" + pcap.string() + "' 2>&1");
  INFO("pcap-replay output: " << r.output);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(r.output);
  } catch (const std::exception& e) {
    FAIL_CHECK("pcap-replay --json did not print JSON: " << e.what());
    return std::nullopt;
  }
  CHECK(doc["diagnostics"].empty());
  std::vector<Expected> found;
  std::optional<long> count;
  nlohmann::json senders = nlohmann::json::array();  // check --json: connections, their senders inside
  for (const auto& c : doc["flows"])
    for (const auto& x : c["senders"]) senders.push_back(x);
  for (const auto& f : senders) {
    for (const auto& x : f["findings"]) found.push_back({x["rule"].get<std::string>(), x["frame"].get<long>()});
    if (expected.empty()) {
      for (const auto& t : f["timeouts"]) CHECK(t["verdict"] == "ok");
    }
    if (f["src"].get<std::string>().find("40000") == std::string::npos) continue;
    long n = 0;
    for (const auto& [kind, v] : f["retransmissions"].items()) n += v.get<long>();
    count = n;
  }
  CHECK(found.size() == expected.size());
  for (std::size_t i = 0; i < std::min(found.size(), expected.size()); ++i) {
    CHECK(found[i].rule == expected[i].rule);
    CHECK(found[i].frame == expected[i].frame);
  }
  if (expected.empty()) CHECK(r.status == 0);
  return count;
}

}  // namespace

void check_capture(const std::filesystem::path& pcap, long own, const std::vector<Expected>& expected,
                   const std::string& profile) {
  CAPTURE(pcap.string());
  if (const auto replay = pcap_replay_retransmissions(pcap, expected, profile)) {
    CHECK(*replay == own);
  } else {
    skip_or_fail("pcap-replay not built: capture check skipped for " + pcap.string());
  }
  if (const auto tshark = tshark_retransmissions(pcap, 40000)) {
    CHECK(*tshark == own);
  } else {
    skip_or_fail("tshark not installed: its count skipped");
  }
}

}  // namespace nstest
