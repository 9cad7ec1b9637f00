// pcap-replay: checks each TCP sender in a capture against RFC 6298's
// retransmission timer rules. Sub-commands: check, flows, timeline.
// Exit status: 0 no MUST-level departure, 1 departures (--strict: also
// SHOULD), 2 unusable input or arguments (reason on stderr).

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "analyzer.hpp"
#include "report_json.hpp"
#include "report_text.hpp"
#include "timeline_csv.hpp"

namespace {

struct Args {
  std::vector<std::string> files;
  std::string profile = "rfc6298";
  std::optional<double> rto_min_ms, rto_max_ms, granularity_ms;
  std::optional<unsigned> syn_linear, slack_percent;
  bool json = false, strict = false, csv = false;
  std::string filter;
};

void add_common(CLI::App* app, Args& a) {
  app->add_option("files", a.files, "capture files (pcap or pcapng); - reads standard input")->required();
  app->add_option("--profile", a.profile, "rfc6298 (default) or linux")
      ->check(CLI::IsMember({"rfc6298", "linux"}));
  app->add_option("--rto-min", a.rto_min_ms, "override the profile's minimum RTO, ms");
  app->add_option("--rto-max", a.rto_max_ms, "override the profile's maximum RTO, ms");
  app->add_option("--syn-linear", a.syn_linear, "SYN expiries that do not double (Linux tcp_syn_linear_timeouts)");
  app->add_option("--granularity", a.granularity_ms, "clock granularity G, ms (default 1): the absolute tolerance of every timing check and G of RFC 6298 2.3");
  app->add_option("--slack", a.slack_percent, "relative tolerance, percent of the predicted value (default 10, max 40)")
      ->check(CLI::Range(0u, 40u));
  app->add_option("-f,--filter", a.filter, "BPF filter expression (tcpdump syntax)");
  app->add_flag("--json", a.json, "one JSON document (schema: pcap-replay/SCHEMA.md)");
  app->add_flag("--strict", a.strict, "exit 1 also for SHOULD-level departures");
}

std::chrono::microseconds from_ms(double v) {
  return std::chrono::microseconds{static_cast<std::int64_t>(v * 1000.0 + 0.5)};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pcap-replay: check TCP senders in a capture against RFC 6298 (retransmission timer)"};
  app.require_subcommand(1);
  Args a;
  CLI::App* check = app.add_subcommand("check", "report every sender's timer against the rules (default output: text)");
  CLI::App* flows = app.add_subcommand("flows", "list the connections");
  CLI::App* timeline = app.add_subcommand("timeline", "every event with SRTT, RTTVAR, RTO and backoff after it");
  add_common(check, a);
  add_common(flows, a);
  add_common(timeline, a);
  timeline->add_flag("--csv", a.csv, "CSV output (the default and only format)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  replay::Options opt = replay::Options::for_profile(*replay::parse_profile(a.profile));
  if (a.rto_min_ms) opt.config.min_rto = from_ms(*a.rto_min_ms);
  if (a.rto_max_ms) opt.config.max_rto = from_ms(*a.rto_max_ms);
  if (a.syn_linear) opt.config.syn_linear_timeouts = *a.syn_linear;
  if (a.granularity_ms) {
    if (*a.granularity_ms < 0) {
      std::cerr << "pcap-replay: --granularity must not be negative\n";
      return 2;
    }
    opt.granularity = from_ms(*a.granularity_ms);
    opt.config.granularity = opt.granularity;
  }
  if (a.slack_percent) opt.slack_percent = *a.slack_percent;
  opt.filter = a.filter;
  try {
    opt.config.validate();
  } catch (const std::exception& e) {
    std::cerr << "pcap-replay: " << e.what() << "\n";
    return 2;
  }

  std::vector<std::string> errors;
  replay::Report r;
  try {
    r = replay::analyze_files(a.files, opt, timeline->parsed(), errors);
  } catch (const std::exception& e) {
    std::cerr << "pcap-replay: " << e.what() << "\n";
    return 2;
  }
  for (const auto& e : errors) std::cerr << "pcap-replay: " << e << "\n";
  for (const auto& d : r.diagnostics) std::cerr << "pcap-replay: " << replay::to_string(d) << "\n";
  if (errors.size() == a.files.size()) return 2;  // nothing could be read

  if (a.json) {
    replay::write_json_report(std::cout, r);
  } else if (timeline->parsed()) {
    replay::write_timeline_csv(std::cout, r);
  } else if (flows->parsed()) {
    replay::write_flow_list(std::cout, r);
  } else {
    replay::write_text_report(std::cout, r);
  }
  if (!errors.empty()) return 2;
  return check->parsed() ? r.exit_status(a.strict) : 0;
}
