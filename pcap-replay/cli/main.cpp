// pcap-replay: checks each TCP sender in a capture against RFC 6298's
// retransmission timer rules. Sub-commands: check (--html: a page with pictures), flows, timeline, plot (SVGs).
// Exit status: 0 no MUST-level departure, 1 departures (--strict: also
// SHOULD; check only), 2 unusable input or arguments (reason on stderr): any
// input file that cannot be opened, whose first record cannot be read, or
// whose every frame is malformed makes the exit status 2 for every
// sub-command, after the report of the usable files (when there is one; with
// --json the document is printed even when no file was usable); so does a
// file part of which could not be read (the rest is analysed and reported),
// and a live capture (-i IFACE) whose kernel dropped packets.

#include <CLI/CLI.hpp>
#include <rto/config.hpp>
#include <rto/rto.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/format.h>

#include <replay/pipeline/analyze_live.hpp>
#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/pipeline/analyze_parallel.hpp>
#include "bpf_check.hpp"
#include "merge.hpp"
#include "page_file.hpp"
#include <replay/report/annotated_capture.hpp>
#include <replay/report/check_stream.hpp>
#include <replay/report/display_filter.hpp>
#include <replay/report/finding_lines.hpp>
#include <replay/report/flow_list_stream.hpp>
#include <replay/analysis/profile_hint.hpp>
#include <replay/report/progress_line.hpp>
#include <replay/report/report_html.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/report_view.hpp>
#include <replay/report/shard_merge.hpp>
#include <replay/plot/sender_graph.hpp>
#include <replay/report/timeline_csv.hpp>
#include <replay/report/input_counts.hpp>

namespace {

// The project's version is stated once (rto/rto.h); the JSON schema's in report_json.hpp.
const std::string kVersion = fmt::format("pcap-replay {} (RFC 6298 retransmission-timer checker; JSON schema_version {})",
                                         RTO_VERSION_STRING, replay::kSchemaVersion);
constexpr std::array<std::string_view, 7> kSubcommands{"check", "findings", "annotate", "flows", "timeline", "plot", "merge"};

constexpr const char* kExitHelp =
    "Exit status: 0 no MUST-level departure; 1 MUST departures (--strict: also SHOULD; check and findings); "
    "2 bad arguments, or unusable input: a file that cannot be opened, whose first record cannot be "
    "read, or whose every frame is malformed (the report of the other files is still printed, the "
    "unusable ones are named on stderr and in the report); also 2 when part of a file could not be read "
    "(a damaged record or block, a file cut short: the rest is analysed and reported, the lost byte range "
    "named), or when a live capture (-i) lost packets to the kernel. Frames skipped or analysed with a warning do "
    "not change the status. A filter that matches no TCP "
    "segment prints a note and exits 0.";
constexpr const char* kListExitHelp =
    "Exit status: 0 done (listed, written); 2 bad arguments, or unusable input: a file that cannot be opened, whose first "
    "record cannot be read, or whose every frame is malformed (the other files are still listed, the "
    "unusable ones are named on stderr); also 2 when part of a file could not be read (the lost byte range "
    "named), or when a live capture (-i) lost packets to the kernel.";

struct Args {
  std::vector<std::string> files;
  std::vector<std::string> read_files;  // -r FILE (tcpdump, tshark), before the positional ones
  std::string profile = "rfc6298";
  std::optional<double> rto_min_ms, rto_max_ms, granularity_ms;
  std::optional<unsigned> syn_linear, slack_percent;
  bool json = false, strict = false, csv = false;
  std::string filter;
  std::optional<std::uint64_t> flow, stream;
  bool findings_only = false, no_hint = false;
  std::string display_filter;                   // -Y EXPR (as given)
  std::optional<replay::DisplayFilter> display;  // -Y, parsed
  std::string level = "info";  // --level (check, findings): the least level shown
  bool tsv = false;            // findings --tsv
  std::vector<replay::FindingLine> finding_lines;  // findings: collected, printed in frame order
  std::string output;          // annotate -o OUT.pcapng
  replay::FrameComments comments;  // annotate: the findings by frame
  bool comments_streamed = false;  // annotate without --flow/--stream: collected as each connection is finished
  std::size_t max_flows = replay::limits::kDefaultMaxFlows;
  std::size_t max_outstanding = replay::limits::kDefaultMaxOutstanding;
  std::string html, svg_dir;  // check --html FILE, plot --svg DIR; merge --html FILE
  bool timeline_json = false;  // check --json --timeline: each sender's timeline in its entry
  std::string interface;       // -i IFACE: live capture instead of files
  std::optional<double> duration_s;  // --duration S (live capture)
  std::optional<std::uint64_t> count;  // -c N (live capture)
  // timeline without --flow/--stream: each connection's rows are written as
  // the analysis finishes it (analyze_files' FlowSink), the header before the first.
  bool timeline_streamed = false, timeline_header = false;
  bool findings_streamed = false;  // findings without --flow/--stream: lines as each connection is finished
  std::size_t shown = 0;           // connections a streaming sink showed (findings, annotate)
  std::string shard;               // check --shard K/N (as given)
  // -j N: threads. 1 by default: each thread holds the live state of every
  // connection and reads the whole input (analyze_parallel.hpp), so N
  // threads take N times the memory, and gain only on idle cores.
  unsigned jobs = 1;
  std::vector<std::string> merge_docs;  // merge DOC.json...
  bool merge_text = false;              // merge --text
};

// check --shard K/N: {K, N} with 1 <= K <= N <= kMaxShards, else why not.
using replay::kMaxShards;
std::variant<std::pair<std::uint32_t, std::uint32_t>, std::string> parse_shard(const std::string& v) {
  const auto slash = v.find('/');
  unsigned long long k = 0, n = 0;
  std::size_t used_k = 0, used_n = 0;
  try {
    if (slash != std::string::npos && slash > 0 && slash + 1 < v.size() && std::isdigit(static_cast<unsigned char>(v[0])) &&
        std::isdigit(static_cast<unsigned char>(v[slash + 1]))) {
      k = std::stoull(v.substr(0, slash), &used_k);
      n = std::stoull(v.substr(slash + 1), &used_n);
    }
  } catch (const std::exception&) {
    used_k = 0;
  }
  if (used_k != slash || used_n != v.size() - slash - 1 || used_k == 0)
    return fmt::format("--shard \"{}\": give K/N, shard K of N (e.g. 1/4)", v);
  if (n < 1 || n > kMaxShards || k < 1 || k > n)
    return fmt::format("--shard {}: K must be from 1 to N, and N from 1 to {}", v, kMaxShards);
  return std::pair{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(n)};
}

// Set by SIGINT/SIGTERM during a live capture: stop and report.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

// --duration above this is refused: a year of capture is no use case, and
// the bound keeps the conversion to a clock duration exact.
constexpr double kMaxDurationS = 366.0 * 24 * 3600;

// -i IFACE, --duration S, -c N (check, flows, timeline): a live capture, not with files.
void add_live(CLI::App* app, Args& a) {
  CLI::Option* i = app->add_option(
      "-i,--interface", a.interface,
      "capture live on this interface (libpcap; needs root or CAP_NET_RAW) instead of reading files, until "
      "--duration, -c or SIGINT/SIGTERM; then the report. A status line on standard error while it runs, when "
      "that is a terminal. Packets the kernel dropped are lost input (exit 2)");
  i->excludes(app->get_option("files"))->excludes(app->get_option("--read"));
  app->add_option("--duration", a.duration_s, "with -i: stop after this many seconds (default: until SIGINT or -c)")
      ->check(CLI::Validator(
          [](std::string& v) {
            double s = 0;
            const bool number = CLI::detail::lexical_cast(v, s);
            if (number && std::isfinite(s) && s > 0 && s <= kMaxDurationS) return std::string();
            return fmt::format("{}: must be a number of seconds above 0, at most a year ({})", v, kMaxDurationS);
          },
          "SECONDS"))
      ->needs(i);
  app->add_option("-c,--count", a.count, "with -i: stop after this many packets (after -f), as tcpdump -c")
      ->check(CLI::PositiveNumber)
      ->needs(i);
}

// The terminal's width in columns (80 when it does not say).
std::size_t terminal_columns() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

// Runs the live capture of -i: SIGINT/SIGTERM end it (the report follows;
// a second signal, once the capture is over, acts as usual), a status line
// on a terminal.
replay::Report run_live(const Args& a, const replay::Options& opt, bool keep_timeline,
                        std::vector<std::string>& errors) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  replay::ProgressLine line(std::cerr, stderr_is_terminal(), terminal_columns());
  std::function<void(const replay::LiveProgress&)> status;
  if (line.enabled())
    status = [&line](const replay::LiveProgress& p) {
      line.draw(replay::live_status_text(p), std::chrono::steady_clock::now());
    };
  replay::LiveLimits until;
  if (a.duration_s)
    until.duration = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(*a.duration_s));
  until.packets = a.count;
  replay::Report r = replay::analyze_live(a.interface, opt, keep_timeline, until, g_stop, status, errors);
  line.clear();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return r;
}

