// backoff-sim: experiments on retry backoff with the rto library's Backoff
// classes. Sub-commands: brooker, ratelimit, amplification (see bench/README.md).

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models.hpp"
#include "sim.hpp"
#include "svg.hpp"

using namespace backoff_sim;

namespace {

// Output goes to stdout; files are written only where asked: the plots only
// with --svg-dir (make bench passes bench/results).
struct Common {
  bool csv = false;
  std::string svg_dir;  // empty: no plots
  std::uint64_t seed = 1;
};

void add_common(CLI::App* app, Common& c) {
  app->add_flag("--csv", c.csv, "print CSV instead of the table");
  app->add_option("--svg-dir", c.svg_dir, "write the SVG plots into this existing directory (default: no plots)");
  app->add_option("--seed", c.seed, "base seed (every trial's seed derives from it)")->capture_default_str();
}

std::string svg_path(const Common& c, const std::string& file) { return c.svg_dir + "/" + file; }

// ---- brooker ---------------------------------------------------------------

int brooker(const Common& c, std::vector<int> clients, int trials) {
  OccParams p;
  const auto strategies = brooker_strategies();
  std::map<std::pair<int, Strategy>, std::pair<double, double>> mean;  // (calls, completion)
  for (int n : clients)
    for (Strategy s : strategies) {
      double calls = 0, time = 0;
      for (int t = 0; t < trials; ++t) {
        const OccResult r = run_occ(n, s, p, mix(c.seed, static_cast<std::uint64_t>(n),
                                                 static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(t)));
        calls += static_cast<double>(r.calls);
        time += r.completion_ms;
      }
      mean[{n, s}] = {calls / trials, time / trials};
    }
  if (c.csv) {
    fmt::print("clients,strategy,calls,completion_ms\n");
    for (int n : clients)
      for (Strategy s : strategies)
        fmt::print("{},{},{:.2f},{:.2f}\n", n, name(s), mean[{n, s}].first, mean[{n, s}].second);
  } else {
    fmt::print("brooker: OCC contention, mean of {} trials; each message |N({} ms, {} ms)|, base {} ms, cap {} ms\n",
               trials, p.net_mean_ms, p.net_sd_ms, p.base_ms, p.cap_ms);
    fmt::print("calls (writes) per run\n{:>8}", "clients");
    for (Strategy s : strategies) fmt::print(" {:>13}", name(s));
    fmt::print("\n");
    for (int n : clients) {
      fmt::print("{:>8}", n);
      for (Strategy s : strategies) fmt::print(" {:>13.1f}", mean[{n, s}].first);
      fmt::print("\n");
    }
    fmt::print("completion time (ms)\n{:>8}", "clients");
    for (Strategy s : strategies) fmt::print(" {:>13}", name(s));
    fmt::print("\n");
    for (int n : clients) {
      fmt::print("{:>8}", n);
      for (Strategy s : strategies) fmt::print(" {:>13.1f}", mean[{n, s}].second);
      fmt::print("\n");
    }
  }
  if (!c.svg_dir.empty()) {
    LineChart calls{"OCC contention: total calls (writes)", "clients", "calls, mean per run", {}, false};
    LineChart time{"OCC contention: completion time (log scale)", "clients", "ms until the last write succeeds", {},
                   true};
    for (Strategy s : strategies) {
      Series a{name(s), {}}, b{name(s), {}};
      for (int n : clients) {
        a.points.emplace_back(n, mean[{n, s}].first);
        b.points.emplace_back(n, mean[{n, s}].second);
      }
      calls.series.push_back(a);
      time.series.push_back(b);
    }
    // "none" dominates the calls chart; a second one without it shows the backoffs apart.
    LineChart calls_backoff = calls;
    calls_backoff.title = "OCC contention: total calls, backoff strategies only";
    calls_backoff.series.erase(calls_backoff.series.begin());
    if (!write_file(svg_path(c, "brooker-calls.svg"), render(calls)) ||
        !write_file(svg_path(c, "brooker-calls-backoff.svg"), render(calls_backoff)) ||
        !write_file(svg_path(c, "brooker-time.svg"), render(time)))
      return 1;
  }
  return 0;
}

// ---- ratelimit ---------------------------------------------------------------

struct RateRun {
  Strategy s;
  Budget b;
  std::string label;
};

int ratelimit(const Common& c, RateParams p, int trials, const std::string& suffix) {
  const std::vector<RateRun> runs = {
      {Strategy::none, Budget::none, "none"},
      {Strategy::exponential, Budget::none, "exponential"},
      {Strategy::equal, Budget::none, "equal"},
      {Strategy::full, Budget::none, "full"},
      {Strategy::decorrelated, Budget::none, "decorrelated"},
      {Strategy::grpc, Budget::none, "grpc"},
      {Strategy::full, Budget::aws, "full+aws-quota"},
      {Strategy::full, Budget::grpc, "full+grpc-throttle"},
  };
  std::vector<RateResult> mean(runs.size());
  std::vector<RateResult> first(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RateResult& m = mean[i];
    for (int t = 0; t < trials; ++t) {
      const RateResult r = run_ratelimit(runs[i].s, runs[i].b, p, mix(c.seed, 7, static_cast<std::uint64_t>(t)));
      if (t == 0) first[i] = r;
      m.completion_ms += r.completion_ms / trials;
      m.mean_utilisation += r.mean_utilisation / trials;
      m.calls += r.calls;
      m.rejected += r.rejected;
      m.failed_jobs += r.failed_jobs;
      m.served += r.served;
      m.finished = m.finished && r.finished;
    }
    m.served /= static_cast<std::uint64_t>(trials);
    m.calls /= static_cast<std::uint64_t>(trials);
    m.rejected /= static_cast<std::uint64_t>(trials);
    m.failed_jobs /= static_cast<std::uint64_t>(trials);
  }
  if (c.csv) {
    fmt::print("strategy,completion_ms,mean_utilisation,calls,rejected,failed_jobs,served,finished\n");
    for (std::size_t i = 0; i < runs.size(); ++i)
      fmt::print("{},{:.1f},{:.4f},{},{},{},{},{}\n", runs[i].label, mean[i].completion_ms, mean[i].mean_utilisation,
                 mean[i].calls, mean[i].rejected, mean[i].failed_jobs, mean[i].served, mean[i].finished ? 1 : 0);
  } else {
    fmt::print(
        "ratelimit: {} workers x {} jobs against a token bucket of {} req/s (burst {}); 429 over it; "
        "a 429 costs {} token; messages |N({} ms, {} ms)|; base {} ms, cap {} ms; mean of {} trials, stopped at {} s\n",
        p.workers, p.jobs_per_worker, p.rate_per_s, p.burst, p.reject_cost, p.net_mean_ms, p.net_sd_ms, p.base_ms,
        p.cap_ms, trials, p.time_limit_ms / 1000);
    fmt::print("ideal completion: {:.1f} s\n", p.workers * p.jobs_per_worker / p.rate_per_s);
    fmt::print("{:<20} {:>14} {:>12} {:>10} {:>10} {:>10} {:>12}\n", "strategy", "completion_s", "mean_util", "calls",
               "rejected", "served", "failed_jobs");
    for (std::size_t i = 0; i < runs.size(); ++i)
      fmt::print("{:<20} {:>14} {:>11.1f}% {:>10} {:>10} {:>10} {:>12}\n", runs[i].label,
                 mean[i].finished ? fmt::format("{:.2f}", mean[i].completion_ms / 1000)
                                  : fmt::format("DNF >{:.0f}", p.time_limit_ms / 1000),
                 100 * mean[i].mean_utilisation, mean[i].calls, mean[i].rejected, mean[i].served, mean[i].failed_jobs);
  }
  if (!c.svg_dir.empty()) {
    const std::string cost = p.reject_cost > 0 ? fmt::format(", a 429 costs {}", p.reject_cost) : "";
    LineChart util{fmt::format("API use: {} workers, {} req/s limit{}", p.workers, p.rate_per_s, cost),
                   fmt::format("time (s), {} ms bins", p.bin_ms), "utilisation (%)", {}, false};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].b != Budget::none || runs[i].s == Strategy::none || runs[i].s == Strategy::equal) continue;
      Series s{runs[i].label, {}};
      for (std::size_t k = 0; k < first[i].utilisation.size(); ++k)
        s.points.emplace_back((static_cast<double>(k) + 0.5) * p.bin_ms / 1000, 100 * first[i].utilisation[k]);
      util.series.push_back(s);
    }
    LineChart zoom = util;
    zoom.title = "The same, first 30 s" + cost;
    for (auto& ser : zoom.series)
      std::erase_if(ser.points, [](const std::pair<double, double>& pt) { return pt.first > 30; });
    if (!write_file(svg_path(c, "ratelimit-utilisation-30s" + suffix + ".svg"), render(zoom))) return 1;
    BarChart done{"Time to finish the batch", "completion (s), mean", {"completion"}, {}};
    for (std::size_t i = 0; i < runs.size(); ++i) done.groups.push_back({runs[i].label, {mean[i].completion_ms / 1000}});
    if (!write_file(svg_path(c, "ratelimit-utilisation" + suffix + ".svg"), render(util)) ||
        !write_file(svg_path(c, "ratelimit-completion" + suffix + ".svg"), render(done)))
      return 1;
  }
  return 0;
}

