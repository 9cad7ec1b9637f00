// The C API (rto/rto.h): RFC 6298's numbers through the opaque handles, integer
// microseconds, and every error as a return code.

#include "rto/rto.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace {

// Owns the three handles of one connection for a test.
struct Handles {
  rto_estimator* est = nullptr;
  rto_sampler* sampler = nullptr;
  rto_timer* timer = nullptr;
  explicit Handles(const rto_config* cfg = nullptr) {
    REQUIRE(rto_estimator_new(cfg, &est) == RTO_OK);
    REQUIRE(rto_sampler_new(1000, 0, &sampler) == RTO_OK);
    REQUIRE(rto_timer_new(&timer) == RTO_OK);
  }
  ~Handles() {
    rto_timer_free(timer);
    rto_sampler_free(sampler);
    rto_estimator_free(est);
  }
  Handles(const Handles&) = delete;
  Handles& operator=(const Handles&) = delete;
  std::int64_t rto() const {
    std::int64_t v = -1;
    REQUIRE(rto_estimator_rto_us(est, &v) == RTO_OK);
    return v;
  }
};

}  // namespace

TEST_CASE("C API 2.1 2.2 2.4: first sample 100 ms gives RTO 100 + max(1, 4*50) = 300 ms, floored to 1 s") {
  Handles h;
  CHECK(h.rto() == 1'000'000);  // 2.1: 1 s before any sample
  std::int64_t v = 0;
  CHECK(rto_estimator_srtt_us(h.est, &v) == RTO_ERR_NO_SAMPLE);
  CHECK(rto_estimator_rttvar_us(h.est, &v) == RTO_ERR_NO_SAMPLE);
  CHECK(rto_estimator_on_rtt_sample(h.est, 100'000) == RTO_OK);
  CHECK(rto_estimator_srtt_us(h.est, &v) == RTO_OK);
  CHECK(v == 100'000);  // SRTT = R
  CHECK(rto_estimator_rttvar_us(h.est, &v) == RTO_OK);
  CHECK(v == 50'000);  // RTTVAR = R/2
  CHECK(h.rto() == 1'000'000);  // 300 ms < 1 s floor
  CHECK(rto_estimator_base_rto_us(h.est, &v) == RTO_OK);
  CHECK(v == 1'000'000);
}

TEST_CASE("C API 2.3: a second sample of 2 s gives SRTT 337.5 ms, RTTVAR 512.5 ms, RTO 2.3875 s") {
  Handles h;
  REQUIRE(rto_estimator_on_rtt_sample(h.est, 100'000) == RTO_OK);
  REQUIRE(rto_estimator_on_rtt_sample(h.est, 2'000'000) == RTO_OK);
  // RTTVAR = 3/4 * 50 + 1/4 * |100 - 2000| = 37.5 + 475 = 512.5 ms
  // SRTT = 7/8 * 100 + 1/8 * 2000 = 87.5 + 250 = 337.5 ms
  // RTO = 337.5 + 4 * 512.5 = 2387.5 ms
  std::int64_t v = 0;
  CHECK(rto_estimator_rttvar_us(h.est, &v) == RTO_OK);
  CHECK(v == 512'500);
  CHECK(rto_estimator_srtt_us(h.est, &v) == RTO_OK);
  CHECK(v == 337'500);
  CHECK(h.rto() == 2'387'500);
}

TEST_CASE("C API refuses samples below 0 and above 1 h (3600000000 us) with RTO_ERR_SAMPLE_REFUSED") {
  Handles h;
  CHECK(rto_estimator_on_rtt_sample(h.est, -1) == RTO_ERR_SAMPLE_REFUSED);
  CHECK(rto_estimator_on_rtt_sample(h.est, 3'600'000'001) == RTO_ERR_SAMPLE_REFUSED);
  std::int64_t v = 0;
  CHECK(rto_estimator_srtt_us(h.est, &v) == RTO_ERR_NO_SAMPLE);  // state unchanged
  CHECK(rto_estimator_on_rtt_sample(h.est, 3'600'000'000) == RTO_OK);  // exactly 1 h is accepted
  CHECK(rto_estimator_on_rtt_sample(h.est, 0) == RTO_OK);              // and so is 0
}

TEST_CASE("C API 5.1-5.6: timer deadline, expiry, backoff to 2 s, restart at 1.2 + 2 = 3.2 s") {
  Handles h;
  std::int64_t deadline = 0;
  bool b = true;
  CHECK(rto_timer_running(h.timer, &b) == RTO_OK);
  CHECK_FALSE(b);
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == RTO_TIMER_NEVER);
  CHECK(rto_timer_on_data_sent(h.timer, 200'000, h.rto()) == RTO_OK);  // 5.1
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == 1'200'000);
  CHECK(rto_timer_on_data_sent(h.timer, 500'000, h.rto()) == RTO_OK);  // running: unchanged
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == 1'200'000);
  CHECK(rto_timer_expired(h.timer, 1'199'999, &b) == RTO_OK);
  CHECK_FALSE(b);  // never early
  CHECK(rto_timer_expired(h.timer, 1'200'000, &b) == RTO_OK);
  CHECK(b);
  CHECK(rto_timer_on_expiry(h.timer, 1'200'000, h.est) == RTO_OK);
  CHECK(h.rto() == 2'000'000);  // 5.5
  unsigned backoff = 0;
  CHECK(rto_estimator_backoff(h.est, &backoff) == RTO_OK);
  CHECK(backoff == 1u);
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == 3'200'000);  // 5.6
  CHECK(rto_timer_on_new_data_acked(h.timer, 1'500'000, h.rto()) == RTO_OK);  // 5.3
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == 3'500'000);
  CHECK(rto_timer_restart(h.timer, 1'600'000, 250'000) == RTO_OK);
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == 1'850'000);
  CHECK(rto_timer_on_all_acked(h.timer) == RTO_OK);  // 5.2
  CHECK(rto_timer_running(h.timer, &b) == RTO_OK);
  CHECK_FALSE(b);
  CHECK(rto_timer_on_data_sent(h.timer, 0, 1) == RTO_OK);
  CHECK(rto_timer_stop(h.timer) == RTO_OK);
  CHECK(rto_timer_deadline_us(h.timer, &deadline) == RTO_OK);
  CHECK(deadline == RTO_TIMER_NEVER);
}

TEST_CASE("C API 5.5 5.7: SYN expiries 1 s -> 2 s, then data starts with 3 s") {
  Handles h;
  CHECK(rto_timer_on_data_sent(h.timer, 0, h.rto()) == RTO_OK);
  CHECK(rto_timer_on_syn_expiry(h.timer, 1'000'000, h.est) == RTO_OK);
  CHECK(h.rto() == 2'000'000);  // RFC profile: no linear SYN timeouts
  CHECK(rto_estimator_on_handshake_complete(h.est, true) == RTO_OK);
  CHECK(h.rto() == 3'000'000);  // base 1 s < 3 s: 5.7
  CHECK(rto_estimator_on_syn_timeout(h.est) == RTO_OK);
  CHECK(h.rto() == 6'000'000);
  CHECK(rto_estimator_on_timeout(h.est) == RTO_OK);
  CHECK(h.rto() == 12'000'000);
}

TEST_CASE("C API section 3 (Karn): a retransmitted segment gives no sample; RFC 7323 timestamps do") {
  Handles h;
  bool has = true, timing = false;
  std::int64_t r = -1;
  CHECK(rto_sampler_on_send(h.sampler, 1000, 100, 0) == RTO_OK);
  CHECK(rto_sampler_timing(h.sampler, &timing) == RTO_OK);
  CHECK(timing);
  CHECK(rto_sampler_on_timeout(h.sampler) == RTO_OK);
  CHECK(rto_sampler_on_send(h.sampler, 1000, 100, 1'000'000) == RTO_OK);  // the retransmission
  CHECK(rto_sampler_on_ack(h.sampler, 1100, 1'100'000, &has, &r) == RTO_OK);
  CHECK_FALSE(has);
  CHECK(r == -1);  // untouched without a sample
  CHECK(rto_sampler_on_send(h.sampler, 1100, 100, 2'000'000) == RTO_OK);
  CHECK(rto_sampler_on_ack(h.sampler, 1200, 2'080'000, &has, &r) == RTO_OK);
  CHECK(has);
  CHECK(r == 80'000);
  // Timestamps, 1 ms tick: TSval at 2.5 s = 2500; TSecr 2400 echoed at 2.5 s -> R = 100 ticks = 100 ms.
  std::uint32_t tsval = 0;
  CHECK(rto_sampler_tsval(h.sampler, 2'500'999, &tsval) == RTO_OK);
  CHECK(tsval == 2500u);
  CHECK(rto_sampler_on_send(h.sampler, 1200, 100, 2'400'000) == RTO_OK);
  CHECK(rto_sampler_on_ack_ts(h.sampler, 1300, 2400, 2'500'000, &has, &r) == RTO_OK);
  CHECK(has);
  CHECK(r == 100'000);
}

TEST_CASE("C API Linux profile: first sample 100 ms gives RTO 100 + max(2*100, 200) = 300 ms, tcpi_rttvar 50 ms") {
  rto_config cfg;
  REQUIRE(rto_config_linux(&cfg) == RTO_OK);
  CHECK(cfg.variant == RTO_VARIANT_LINUX);
  CHECK(cfg.min_rto_us == 200'000);
  CHECK(cfg.max_rto_us == 120'000'000);
  CHECK(cfg.tick_us == 4'000);
  CHECK(cfg.syn_linear_timeouts == 4u);
  Handles h(&cfg);
  REQUIRE(rto_estimator_on_rtt_sample_window(h.est, 100'000, 0, 0) == RTO_OK);
  CHECK(h.rto() == 300'000);
  std::int64_t v = 0;
  CHECK(rto_estimator_rttvar_us(h.est, &v) == RTO_OK);
  CHECK(v == 50'000);  // mdev / 4 = 200 / 4
}

TEST_CASE("C API config: RFC 6298 defaults; a cap below 60 s (2.5) is refused and the message names the field") {
  rto_config cfg;
  REQUIRE(rto_config_rfc6298(&cfg) == RTO_OK);
  CHECK(cfg.variant == RTO_VARIANT_RFC6298);
  CHECK(cfg.initial_rto_us == 1'000'000);
  CHECK(cfg.min_rto_us == 1'000'000);
  CHECK(cfg.max_rto_us == 60'000'000);
  CHECK(cfg.granularity_us == 1'000);
  CHECK(cfg.syn_fallback_rto_us == 3'000'000);
  char msg[200];
  CHECK(rto_config_validate(&cfg, msg, sizeof msg) == RTO_OK);
  CHECK(msg[0] == '\0');
  cfg.max_rto_us = 59'999'999;  // 1 us below the 2.5 minimum
  CHECK(rto_config_validate(&cfg, msg, sizeof msg) == RTO_ERR_INVALID_CONFIG);
  CHECK(std::string(msg).find("rto::Config.max_rto: 59999999 us") == 0);
  CHECK(rto_config_validate(&cfg, msg, 5) == RTO_ERR_INVALID_CONFIG);
  CHECK(std::string(msg) == "rto:");  // truncated to 5 - 1 bytes
  CHECK(rto_config_validate(&cfg, nullptr, 0) == RTO_ERR_INVALID_CONFIG);
  rto_estimator* est = nullptr;
  CHECK(rto_estimator_new(&cfg, &est) == RTO_ERR_INVALID_CONFIG);
  CHECK(est == nullptr);
  cfg.max_rto_us = 60'000'000;
  cfg.variant = static_cast<rto_variant>(7);
  CHECK(rto_config_validate(&cfg, msg, sizeof msg) == RTO_ERR_INVALID_CONFIG);
  CHECK(std::string(msg) == "rto::Config.variant: unknown value");
}

TEST_CASE("C API errors: NULL handles and out-parameters, negative durations, a zero TSval tick") {
  Handles h;
  std::int64_t v = 0;
  bool b = false;
  CHECK(rto_estimator_new(nullptr, nullptr) == RTO_ERR_NULL);
  CHECK(rto_estimator_rto_us(nullptr, &v) == RTO_ERR_NULL);
  CHECK(rto_estimator_rto_us(h.est, nullptr) == RTO_ERR_NULL);
  CHECK(rto_estimator_on_rtt_sample(nullptr, 1) == RTO_ERR_NULL);
  CHECK(rto_sampler_on_ack(h.sampler, 1, 0, nullptr, &v) == RTO_ERR_NULL);
  CHECK(rto_timer_expired(nullptr, 0, &b) == RTO_ERR_NULL);
  CHECK(rto_timer_on_expiry(h.timer, 0, nullptr) == RTO_ERR_NULL);
  CHECK(rto_config_validate(nullptr, nullptr, 0) == RTO_ERR_NULL);
  CHECK(rto_timer_on_data_sent(h.timer, 0, -1) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(rto_timer_on_new_data_acked(h.timer, 0, -1) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(rto_timer_restart(h.timer, 0, -1) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(rto_timer_running(h.timer, &b) == RTO_OK);
  CHECK_FALSE(b);  // the refused calls did not start it
  rto_sampler* s = nullptr;
  CHECK(rto_sampler_new(0, 0, &s) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(rto_sampler_new(-1000, 0, &s) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(s == nullptr);
  CHECK(rto_sampler_new(1, 0, &s) == RTO_OK);  // 1 us: the smallest tick
  rto_sampler_free(s);
  rto_estimator_free(nullptr);
  rto_sampler_free(nullptr);
  rto_timer_free(nullptr);
}

TEST_CASE("C API status strings: one per status, and a fallback for unknown values") {
  const rto_status all[] = {RTO_OK, RTO_ERR_NULL, RTO_ERR_INVALID_ARGUMENT, RTO_ERR_INVALID_CONFIG,
                            RTO_ERR_SAMPLE_REFUSED, RTO_ERR_NO_SAMPLE, RTO_ERR_NO_MEMORY, RTO_ERR_INTERNAL};
  for (rto_status s : all) CHECK(std::strcmp(rto_status_string(s), "unknown status") != 0);
  CHECK(std::string(rto_status_string(RTO_OK)) == "success");
  CHECK(std::string(rto_status_string(static_cast<rto_status>(42))) == "unknown status");
}

TEST_CASE("C API caller-allocated states: an estimator, sampler and timer inside the caller's own struct, no allocation") {
  struct Connection {  // what a C stack keeps per connection
    std::uint32_t id;
    rto_estimator est;
    rto_sampler sampler;
    rto_timer timer;
  } c{};
  CHECK(sizeof(c.est) == RTO_ESTIMATOR_BYTES);
  CHECK(sizeof(c.sampler) == RTO_SAMPLER_BYTES);
  CHECK(sizeof(c.timer) == RTO_TIMER_BYTES);
  rto_config linux_cfg;
  REQUIRE(rto_config_linux(&linux_cfg) == RTO_OK);
  REQUIRE(rto_estimator_init(&c.est, &linux_cfg) == RTO_OK);
  REQUIRE(rto_sampler_init(&c.sampler, 1000, 0) == RTO_OK);
  REQUIRE(rto_timer_init(&c.timer) == RTO_OK);
  // Linux, R = 100 ms: 100 + max(2 * 100, 200) = 300 ms, as the heap estimator of the test above.
  bool has = false;
  std::int64_t r = 0, v = 0;
  CHECK(rto_sampler_on_send(&c.sampler, 1, 100, 0) == RTO_OK);
  CHECK(rto_sampler_on_ack(&c.sampler, 101, 100'000, &has, &r) == RTO_OK);
  REQUIRE(has);
  CHECK(rto_estimator_on_rtt_sample_window(&c.est, r, 101, 101) == RTO_OK);
  CHECK(rto_estimator_rto_us(&c.est, &v) == RTO_OK);
  CHECK(v == 300'000);
  CHECK(rto_timer_on_data_sent(&c.timer, 200'000, v) == RTO_OK);
  CHECK(rto_timer_on_expiry(&c.timer, 500'000, &c.est) == RTO_OK);  // 5.5: 600 ms; 5.6: 0.5 + 0.6 s
  CHECK(rto_timer_deadline_us(&c.timer, &v) == RTO_OK);
  CHECK(v == 1'100'000);
  // A refused config leaves an error and no estimator; NULLs are refused.
  rto_config bad = linux_cfg;
  bad.min_rto_us = 0;
  CHECK(rto_estimator_init(&c.est, &bad) == RTO_ERR_INVALID_CONFIG);
  CHECK(rto_estimator_init(nullptr, nullptr) == RTO_ERR_NULL);
  CHECK(rto_sampler_init(&c.sampler, 0, 0) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(rto_sampler_init(nullptr, 1000, 0) == RTO_ERR_NULL);
  CHECK(rto_timer_init(nullptr) == RTO_ERR_NULL);
  // The memory is reusable: a fresh RFC 6298 estimator in the same place.
  REQUIRE(rto_estimator_init(&c.est, nullptr) == RTO_OK);
  CHECK(rto_estimator_rto_us(&c.est, &v) == RTO_OK);
  CHECK(v == 1'000'000);  // 2.1
}

namespace {
struct Fired {
  int count = 0;
  rto_wheel_entry* last = nullptr;
};
void on_fire(rto_wheel_entry* e, void* ctx) {
  auto* f = static_cast<Fired*>(ctx);
  ++f->count;
  f->last = e;
}
}  // namespace

TEST_CASE("C API wheel: entries fire at their deadline rounded up to the tick, found by next_deadline") {
  rto_wheel* w = nullptr;
  REQUIRE(rto_wheel_new(0, 1000, &w) == RTO_OK);  // 1 ms tick
  rto_wheel_entry a, b;
  REQUIRE(rto_wheel_entry_init(&a) == RTO_OK);
  REQUIRE(rto_wheel_entry_init(&b) == RTO_OK);
  std::int64_t next = 0;
  CHECK(rto_wheel_next_deadline_us(w, &next) == RTO_OK);
  CHECK(next == RTO_TIMER_NEVER);
  CHECK(rto_wheel_arm(w, &a, 1'200'000) == RTO_OK);
  CHECK(rto_wheel_arm(w, &b, 40'500) == RTO_OK);  // tick 41: fires at 41 ms
  std::size_t n = 0;
  CHECK(rto_wheel_size(w, &n) == RTO_OK);
  CHECK(n == 2u);
  CHECK(rto_wheel_next_deadline_us(w, &next) == RTO_OK);
  CHECK(next == 41'000);
  Fired f;
  std::size_t fired = 99;
  CHECK(rto_wheel_advance(w, 40'999, on_fire, &f, &fired) == RTO_OK);
  CHECK(fired == 0u);  // never early
  CHECK(rto_wheel_advance(w, next, on_fire, &f, &fired) == RTO_OK);
  CHECK(fired == 1u);
  CHECK(f.last == &b);
  bool armed = true;
  CHECK(rto_wheel_entry_armed(&b, &armed) == RTO_OK);
  CHECK_FALSE(armed);
  std::int64_t d = 0;
  CHECK(rto_wheel_entry_deadline_us(&a, &d) == RTO_OK);
  CHECK(d == 1'200'000);
  CHECK(rto_wheel_entry_deadline_us(&b, &d) == RTO_OK);
  CHECK(d == RTO_TIMER_NEVER);
  CHECK(rto_wheel_cancel(w, &a) == RTO_OK);
  CHECK(rto_wheel_next_deadline_us(w, &next) == RTO_OK);
  CHECK(next == RTO_TIMER_NEVER);
  // Errors, then freeing the wheel disarms an entry still armed.
  CHECK(rto_wheel_init(nullptr, 0, 1000) == RTO_ERR_NULL);
  rto_wheel* bad = nullptr;
  CHECK(rto_wheel_new(0, 0, &bad) == RTO_ERR_INVALID_ARGUMENT);
  CHECK(bad == nullptr);
  CHECK(rto_wheel_advance(w, 0, nullptr, nullptr, nullptr) == RTO_ERR_NULL);
  CHECK(rto_wheel_arm(w, &a, 5'000'000) == RTO_OK);
  rto_wheel_free(w);
  CHECK(rto_wheel_entry_armed(&a, &armed) == RTO_OK);
  CHECK_FALSE(armed);
  rto_wheel_free(nullptr);
  rto_wheel_destroy(nullptr);
}

TEST_CASE("C API version: the library's rto_version() is the header's RTO_VERSION, MAJOR.MINOR.PATCH") {
  CHECK(rto_version() == RTO_VERSION);
  CHECK(RTO_VERSION == RTO_VERSION_MAJOR * 10000 + RTO_VERSION_MINOR * 100 + RTO_VERSION_PATCH);
  const std::string s = std::to_string(RTO_VERSION_MAJOR) + "." + std::to_string(RTO_VERSION_MINOR) + "." +
                        std::to_string(RTO_VERSION_PATCH);
  CHECK(s == RTO_VERSION_STRING);
}