// Reads the files, with a progress line on a terminal for the large ones
// (limits::kProgressMinFileBytes); the line is erased before the report.
replay::Report run_files(const std::vector<std::string>& files, const replay::Options& opt, unsigned jobs,
                         bool keep_timeline, std::vector<std::string>& errors, const replay::FlowSink& sink,
                         const replay::SinkMode& mode = {}) {
  std::vector<bool> large(files.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    if (files[i] == "-" || !std::filesystem::is_regular_file(files[i], ec)) continue;
    const auto size = std::filesystem::file_size(files[i], ec);
    large[i] = !ec && replay::wants_file_progress(size);
    any = any || large[i];
  }
  // Not while a sink writes the report to the same terminal: the line
  // would be drawn among the report's lines.
  const bool report_on_terminal = sink && isatty(STDOUT_FILENO) == 1;
  replay::ProgressLine line(std::cerr, any && stderr_is_terminal() && !report_on_terminal, terminal_columns());
  if (!line.enabled()) return replay::analyze_files_parallel(files, opt, jobs, keep_timeline, errors, sink, nullptr, mode);
  replay::Report r = replay::analyze_files_parallel(
      files, opt, jobs, keep_timeline, errors, sink,
      [&](const replay::FileProgress& p) {
        if (large[p.file_index]) line.draw(replay::file_progress_text(p), std::chrono::steady_clock::now());
      },
      mode);
  line.clear();
  return r;
}

// The options every sub-command takes: the input, the filter, the selection.
void add_common(CLI::App* app, Args& a) {
  app->add_option("files", a.files, "capture files (pcap or pcapng); - reads standard input; a file given twice is analysed once");
  app->add_option("-r,--read", a.read_files, "a capture file to read, as tcpdump -r and tshark -r (repeatable; read before the positional files)");
  app->add_option("-f,--filter", a.filter, "BPF filter expression (tcpdump syntax)");
  app->add_option("--flow", a.flow, "only connection N (the flow numbers of pcap-replay flows, from 1)");
  app->add_option("--stream", a.stream, "only the connection Wireshark numbers tcp.stream N (from 0; not with -f)");
  app->add_option("-Y,--display-filter", a.display_filter,
                  "a Wireshark display filter, of the fields whose meaning for connections and findings is plain: "
                  "tcp.stream == N, frame.number == N (or !=, <, <=, >, >=), ip.addr == A, ipv6.addr == A, "
                  "tcp.port == P, joined by &&; the analysis still reads every packet (-f filters before it)");
  app->add_option("-j,--jobs", a.jobs,
                  "threads: each analyses a share of the connections (a hash of the connection number) and replays "
                  "the rest unjudged, reading the whole input: N times the memory; the output is the same as with "
                  "-j 1 (the default; standard input and live captures: 1)")
      ->check(CLI::Range(1u, 256u));
  app->set_version_flag("--version", kVersion);
}

