#include "replay_scenario.hpp"
using namespace replaytest;
TEST_CASE("zz scratch") {
  constexpr std::int64_t ms = 1000;
  Scenario s;
  for (std::int64_t t : {0, 1000, 2000, 3000, 4000, 5000, 7000, 11000})
    s.pkts.push_back({t * ms, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
  s.pkts.push_back({11'100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({11'100 * ms + 10, true, 1, 1, wire::kAck, 0, {}, {}, {}});
  std::system(("cp " + s.write("zz1") + " /tmp/zz1.pcap").c_str());
}
