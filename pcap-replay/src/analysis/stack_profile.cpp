#include <replay/analysis/stack_profile.hpp>

#include <array>

namespace replay {

namespace {
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr microseconds us(milliseconds m) { return microseconds{m}; }

rto::Config with(rto::Config c, microseconds initial, microseconds min_rto, microseconds max_rto, unsigned syn_linear,
                 microseconds tick) {
  c.initial_rto = initial;
  c.min_rto = min_rto;
  c.max_rto = max_rto;
  c.syn_linear_timeouts = syn_linear;
  c.tick = tick;
  return c;
}

// Linux: settings a kernel can run with, each documented in
// Documentation/networking/ip-sysctl.rst.
constexpr std::array<Tunable, 4> kLinuxTunables{{
    // The minimum RTO (rto_min on the variance term, 200 ms): per route
    // (ip route ... rto_min, the RTAX_RTO_MIN metric), per namespace
    // (tcp_rto_min_us, 6.11+, at least 1 us) or per socket
    // (TCP_BPF_RTO_MIN); the least reading is the same arithmetic with 1 us.
    {Tunable::Kind::min_rto, "rto_min (ip route ... rto_min, net.ipv4.tcp_rto_min_us)", microseconds{1},
     microseconds{200'000}, 0},
    // tcp_rto_max_ms (6.15+): 1000 to 120000 ms.
    {Tunable::Kind::max_rto, "net.ipv4.tcp_rto_max_ms", microseconds{1'000'000}, microseconds{120'000'000}, 0},
    // tcp_thin_linear_timeouts: a thin stream (fewer than 4 packets in
    // flight, past initial slow start) keeps its RTO for the first 6 expiries
    // (TCP_THIN_LINEAR_RETRIES) before doubling.
    {Tunable::Kind::thin_linear, "net.ipv4.tcp_thin_linear_timeouts", microseconds{0}, microseconds{0}, 6},
    // tcp_syn_linear_timeouts (6.5+, default 4): 0 to 16 linear SYN expiries.
    {Tunable::Kind::syn_linear, "net.ipv4.tcp_syn_linear_timeouts", microseconds{0}, microseconds{0}, 16},
}};

constexpr std::array<Tunable, 1> kWindowsTunables{{
    // netsh int tcp set global initialRto: 3 s was the default before
    // Windows 8 / Server 2012; 1 s since.
    {Tunable::Kind::initial_rto, "InitialRto (netsh int tcp set global initialRto)", microseconds{1'000'000},
     microseconds{3'000'000}, 0},
}};

const std::array<StackProfile, 5>& table() {
  static const std::array<StackProfile, 5> k{{
      {"linux", "Linux 6.x defaults",
       "net/ipv4/tcp_input.c tcp_rtt_estimator and tcp_set_rto (RTO = SRTT + max(rto_min 200 ms, variance), "
       "in 4 ms jiffies), tcp_timer.c (TCP_RTO_MAX 120 s, tcp_syn_linear_timeouts 4), tcp_output.c "
       "tcp_schedule_loss_probe (PTO = 2 SRTT + rto_min with one segment in flight, + TCP_TIMEOUT_MIN_US 2 ms "
       "otherwise, then rounded up to jiffies; never after the RTO; SACK only, Open/CWR state; re-armed at every "
       "transmission of new data), tcp_rearm_rto (deadline from the head's send time), "
       "tcp_init_metrics (3 s fallback only without a handshake sample), include/net/ip.h ip_select_ident_segs "
       "(a connection's IPv4 IDs count its segments)",
       with(rto::Config::linux_default(), microseconds{1'000'000}, us(milliseconds{200}), microseconds{120'000'000}, 4,
            microseconds{4'000}),
       FloorMode::on_variance, Fallback57::only_without_handshake_sample, Lateness::linux_wheel, microseconds{0},
       ProbeRule{true, microseconds{200'000}, microseconds{2'000}, true, 1}, true, true, true,
       "2.4 (rto_min 200 ms on the variance term, not a 1 s floor); 5.7 (skipped when the handshake gave a sample); "
       "linear SYN timeouts (5.5 for the first 4 SYN expiries)",
       kLinuxTunables, true},
      {"rfc6298", "RFC 6298 as written",
       "RFC 6298 sections 2 to 5: initial RTO 1 s, floor 1 s on the sum, cap 60 s (the least 2.5 allows), plain "
       "doubling, 5.7's 3 s; a tail-loss probe (RFC 8985, with SACK) is not an RTO expiry",
       rto::Config::rfc6298(), FloorMode::on_sum, Fallback57::rfc, Lateness::inferred, microseconds{0},
       ProbeRule{true, microseconds{200'000}, microseconds{8'000}, false, 1}, false, false, false, "", {}},
      {"freebsd", "FreeBSD 13/14 default stack",
       "sys/netinet/tcp_timer.c: initial RTO 1 s (tcp_rexmit_initial), SYN backoff table 1,1,1,1,1,2,4,... "
       "(tcp_syn_backoff), data backoff 1,2,4,...,512 capped at 64 s (TCPTV_REXMTMAX); tcp_var.h TCPT_RANGESET adds "
       "tcp_rexmit_slop (200 ms) to every RTO and floors it at tcp_rexmit_min (30 ms); the default stack sends no "
       "loss probe, its RACK stack (tcp_rack) does: a probe is read as one, never as an RTO",
       with(rto::Config::rfc6298(), microseconds{1'000'000}, us(milliseconds{30}), microseconds{64'000'000}, 4,
            microseconds{0}),
       FloorMode::on_sum, Fallback57::rfc, Lateness::additive, us(milliseconds{200}),
       ProbeRule{true, microseconds{200'000}, microseconds{10'000}, false, 2}, true, false, false,
       "2.4 (30 ms floor plus 200 ms slop), 2.5 (64 s cap), linear SYN timeouts", {}},
      {"macos", "macOS / iOS (xnu)",
       "xnu bsd/netinet/tcp_timer.c: SYN backoff table 1,1,1,1,1,2,4,... (tcp_syn_backoff), data backoff "
       "1,2,4,...,64 (tcp_backoff) capped at 64 s (TCPTV_REXMTMAX), initial RTO 1 s; tcp_timer.h adds a 200 ms "
       "retransmit slop (TCPTV_REXMTSLOP) to the RTO and floors it at TCPTV_MIN; a probe timeout (TCPT_PTO) for "
       "tail loss",
       with(rto::Config::rfc6298(), microseconds{1'000'000}, us(milliseconds{10}), microseconds{64'000'000}, 4,
            microseconds{0}),
       FloorMode::on_sum, Fallback57::rfc, Lateness::additive, us(milliseconds{200}),
       ProbeRule{true, microseconds{200'000}, microseconds{10'000}}, true, false, false,
       "2.4 (floor far below 1 s, plus 200 ms slop), 2.5 (64 s cap), linear SYN timeouts", {}},
      {"windows", "Windows 10 / Server 2016 and later",
       "Microsoft's TCP documentation (netsh int tcp show global / supplemental): initial RTO 1 s (InitialRto; "
       "3 s before Windows 8), MinRto 300 ms in the Internet template, SYN retransmissions doubling "
       "(MaxSynRetransmissions 2 by default), tail-loss probe and RACK since Windows 10 1607; the cap is not "
       "documented and taken as RFC 6298's 60 s",
       with(rto::Config::rfc6298(), microseconds{1'000'000}, us(milliseconds{300}), microseconds{60'000'000}, 0,
            microseconds{0}),
       FloorMode::on_sum, Fallback57::rfc, Lateness::proportional, microseconds{0},
       ProbeRule{true, microseconds{200'000}, microseconds{10'000}}, false, false, false,
       "2.4 (300 ms minimum RTO)", kWindowsTunables},
  }};
  return k;
}
}  // namespace

std::span<const StackProfile> all_profiles() { return table(); }

const StackProfile* find_profile(std::string_view name) {
  if (name == "rfc") name = "rfc6298";
  for (const StackProfile& p : table())
    if (p.name == name) return &p;
  return nullptr;
}

std::string profile_names() {
  std::string out;
  for (const StackProfile& p : table()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

}  // namespace replay