// The options of the sub-commands that replay the estimator (check, timeline).
void add_model(CLI::App* app, Args& a) {
  std::vector<std::string> names;
  for (const auto& p : replay::all_profiles()) names.push_back(std::string(p.name));
  names.push_back("auto");
  std::string help = "the stack the senders are judged against: ";
  for (const auto& p : replay::all_profiles()) help += std::string(p.name) + " (" + std::string(p.title) + "), ";
  help += "or auto (each sender against every profile; the best fit is reported). Default rfc6298";
  app->add_option("--profile", a.profile, help)->check(CLI::IsMember(names));
  app->add_option("--rto-min", a.rto_min_ms, "override the profile's minimum RTO, ms");
  app->add_option("--rto-max", a.rto_max_ms,
                  "override the profile's maximum RTO, ms (rfc6298: at least 60000, RFC 6298 2.5)");
  app->add_option("--syn-linear", a.syn_linear, "SYN expiries that do not double (Linux tcp_syn_linear_timeouts)");
  app->add_option("--granularity", a.granularity_ms, "clock granularity G, ms (default 1): the absolute tolerance of every timing check and G of RFC 6298 2.3");
  app->add_option("--slack", a.slack_percent, "relative tolerance, percent of the predicted value (default 10, max 40)")
      ->check(CLI::Range(0u, 40u));
  app->add_option("--max-flows", a.max_flows,
                  fmt::format("connections analysed; later ones are named on stderr, not analysed, exit 2 (default {})",
                              replay::limits::kDefaultMaxFlows))
      ->check(CLI::PositiveNumber);
  app->add_option("--max-outstanding", a.max_outstanding,
                  fmt::format("unacknowledged segments of one sender; beyond, its connection is analysed up to that "
                              "frame only, exit 2 (default {})",
                              replay::limits::kDefaultMaxOutstanding))
      ->check(CLI::PositiveNumber);
}

// What the report shows of what was analysed (--flow, --stream,
// --findings-only, --level, -Y).
replay::ReportView make_view(const Args& a) {
  replay::ReportView view;
  view.flow = a.flow;
  view.stream = a.stream;
  view.findings_only = a.findings_only;
  view.level = *replay::parse_level(a.level);
  view.display = a.display;
  view.timeline = a.timeline_json;
  return view;
}

// ms -> us, rounded; the caller has checked the range (finite, 0..1 h).
std::chrono::microseconds from_ms(double v) {
  return std::chrono::microseconds{static_cast<std::int64_t>(std::llround(v * 1000.0))};
}

std::string ms_text(double v) { return fmt::format("{}", v); }
std::string ms_text(std::chrono::microseconds d) { return fmt::format("{}", static_cast<double>(d.count()) / 1000.0); }

// A duration flag must be a finite number of ms between 0 and one hour
// (rto::Config's supported range) before it is converted.
std::optional<std::string> check_ms_flag(const char* flag, const std::optional<double>& v) {
  if (!v) return std::nullopt;
  if (!std::isfinite(*v) || *v < 0) return fmt::format("{} {}: must be a number of ms, 0 or more", flag, *v);
  if (*v > 3'600'000.0) return fmt::format("{} {} ms: above one hour (3600000 ms), the supported range", flag, *v);
  return std::nullopt;
}

// Translates an rto::ConfigError (what() = "rto::Config.FIELD: ...") into a
// sentence about the flag that caused it, in ms. The fields a flag cannot set
// (initial_rto, syn_fallback_rto, tick) only fail against the cap, so they are
// reported on --rto-max.
std::string explain_config_error(const std::string& what, const rto::Config& c, const Args& a) {
  const std::string prefix = "rto::Config.";
  std::string field;
  if (what.rfind(prefix, 0) == 0) {
    const auto colon = what.find(':', prefix.size());
    if (colon != std::string::npos) field = what.substr(prefix.size(), colon - prefix.size());
  }
  const bool rfc = c.variant == rto::Config::Variant::rfc6298;
  const std::string max_src = a.rto_max_ms ? fmt::format("--rto-max {} ms", ms_text(*a.rto_max_ms))
                                           : fmt::format("the {} profile's maximum RTO {} ms", a.profile, ms_text(c.max_rto));
  if (field == "max_rto") {
    if (c.max_rto.count() == 0) return fmt::format("{}: the maximum RTO must be positive (RFC 6298 2.5)", max_src);
    if (rfc)
      return fmt::format(
          "{}: RFC 6298 2.5 allows a maximum only if it is at least 60000 ms; to check a stack with a lower cap "
          "against its own numbers use --profile linux --rto-max {}",
          max_src, ms_text(c.max_rto));
  }
  if (field == "min_rto" && c.min_rto > c.max_rto)
    return fmt::format("--rto-min {} ms: above the maximum RTO ({}); give a larger --rto-max or a smaller --rto-min",
                       ms_text(c.min_rto), a.rto_max_ms ? fmt::format("--rto-max {} ms", ms_text(c.max_rto))
                                                        : fmt::format("{} ms of the {} profile", ms_text(c.max_rto), a.profile));
  if (field == "initial_rto")
    return fmt::format("{}: below the initial RTO of {} ms (RFC 6298 2.1), which must fit under the maximum", max_src,
                       ms_text(c.initial_rto));
  if (field == "syn_fallback_rto")
    return fmt::format("{}: below the {} ms RTO that 5.7 restores after a SYN timeout, which must fit under the maximum",
                       max_src, ms_text(c.syn_fallback_rto));
  if (field == "granularity")
    return fmt::format(
        "--granularity {} ms: {}", ms_text(c.granularity),
        rfc && c.granularity.count() == 0
            ? "RFC 6298 needs a positive clock granularity G (section 2); use --profile linux to check without G"
            : "outside the supported range (0 to 3600000 ms)");
  if (field == "min_rto")
    return fmt::format("--rto-min {} ms: outside the supported range (0 to 3600000 ms)", ms_text(c.min_rto));
  if (field == "max_rto") return fmt::format("{}: outside the supported range (1 to 3600000 ms)", max_src);
  if (field == "tick")
    return fmt::format("{}: the {} profile's timer tick {} ms does not fit", max_src, a.profile, ms_text(c.tick));
  // Not expected (every field is covered above); still name the flags.
  return fmt::format("the RTO settings (--profile {}, --rto-min, --rto-max, --granularity) are inconsistent: {}",
                     a.profile, what);
}

