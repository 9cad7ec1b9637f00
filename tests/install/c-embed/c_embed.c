/* A C stack's use of the installed rto: each connection keeps its estimator,
 * sampler and timer inside its own struct (rto_*_init: nothing allocated),
 * with a wheel entry; one caller-allocated rto_wheel holds every
 * connection's deadline, and the event loop sleeps until
 * rto_wheel_next_deadline_us() (virtual time here) and then advances the
 * wheel. Checks RFC 6298's numbers and Linux's. Exit status 0: all passed. */
#include <rto/rto.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if !defined(RTO_VERSION) || RTO_VERSION < 200
#error "rto.h before 0.2 has no caller-allocated states"
#endif

enum { kMaxFires = 8 };

struct connection {
  int id;
  rto_estimator est; /* inside the connection: RTO_ESTIMATOR_BYTES, no heap */
  rto_sampler sampler;
  rto_timer timer;
  rto_wheel_entry entry;
  uint32_t snd_una, snd_max;
  int fires;
  int64_t fired_at[kMaxFires];
};

static rto_wheel wheel; /* caller-allocated too (static storage) */
static int failures;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

/* The connection an entry belongs to (the entry is a member of it). */
static struct connection* of_entry(rto_wheel_entry* e) {
  return (struct connection*)((char*)e - offsetof(struct connection, entry));
}

/* Puts the timer's deadline in the wheel, or takes it out when stopped. */
static void sync_timer(struct connection* c) {
  bool running = false;
  int64_t deadline = 0;
  rto_timer_running(&c->timer, &running);
  if (running) {
    rto_timer_deadline_us(&c->timer, &deadline);
    rto_wheel_arm(&wheel, &c->entry, deadline);
  } else {
    rto_wheel_cancel(&wheel, &c->entry);
  }
}

static void send_data(struct connection* c, uint32_t len, int64_t now) {
  int64_t rto = 0;
  rto_sampler_on_send(&c->sampler, c->snd_max, len, now);
  c->snd_max += len;
  rto_estimator_rto_us(&c->est, &rto);
  rto_timer_on_data_sent(&c->timer, now, rto); /* 5.1 */
  sync_timer(c);
}

static void ack(struct connection* c, uint32_t ackno, int64_t now) {
  bool has = false;
  int64_t r = 0, rto = 0;
  rto_sampler_on_ack(&c->sampler, ackno, now, &has, &r);
  if (has) rto_estimator_on_rtt_sample_window(&c->est, r, ackno, c->snd_max); /* 2.2 / 2.3 */
  c->snd_una = ackno;
  rto_estimator_rto_us(&c->est, &rto);
  if (c->snd_una == c->snd_max) rto_timer_on_all_acked(&c->timer); /* 5.2 */
  else rto_timer_on_new_data_acked(&c->timer, now, rto);           /* 5.3 */
  sync_timer(c);
}

static void on_fire(rto_wheel_entry* e, void* context) {
  struct connection* c = of_entry(e);
  const int64_t now = *(const int64_t*)context;
  rto_sampler_on_timeout(&c->sampler);          /* Karn */
  rto_timer_on_expiry(&c->timer, now, &c->est); /* 5.5 double, 5.6 restart; 5.4: resend snd_una here */
  if (c->fires < kMaxFires) c->fired_at[c->fires] = now;
  ++c->fires;
  sync_timer(c);
}

static int fired_at(const struct connection* c, const int64_t* want_ms, int n) {
  int i;
  if (c->fires != n) return 0;
  for (i = 0; i < n; ++i)
    if (c->fired_at[i] != want_ms[i] * 1000) return 0;
  return 1;
}

