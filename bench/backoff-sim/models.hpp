#pragma once
// The three experiments of backoff-sim. Each model is stated exactly in
// bench/README.md; the parameters here are its defaults.

#include <cstdint>
#include <string>
#include <vector>

#include "strategies.hpp"

namespace backoff_sim {

// ---- 1. Brooker's OCC contention (AWS Architecture Blog, 2015) -------------

struct OccParams {
  double net_mean_ms = 10;    // each message delayed |N(mean, sd)|
  double net_sd_ms = 2;
  double base_ms = 5;         // backoff base
  double cap_ms = 2000;       // backoff cap
};

struct OccResult {
  std::uint64_t calls = 0;    // writes that reached the server
  double completion_ms = 0;   // when the last client learned its write succeeded
};

/// One trial: `clients` clients, each updating the row once.
OccResult run_occ(int clients, Strategy s, const OccParams& p, std::uint64_t seed);

// ---- 2. Workers against a rate-limited API -----------------------------------

struct RateParams {
  int workers = 3000;
  int jobs_per_worker = 4;    // sequential calls per worker; the backoff resets after each success
  double rate_per_s = 1000;   // token bucket: refill rate
  double burst = 100;         // token bucket: size (starts full)
  double net_mean_ms = 10;    // each message delayed |N(mean, sd)|
  double net_sd_ms = 2;
  double base_ms = 100;       // first wait's ceiling
  double cap_ms = 10'000;
  double bin_ms = 250;        // utilisation histogram bin
  double reject_cost = 0;     // tokens a 429 takes (while there are any): the API's cost of saying no
  double time_limit_ms = 600'000;  // the run stops here; a batch not done by then did not finish
};

struct RateResult {
  double completion_ms = 0;       // last worker done
  std::uint64_t calls = 0;        // requests that reached the API
  std::uint64_t rejected = 0;     // answered 429
  std::uint64_t failed_jobs = 0;  // jobs given up (only with a retry budget)
  double mean_utilisation = 0;    // served / (burst + rate * completion): the share of capacity used
  std::vector<double> utilisation;  // per bin: served / (rate * bin)
  bool finished = true;           // every job done (or given up) before time_limit_ms
  std::uint64_t served = 0;       // requests served (200)
};

RateResult run_ratelimit(Strategy s, Budget b, const RateParams& p, std::uint64_t seed);

// ---- 3. Retry amplification through layers -----------------------------------

struct AmpParams {
  int layers = 3;             // services in the call chain above the failing one
  int attempts = 3;           // attempts per call at every layer
  int requests = 1000;        // top-level requests
  double failure_rate = 1.0;  // probability the bottom service fails a call
};

struct AmpResult {
  std::uint64_t bottom_calls = 0;   // calls that reached the bottom service
  std::uint64_t top_failures = 0;   // top-level requests that failed
};

AmpResult run_amplification(Budget b, const AmpParams& p, std::uint64_t seed);

}  // namespace backoff_sim