// ---- amplification -----------------------------------------------------------

int amplification(const Common& c, int max_layers, int attempts, int requests) {
  const std::vector<Budget> budgets = {Budget::none, Budget::aws, Budget::grpc};
  const std::vector<double> rates = {1.0, 0.1};
  struct Row {
    int layers;
    Budget b;
    double rate;
    AmpResult r;
  };
  std::vector<Row> rows;
  for (double rate : rates)
    for (int layers = 1; layers <= max_layers; ++layers)
      for (Budget b : budgets) {
        AmpParams p{layers, attempts, requests, rate};
        rows.push_back({layers, b, rate, run_amplification(b, p, mix(c.seed, static_cast<std::uint64_t>(layers)))});
      }
  if (c.csv) {
    fmt::print("layers,attempts,budget,failure_rate,requests,bottom_calls,per_request,top_failures\n");
    for (const auto& row : rows)
      fmt::print("{},{},{},{},{},{},{:.3f},{}\n", row.layers, attempts, name(row.b), row.rate, requests,
                 row.r.bottom_calls, static_cast<double>(row.r.bottom_calls) / requests, row.r.top_failures);
  } else {
    fmt::print("amplification: {} top-level requests, {} attempts per call at every layer; one budget per layer\n",
               requests, attempts);
    fmt::print("{:>6} {:>14} {:>13} {:>13} {:>16} {:>13}\n", "layers", "budget", "failure_rate", "bottom_calls",
               "calls/request", "top_failures");
    for (const auto& row : rows)
      fmt::print("{:>6} {:>14} {:>13.1f} {:>13} {:>16.3f} {:>13}\n", row.layers, name(row.b), row.rate,
                 row.r.bottom_calls, static_cast<double>(row.r.bottom_calls) / requests, row.r.top_failures);
  }
  if (!c.svg_dir.empty()) {
    BarChart chart{fmt::format("Calls reaching a failed service per request ({} attempts per layer)", attempts),
                   "bottom calls per top-level request", {}, {}};
    for (Budget b : budgets) chart.series_names.push_back(std::string("budget: ") + name(b));
    for (int layers = 1; layers <= max_layers; ++layers) {
      std::vector<double> v;
      for (Budget b : budgets)
        for (const auto& row : rows)
          if (row.layers == layers && row.b == b && row.rate == 1.0)
            v.push_back(static_cast<double>(row.r.bottom_calls) / requests);
      chart.groups.push_back({fmt::format("{} layer{}", layers, layers > 1 ? "s" : ""), v});
    }
    if (!write_file(svg_path(c, "amplification.svg"), render(chart))) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"backoff-sim: retry backoff experiments on the rto library (see bench/README.md)"};
  app.require_subcommand(1);
  Common common;

  auto* b = app.add_subcommand("brooker", "Brooker's 2015 OCC experiment: calls and completion time vs clients");
  std::vector<int> clients = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  int b_trials = 100;
  b->add_option("--clients", clients, "client counts")->delimiter(',')->capture_default_str();
  b->add_option("--trials", b_trials, "trials per point")->check(CLI::PositiveNumber)->capture_default_str();
  add_common(b, common);

  auto* r = app.add_subcommand("ratelimit", "workers against a rate-limited API answering 429");
  RateParams rp;
  int r_trials = 5;
  r->add_option("--workers", rp.workers)->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--jobs", rp.jobs_per_worker, "calls per worker")->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--rate", rp.rate_per_s, "requests per second the API serves")->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--burst", rp.burst, "token bucket size")->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--base-ms", rp.base_ms)->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--cap-ms", rp.cap_ms)->check(CLI::PositiveNumber)->capture_default_str();
  r->add_option("--reject-cost", rp.reject_cost, "tokens a 429 takes from the bucket (the cost of rejecting)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  double time_limit_s = rp.time_limit_ms / 1000;
  r->add_option("--time-limit-s", time_limit_s, "stop the run at this virtual time (s)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  r->add_option("--trials", r_trials)->check(CLI::PositiveNumber)->capture_default_str();
  std::string r_svg_suffix;
  r->add_option("--svg-suffix", r_svg_suffix, "appended to the plot file names (e.g. -cost)");
  add_common(r, common);

  auto* a = app.add_subcommand("amplification", "retries at every layer multiply at the bottom; budgets bound it");
  int max_layers = 4, attempts = 3, requests = 1000;
  a->add_option("--max-layers", max_layers)->check(CLI::Range(1, 8))->capture_default_str();
  a->add_option("--attempts", attempts)->check(CLI::Range(1, 10))->capture_default_str();
  a->add_option("--requests", requests)->check(CLI::PositiveNumber)->capture_default_str();
  add_common(a, common);

  CLI11_PARSE(app, argc, argv);
  if (b->parsed()) return brooker(common, clients, b_trials);
  if (r->parsed()) {
    rp.time_limit_ms = time_limit_s * 1000;
    return ratelimit(common, rp, r_trials, r_svg_suffix);
  }
  return amplification(common, max_layers, attempts, requests);
}