// The same capture named twice (the same path, or two paths to one file):
// analysed once, with a warning. "-" (stdin) can be read only once.
std::vector<std::string> unique_files(const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::optional<std::string> twin;
    for (const auto& g : out) {
      std::error_code ec;
      if (f == g || (f != "-" && g != "-" && fs::equivalent(f, g, ec) && !ec)) {
        twin = g;
        break;
      }
    }
    if (twin) {
      std::cerr << "pcap-replay: warning: " << f
                << (f == *twin ? " is given more than once" : " is the same file as " + *twin)
                << "; it is analysed once\n";
      continue;
    }
    out.push_back(f);
  }
  return out;
}

constexpr const char* kOutOfMemory =
    "pcap-replay: out of memory: the input holds more connections or outstanding data than this machine's memory; "
    "bound the run with --max-flows or --max-outstanding, or split the capture (exit status 2)\n";

int report(replay::Report& r, Args& a, const std::vector<std::string>& files, const replay::Options& opt,
           bool check, bool findings, bool annotate, bool flows, bool timeline, bool plot, replay::CheckStream* streamed,
           replay::FlowListStream* listed, const replay::cli::PageFile* page);

// glibc serves a block of at least M_MMAP_THRESHOLD from its own mapping;
// by default it raises the threshold each time such a block is freed. The
// blocks that grow with the connection count (the flow table, the deques of
// connections and attempts) then land in the heap, and once freed they
// leave holes the per-connection records fragment: 2 M one-SYN connections
// peak at 1.10 GB instead of 0.88 GB (bench/README.md). Keeping the default
// as a fixed threshold keeps them apart.
constexpr int kMmapThreshold = 128 * 1024;  // bytes: glibc's default, fixed
}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
#endif
  CLI::App app{"pcap-replay: check TCP senders in a capture against RFC 6298 (retransmission timer)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", kVersion);
  app.footer(kExitHelp);
  // CLI11's own errors ("--profile: bsd not in {...}") start with the program's name too.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("pcap-replay: {} (see pcap-replay --help)\n", e.what());
  });
  Args a;
  CLI::App* check = app.add_subcommand("check", "report every sender's timer against the rules (default output: text)");
  CLI::App* findings = app.add_subcommand(
      "findings", "one line per finding: file, frame, level, rule, sender, message (like tshark -z expert)");
  CLI::App* annotate = app.add_subcommand(
      "annotate", "a copy of the capture in pcapng with each finding as a comment on its frame (for Wireshark)");
  CLI::App* flows = app.add_subcommand("flows", "list the connections (text, or --json)");
  CLI::App* timeline = app.add_subcommand("timeline", "every event with SRTT, RTTVAR, RTO and backoff after it (CSV)");
  CLI::App* plot = app.add_subcommand("plot", "one SVG picture per sender: time-sequence graph, timer, estimator");
  add_common(check, a);
  add_common(findings, a);
  add_common(annotate, a);
  add_common(flows, a);
  add_common(timeline, a);
  add_model(check, a);
  add_model(findings, a);
  add_model(annotate, a);
  add_model(timeline, a);
  add_live(check, a);
  add_live(flows, a);
  add_live(timeline, a);
  check->add_flag("--strict", a.strict, "exit 1 also for SHOULD-level departures");
  check->add_option("--shard", a.shard,
                    "K/N: analyse only the connections of shard K of N (a hash of the connection number), still "
                    "reading every packet; with --json, for pcap-replay merge, which gives the document of one run");
  CLI::App* merge = app.add_subcommand(
      "merge", "the check --json document of one run, from those of check --json --shard K/N for K = 1..N");
  merge->add_option("documents", a.merge_docs, "the shards' JSON documents, in any order (- reads standard input)")
      ->required();
  merge->add_flag("--strict", a.strict, "exit 1 also for SHOULD-level departures (as check --strict)");
  merge->add_flag("--text", a.merge_text,
                  "write the text report of check (the shards' options and selection) instead of the JSON document");
  merge->add_option("--html", a.html,
                    "also write the HTML page check --html writes, to this file: the shards must have been run with "
                    "--timeline and without a selection (--flow, --stream, -Y, --findings-only, --level)");
  merge->footer(kExitHelp);
  findings->add_flag("--strict", a.strict, "exit 1 also for SHOULD-level departures");
  for (CLI::App* sub : {check, findings, annotate})
    sub->add_option("--level", a.level,
                    "show only the findings at this level or above: must, should, may or info (the default: all); the "
                    "summary and exit status still cover every finding")
        ->check(CLI::IsMember({"must", "should", "may", "info"}, CLI::ignore_case));
  annotate
      ->add_option("-o,--output", a.output,
                   "the pcapng file to write: every frame of the input as read, each finding a comment on its frame "
                   "(Wireshark: frame.comment contains \"5.5\")")
      ->required();
  findings->add_flag("--tsv", a.tsv,
                     "tab-separated: file, frame, level, rule, sender (src -> dst), message; no header line");
  check->add_flag("--findings-only", a.findings_only,
                  "print only the senders with findings (the summary and exit status still cover every sender)");
  check->add_flag("--no-hint", a.no_hint,
                  "do not re-read the input under --profile auto to say which profile explains MUST departures");
  check->footer(kExitHelp);
  findings->footer(kExitHelp);
  annotate->footer(kListExitHelp);
  flows->footer(kListExitHelp);
  timeline->footer(kListExitHelp);
  plot->footer(kListExitHelp);
  add_common(plot, a);
  add_model(plot, a);
  check->add_option("--html", a.html,
                    "also write the report as one self-contained HTML page with a picture per sender to this file");
  plot->add_option("--svg", a.svg_dir, "directory the SVGs are written to (created if missing): flow-ID-c2s.svg, flow-ID-s2c.svg")
      ->required();
  check->add_flag("--json", a.json, "the whole report as one JSON document (schema: pcap-replay/SCHEMA.md)");
  check->add_flag("--timeline", a.timeline_json,
                  "with --json: each sender's entry carries its timeline (every event, with the estimator after it), "
                  "so that pcap-replay merge --html can draw the shards' pictures");
  flows->add_flag("--json", a.json, "the connection list as one JSON document (\"kind\": \"flows\", SCHEMA.md)");
  timeline->add_flag("--csv", a.csv, "CSV output: the default and only format (columns in SCHEMA.md)");
  timeline->add_flag("--json", a.json, "not supported: the timeline is CSV only");

  // CLI11 reports a word that is no sub-command as "A subcommand is
  // required"; say what is wrong instead.
  if (argc > 1) {
    const std::string_view first = argv[1];
    bool known = first.empty() || first.front() == '-';
    for (auto s : kSubcommands) known = known || first == s;
    if (!known) {
      std::cerr << "pcap-replay: unknown subcommand \"" << first
                << "\"; valid subcommands: check, findings, annotate, flows, timeline, plot, merge (see pcap-replay --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty()) {
      std::cerr << "pcap-replay: a subcommand is required: check, findings, flows or timeline (or annotate, plot, merge; see pcap-replay --help)\n";
      return 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (merge->parsed()) {
    if (merge->count("--html") > 0 && a.html.empty()) {
      std::cerr << "pcap-replay: merge: --html: no file name given\n";
      return 2;
    }
    return replay::cli::run_merge(a.merge_docs, a.strict, a.merge_text, a.html);
  }
  // "check x.pcap tcp port 80": a tcpdump filter after the files.
  const auto exists = [](const std::string& p) {
    std::error_code ec;
    return p == "-" || std::filesystem::exists(p, ec);
  };
  if (auto expr = replay::trailing_bpf(a.files, exists); expr && !replay::bpf_error(*expr)) {
    std::cerr << "pcap-replay: \"" << *expr << "\" after the capture files reads as a tcpdump filter expression, "
              << "not files; give it with -f '" << *expr << "' (a BPF filter, applied as the capture is read)\n";
    return 2;
  }
  // "check x.pcap 'tcp.stream == 0'": a display filter where a file was expected.
  for (const std::string& f : a.files)
    if (!exists(f) && f.find("==") != std::string::npos &&
        std::holds_alternative<replay::DisplayFilter>(replay::DisplayFilter::parse(f))) {
      std::cerr << "pcap-replay: \"" << f << "\" is not a file but reads as a display filter; give it with -Y '" << f
                << "'\n";
      return 2;
    }
  // An empty or blank -Y is no filter, as tshark takes it.
  if (a.display_filter.find_first_not_of(" \t\r\n") != std::string::npos) {
    auto parsed = replay::DisplayFilter::parse(a.display_filter);
    if (const auto* e = std::get_if<std::string>(&parsed)) {
      std::cerr << "pcap-replay: " << *e << "\n";
      return 2;
    }
    a.display = std::get<replay::DisplayFilter>(parsed);
    if (a.display->reads_stream() && !a.filter.empty()) {
      std::cerr << "pcap-replay: -Y \"" << a.display_filter << "\": Wireshark's stream numbers count the connections "
                << "the filter \"" << a.filter << "\" hides, which are not read; use --flow or drop -f\n";
      return 2;
    }
  }
  std::vector<std::string> inputs = a.read_files;
  inputs.insert(inputs.end(), a.files.begin(), a.files.end());
  if (annotate->parsed()) {
    // The input is read twice (the analysis, then the copy), into one pcapng.
    std::error_code ec;
    if (inputs.size() > 1) {
      std::cerr << "pcap-replay: annotate: one capture file at a time (its copy is one pcapng file); got "
                << inputs.size() << "\n";
      return 2;
    }
    if (inputs.size() == 1 && (inputs[0] == "-" || (std::filesystem::exists(inputs[0], ec) &&
                                                     !std::filesystem::is_regular_file(inputs[0], ec)))) {
      std::cerr << "pcap-replay: annotate reads its input twice (the analysis, then the copy): give a regular file, "
                << "not " << (inputs[0] == "-" ? std::string("-") : "\"" + inputs[0] + "\" (a pipe or device)") << "\n";
      return 2;
    }
    if (a.output == "-") {
      std::cerr << "pcap-replay: annotate -o -: the copy is written to a file, not standard output (its report "
                << "line goes there); give a file name\n";
      return 2;
    }
    if (inputs.size() == 1 && std::filesystem::exists(a.output, ec) && std::filesystem::equivalent(a.output, inputs[0], ec)) {
      std::cerr << "pcap-replay: annotate: -o " << a.output << " is the input file; write the copy elsewhere\n";
      return 2;
    }
  }
  if (inputs.empty() && a.interface.empty()) {
    CLI::App* sub = app.get_subcommands().front();
    std::cerr << "pcap-replay: " << sub->get_name() << ": no capture file given (pcap-replay " << sub->get_name()
              << " FILE..., or -r FILE; - reads standard input; -i IFACE captures live)\n";
    return 2;
  }
  if (!a.filter.empty()) {
    if (auto err = replay::bpf_error(a.filter)) {
      std::cerr << "pcap-replay: -f \"" << a.filter << "\": not a valid BPF filter: " << *err << "\n";
      return 2;
    }
  }
  if (check->parsed() && a.timeline_json && !a.json) {
    std::cerr << "pcap-replay: check --timeline writes each sender's timeline into the JSON document: give --json "
                 "(the timeline alone, as CSV: pcap-replay timeline)\n";
    return 2;
  }
  if (timeline->parsed() && a.json) {
    std::cerr << "pcap-replay: timeline --json: the timeline is written as CSV only (--csv, the default); "
                 "for the per-sender results as JSON use: pcap-replay check --json\n";
    return 2;
  }

  for (const auto& [flag, v] : {std::pair{"--rto-min", a.rto_min_ms}, std::pair{"--rto-max", a.rto_max_ms},
                                std::pair{"--granularity", a.granularity_ms}}) {
    if (auto err = check_ms_flag(flag, v)) {
      std::cerr << "pcap-replay: " << *err << "\n";
      return 2;
    }
  }
  replay::Options opt = replay::Options::for_profile(a.profile);
  if (a.rto_min_ms) opt.config.min_rto = from_ms(*a.rto_min_ms), opt.user_min_rto = true;
  if (a.rto_max_ms) opt.config.max_rto = from_ms(*a.rto_max_ms), opt.user_max_rto = true;
  if (a.syn_linear) opt.config.syn_linear_timeouts = *a.syn_linear, opt.user_syn_linear = true;
  if (a.granularity_ms) {
    opt.absolute_tolerance = from_ms(*a.granularity_ms);
    opt.config.granularity = opt.absolute_tolerance;  // --granularity is G and the tolerance alike
    opt.user_granularity = true;
  }
  if (a.slack_percent) opt.slack_percent = *a.slack_percent;
  opt.filter = a.filter;
  if (a.display) opt.frames = a.display->frames();  // -Y frame.number: which connections have such a packet
  opt.max_flows = a.max_flows;
  opt.max_outstanding = a.max_outstanding;
  if (check->count("--shard") > 0) {
    const auto shard = parse_shard(a.shard);
    if (const auto* err = std::get_if<std::string>(&shard)) {
      std::cerr << "pcap-replay: " << *err << "\n";
      return 2;
    }
    // A shard's document is for merge: the streamed check --json, of files.
    if (!a.json || check->count("--html") > 0 || a.flow || a.stream || !a.interface.empty()) {
      std::cerr << "pcap-replay: --shard writes a check --json document for pcap-replay merge: give --json, and "
                   "not --html, --flow, --stream or -i\n";
      return 2;
    }
    std::tie(opt.shard_k, opt.shard_n) = std::get<0>(shard);
  }
  // The text connection list shows nothing of the senders: they are not modelled.
  opt.model_senders = !(flows->parsed() && !a.json);
  try {
    opt.config.validate();
  } catch (const rto::ConfigError& e) {
    std::cerr << "pcap-replay: " << explain_config_error(e.what(), opt.config, a) << "\n";
    return 2;
  }

  const std::vector<std::string> files = unique_files(inputs);
  // --html: the page's file, checked before the analysis (a page that
  // cannot be written is said first); written at the end.
  std::optional<replay::cli::PageFile> page;
  if (check->count("--html") > 0) {
    std::string error;
    page = replay::cli::PageFile::check(a.html, replay::cli::read_files(files), error);
    if (!page) {
      std::cerr << "pcap-replay: " << error << "\n";
      return 2;
    }
  }
  std::vector<std::string> errors;
  replay::Report r;
  // check (text or --json) of files, without --html or a view that picks
  // connections: each connection is written as the analysis finishes it, and
  // then dropped, so the memory does not grow with the connections written.
  std::optional<replay::CheckStream> streamed;
  std::optional<replay::FlowListStream> listed;  // flows (text or --json), the same way
  try {
    const bool keep = timeline->parsed() || plot->parsed() || page.has_value() || a.timeline_json;
    replay::FlowSink sink;
    replay::SinkMode mode;
    if (check->parsed() && !page && !a.flow && !a.stream && a.interface.empty()) {
      const replay::ReportView view = make_view(a);
      streamed.emplace(std::cout, opt, view, a.json);
      // A shard's document: what its run must share with the other shards'
      // beyond what the document shows (merge compares it).
      if (check->count("--shard") > 0)
        streamed->set_shard_run({{"version", kVersion},
                                 {"max_flows", a.max_flows},
                                 {"max_outstanding", a.max_outstanding},
                                 {"no_hint", a.no_hint},
                                 {"strict", a.strict},
                                 {"timeline", a.timeline_json}});
      mode = streamed->sink_mode();
      sink = [&streamed](replay::FlowReport& f, replay::CaptureTime origin) { streamed->flow(f, origin); };
    }
    if (findings->parsed() && !a.flow && !a.stream && a.interface.empty()) {  // files: lines as it goes
      a.findings_streamed = true;
      mode.keep_reports = false;  // written: the connection's report is dropped
      sink = [&opt, &a, view = make_view(a), streams = replay::StreamCounter(opt.filter.empty())](
                 replay::FlowReport& f, replay::CaptureTime) mutable {
        if (!view.shows(f, streams.next(f))) return;
        ++a.shown;
        replay::finding_lines(a.finding_lines, f, opt, view, a.tsv);
      };
    }
    if (annotate->parsed() && !a.flow && !a.stream) {  // the comments collected as it goes
      a.comments_streamed = true;
      mode.keep_reports = false;
      sink = [&opt, &a, view = make_view(a), streams = replay::StreamCounter(opt.filter.empty())](
                 replay::FlowReport& f, replay::CaptureTime) mutable {
        if (!view.shows(f, streams.next(f))) return;
        ++a.shown;
        replay::add_finding_comments(a.comments, f, opt, view);
      };
    }
    if (flows->parsed() && !a.flow && !a.stream && !a.display && a.interface.empty()) {
      listed.emplace(std::cout, opt, a.json);
      mode = listed->sink_mode();
      sink = [&listed](replay::FlowReport& f, replay::CaptureTime origin) { listed->flow(f, origin); };
    }
    if (timeline->parsed() && !a.flow && !a.stream && !a.display && a.interface.empty()) {  // files: rows as it goes
      a.timeline_streamed = true;
      mode.keep_reports = false;  // written: the connection's report is dropped
      sink = [&a](replay::FlowReport& f, replay::CaptureTime origin) {
        if (!a.timeline_header) replay::write_timeline_header(std::cout);
        a.timeline_header = true;
        replay::write_timeline_rows(std::cout, f, origin);
        for (auto& s : f.senders) std::vector<replay::TimelineEvent>().swap(s.timeline);  // written: freed
      };
    }
    r = a.interface.empty() ? run_files(files, opt, a.jobs, keep, errors, sink, mode) : run_live(a, opt, keep, errors);
  } catch (const rto::ConfigError& e) {
    std::cerr << "pcap-replay: " << explain_config_error(e.what(), opt.config, a) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << kOutOfMemory;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pcap-replay: " << e.what() << "\n";
    return 2;
  }
  try {
    return report(r, a, files, opt, check->parsed(), findings->parsed(), annotate->parsed(), flows->parsed(), timeline->parsed(), plot->parsed(),
                  streamed ? &*streamed : nullptr, listed ? &*listed : nullptr, page ? &*page : nullptr);
  } catch (const std::bad_alloc&) {
    std::cerr << kOutOfMemory;
    return 2;
  }
}

namespace {
// annotate: the copy of `in` with a.comments; 0 written, 2 not (said on stderr).
int write_annotated(const Args& a, const std::string& in) {
  std::ofstream out(a.output, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << "pcap-replay: annotate -o " << a.output << ": cannot write the file: " << std::strerror(errno) << "\n";
    return 2;
  }
  const auto res = replay::write_annotated_pcapng(in, out, a.comments, kVersion);
  out.close();
  std::error_code ec;
  if (const auto* e = std::get_if<std::string>(&res)) {
    std::cerr << "pcap-replay: annotate: " << *e << "\n";
    std::filesystem::remove(a.output, ec);  // no copy rather than an empty one
    return 2;
  }
  if (!out) {
    std::cerr << "pcap-replay: annotate -o " << a.output << ": writing failed (disk full?)\n";
    std::filesystem::remove(a.output, ec);
    return 2;
  }
  const auto& done = std::get<replay::AnnotateResult>(res);
  std::size_t notes = 0;
  for (const auto& [frame, texts] : a.comments) notes += texts.size();
  std::cerr << fmt::format("pcap-replay: wrote {}: {} frame(s) of {}, {} with comments ({} finding(s))\n", a.output,
                           done.frames, in, done.commented, notes);
  // Damaged stretches were named by the analysis (lost input, exit 2); the copy skips them too.
  return done.damage.empty() && done.read_error.empty() ? 0 : 2;
}

// Prints the report (and the input problems on stderr); the exit status.
int report(replay::Report& r, Args& a, const std::vector<std::string>& files, const replay::Options& opt,
           bool check, bool findings, bool annotate, bool flows, bool timeline, bool plot, replay::CheckStream* streamed,
           replay::FlowListStream* listed, const replay::cli::PageFile* page) {
  const auto unusable = replay::unusable_inputs(r);
  for (const auto& d : r.diagnostics) {
    if (replay::is_unusable_reason(r, d)) continue;  // said below, once
    std::cerr << "pcap-replay: " << (d.skipped ? "skipped: " : "warning: ") << replay::to_string(d) << "\n";
  }
  for (const auto* in : unusable) std::cerr << "pcap-replay: unusable input: " << in->error << "\n";
  for (const auto& in : r.inputs)
    if (in.usable())
      for (const auto& l : in.lost) std::cerr << "pcap-replay: lost input: " << replay::to_string(in.name, l) << "\n";
  for (const auto& in : r.inputs)
    for (const auto& line : replay::live_lost_text(in)) std::cerr << "pcap-replay: lost input: " << line << "\n";
  // Nothing could be read: no text report; the JSON still names the inputs and their errors.
  if (unusable.size() == r.inputs.size() && !(a.json && !timeline)) return 2;
  if (auto note = replay::empty_input_note(r)) std::cerr << "pcap-replay: note: " << *note << "\n";
  const replay::ReportView view = make_view(a);
  if (unusable.size() < r.inputs.size()) {
    if (auto err = view.error(r, replay::StreamNumbers(r))) {
      std::cerr << "pcap-replay: " << *err << "\n";
      return 2;
    }
  }

  if (r.dropped_skipped + r.dropped_warned > 0)
    std::cerr << "pcap-replay: " << r.dropped_skipped + r.dropped_warned << " more input problem(s) not listed ("
              << r.dropped_skipped << " frame(s) skipped, " << r.dropped_warned
              << " analysed with a warning): only the first " << replay::limits::kMaxDiagnostics << " are kept\n";
  for (const auto& hit : r.limit_hits) std::cerr << "pcap-replay: limit: " << hit.message << "\n";
  if (r.dropped_segments > 0)
    std::cerr << "pcap-replay: limit: " << r.dropped_segments << " segment(s) not analysed (exit status 2)\n";

  if (plot) {
    replay::keep_shown_flows(r, view);  // --flow, --stream, -Y: only those connections' pictures
    try {
      for (const auto& path : replay::write_sender_svgs(r, a.svg_dir)) std::cout << path << "\n";
    } catch (const std::exception& e) {
      std::cerr << "pcap-replay: plot --svg " << e.what() << "\n";
      return 2;
    }
  } else if (annotate) {
    if (!a.comments_streamed) {
      const replay::StreamNumbers streams(r);
      for (const auto& f : r.flows)
        if (view.shows(f, streams)) replay::add_finding_comments(a.comments, f, opt, view);
    }
    if (int rc = write_annotated(a, files.front()); rc != 0) return rc;
  } else if (findings) {
    if (!a.findings_streamed) {
      const replay::StreamNumbers streams(r);
      for (const auto& f : r.flows)
        if (view.shows(f, streams)) replay::finding_lines(a.finding_lines, f, opt, view, a.tsv);
    }
    // A file's findings in frame order, across its connections (as tshark -z expert).
    replay::write_finding_lines(std::cout, std::move(a.finding_lines));
  } else if (timeline && a.timeline_streamed) {
    // Every connection's rows were written as it was finished; no connection: the header alone.
    if (!a.timeline_header) replay::write_timeline_header(std::cout);
  } else if (timeline) {
    replay::keep_shown_flows(r, view);
    replay::write_timeline_csv(std::cout, r);
  } else if (flows && listed) {
    listed->finish(r);
  } else if (flows) {
    if (a.json)
      replay::write_json_flow_list(std::cout, r, view);
    else
      replay::write_flow_list(std::cout, r, view);
  } else {
    // MUST departures under one profile: does another explain them? (a second pass, under auto)
    std::optional<std::string> hint;
    // Standard input cannot be read twice: no hint for "-".
    // Nor a live capture.
    const bool rereadable = a.interface.empty() && std::find(files.begin(), files.end(), "-") == files.end();
    if (!a.no_hint && rereadable && !opt.auto_profile && r.count(replay::Level::must) > 0) {
      replay::Options ao = opt.with_profile(*replay::find_profile("linux"));
      ao.auto_profile = true;
      std::vector<std::string> ignored;
      try {
        if (streamed) {  // this pass's connections are not kept either
          replay::HintTally& tally = streamed->hint();
          replay::SinkMode drop;
          drop.keep_reports = false;
          run_files(files, ao, a.jobs, false, ignored, [&tally](replay::FlowReport& f, replay::CaptureTime) { tally.best(f); },
                    drop);
          hint = tally.text();
        } else {
          hint = replay::profile_hint(r, run_files(files, ao, a.jobs, false, ignored, nullptr));
        }
      } catch (const std::exception&) {
        // The overrides do not fit every profile: no hint.
      }
    }
    if (streamed) {
      streamed->finish(r, hint);
    } else if (a.json) {
      nlohmann::json doc = replay::to_json(r, view);
      doc["profile_hint"] = hint ? nlohmann::json(*hint) : nlohmann::json(nullptr);
      std::cout << replay::dump_document(doc) << "\n";
    } else {
      replay::write_text_report(std::cout, r, view);
      if (hint) std::cout << "hint: " << *hint << "\n";
    }
  }
  if (a.display) {  // a display filter that shows nothing says so, as -f does
    std::size_t shown = streamed ? streamed->shown() : a.shown;
    if (!streamed && !a.findings_streamed && !a.comments_streamed) {
      const replay::StreamNumbers streams(r);
      for (const auto& f : r.flows) shown += view.shows(f, streams) ? 1 : 0;
    }
    if (shown == 0 && r.flow_count() > 0)
      std::cerr << "pcap-replay: note: -Y \"" << a.display->text << "\" shows none of the " << r.flow_count()
                << " connection(s); the summary and exit status still cover them\n";
  }
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "pcap-replay: writing the report to standard output failed: " << std::strerror(errno)
              << " (disk full, or the reader closed the pipe?)\n";
    return 2;
  }
  int status = check || findings ? r.exit_status(a.strict) : 0;
  if (!unusable.empty()) status = 2;  // part of the input was unusable
  for (const auto& in : r.inputs)
    if (in.lost_data()) status = 2;  // part of a file could not be read: nothing is lost silently
  if (!r.limit_hits.empty()) status = 2;  // part of the input was not analysed
  // The page, as the report (none when no input was usable).
  if (page && unusable.size() < r.inputs.size()) {
    std::string error;
    if (!page->write([&](std::ostream& os) { replay::write_html_report(os, r, status, view); }, error)) {
      std::cerr << "pcap-replay: " << error << "\n";
      return 2;
    }
  }
  return status;
}
}  // namespace