int main(void) {
  struct connection conns[3];
  rto_config linux_cfg;
  int i, wakes = 0, early = 0;
  unsigned backoff = 0;
  int64_t now = 0, next = 0, last = -1, v = 0;
  size_t n = 0;
  /* RFC 6298: 1.2 s, then 2, 4, 8 s later (5.5): 3.2, 7.2, 15.2 s. Linux:
   * RTO 40 + max(80, 200) = 240 ms from 0.1 s: 0.34 s, then 480, 960, 1920,
   * 3840, 7680 ms later: 0.82, 1.78, 3.70, 7.54, 15.22 s. */
  const int64_t rfc_ms[] = {1200, 3200, 7200, 15200};
  const int64_t linux_ms[] = {340, 820, 1780, 3700, 7540, 15220};

  check(rto_version() == RTO_VERSION, "the library is the version of the header (" RTO_VERSION_STRING ")");
  check(rto_wheel_init(&wheel, 0, 1000) == RTO_OK, "a wheel in static storage, 1 ms tick");
  check(rto_config_linux(&linux_cfg) == RTO_OK, "Linux's configuration");
  for (i = 0; i < 3; ++i) {
    struct connection* c = &conns[i];
    c->id = i;
    c->snd_una = c->snd_max = 1;
    c->fires = 0;
    check(rto_estimator_init(&c->est, i == 1 ? &linux_cfg : NULL) == RTO_OK &&
              rto_sampler_init(&c->sampler, 1000, 0) == RTO_OK && rto_timer_init(&c->timer) == RTO_OK &&
              rto_wheel_entry_init(&c->entry) == RTO_OK,
          "the estimator, sampler, timer and wheel entry live in the connection");
  }
  check(rto_wheel_next_deadline_us(&wheel, &next) == RTO_OK && next == RTO_TIMER_NEVER, "nothing armed: no deadline");

  /* Connection 0 (RFC 6298): R = 100 ms gives 100 + 4 * 50 = 300 ms, floored to 1 s (2.4). */
  send_data(&conns[0], 100, 0);
  ack(&conns[0], 101, 100000);
  rto_estimator_rto_us(&conns[0].est, &v);
  check(v == 1000000, "2.2, 2.4: RTO 1 s after a 100 ms sample");
  send_data(&conns[0], 100, 200000); /* lost, and every retransmission too */
  /* Connection 1 (Linux): R = 40 ms gives 240 ms. */
  send_data(&conns[1], 100, 0);
  ack(&conns[1], 101, 40000);
  rto_estimator_rto_us(&conns[1].est, &v);
  check(v == 240000, "Linux: RTO 40 + 200 = 240 ms after a 40 ms sample");
  send_data(&conns[1], 100, 100000); /* lost */
  /* Connection 2 sends nothing. */
  rto_wheel_size(&wheel, &n);
  check(n == 2, "two connections' deadlines in the wheel");

  /* The event loop: sleep until next_deadline, advance, until 16 s. */
  for (;;) {
    rto_wheel_next_deadline_us(&wheel, &next);
    if (next == RTO_TIMER_NEVER || next > 16000000) break;
    if (next <= last) {
      early = 1; /* a time already reached: the loop would spin */
      break;
    }
    last = next;
    now = next;
    ++wakes;
    rto_wheel_advance(&wheel, now, on_fire, &now, NULL);
  }
  check(!early, "next_deadline always moves past the time reached");
  check(fired_at(&conns[0], rfc_ms, 4), "RFC 6298 fires at 1.2, 3.2, 7.2, 15.2 s (5.5, 5.6), never early or late");
  check(fired_at(&conns[1], linux_ms, 6), "Linux fires at 0.34, 0.82, 1.78, 3.70, 7.54, 15.22 s");
  check(conns[2].fires == 0, "a connection that sent nothing never fires");
  printf("event loop: %d wakes for %d firings\n", wakes, conns[0].fires + conns[1].fires);
  check(wakes >= 10 && wakes <= 40, "few wakes: each a firing or a coarse slot moving down");
  rto_estimator_backoff(&conns[0].est, &backoff);
  check(backoff == 4, "5.5: four backoffs");

  rto_wheel_destroy(&wheel); /* disarms every entry */
  {
    bool armed = true;
    rto_wheel_entry_armed(&conns[0].entry, &armed);
    check(!armed, "destroying the wheel disarms the entries");
  }
  printf("%s\n", failures == 0 ? "c embed: all checks passed" : "c embed: FAILED");
  return failures == 0 ? 0 : 1;
}
