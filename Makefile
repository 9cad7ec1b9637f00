# rto: RFC 6298 retransmission timer, netstack, pcap-replay, bench, tests.
#
#   make            build libraries (build/lib) and programs (build/bin)
#   make test       install missing Debian packages, build, run every test
#   make test SAN=1 the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make run        replay the shipped capture through pcap-replay
#   make bench      build and run the microbenchmarks and the backoff experiments
#   make deps       install missing Debian packages (apt-get, non-interactive)
#   make fuzz       build the libFuzzer harnesses (tests/fuzz/, clang, ASan+UBSan)
#                   into build/fuzz/ and run each for FUZZ_SECONDS (default 300)
#                   over its corpus; crashes go to build/fuzz/crashes/
#   make fuzz-ci    each harness for FUZZ_CI_SECONDS (default 30), as CI runs it
#   make install    PREFIX=/usr/local (DESTDIR for staging): headers, librto.a,
#                   librto.so.0, rto.pc, librto_retry.a, librto_retry.so.0,
#                   rto-retry.pc, the CMake package, programs, man pages
#   make clean

PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
CXX      ?= g++
SAN      ?= 0
FUZZ     ?= 0

ifeq ($(FUZZ),1)
  # libFuzzer builds (tests/fuzz/README.md): clang, coverage for the fuzzer,
  # AddressSanitizer + UndefinedBehaviorSanitizer, every report fatal.
  CXX       := clang++
  BUILD     := build/fuzz
  OPT       := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
  SANLDFLAGS:= -fsanitize=address,undefined
else ifeq ($(SAN),1)
  BUILD     := build/san
  OPT       := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
  SANLDFLAGS:= -fsanitize=address,undefined
else
  BUILD     := build
  OPT       := -O2 -g
  SANLDFLAGS:=
endif

CXXFLAGS ?=
CXXFLAGS += -std=c++20 $(OPT) -Wall -Wextra -Wpedantic -Werror -MMD -MP
LDFLAGS  += $(SANLDFLAGS)

BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
OBJ := $(BUILD)/obj

PCAP_LIBS := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
# Compressed captures (pcap-replay/src/input/decompressor.cpp): gzip, zstd, xz, bzip2.
PCAP_LIBS += -lz -lzstd -llzma -lbz2
# Abseil's flat_hash_set: the flow table (pcap-replay/src/analysis/flow_table.hpp).
PCAP_LIBS += $(shell pkg-config --libs absl_flat_hash_set 2>/dev/null || echo -labsl_raw_hash_set -labsl_hash -labsl_city -labsl_low_level_hash)

INC_RTO      := -Irto/include
INC_WIRE     := -Inetstack/wire/include
INC_NETSTACK := -Inetstack/include
INC_REPLAY   := -Ipcap-replay/include

# Debian packages the build, the tests and `make run` need.
DEB_PACKAGES := g++ make pkg-config libpcap-dev doctest-dev libbenchmark-dev \
                nlohmann-json3-dev libcli11-dev libfmt-dev tshark tcpdump tcptrace \
                hyperfine iproute2 nftables gcc cmake librsvg2-bin zlib1g-dev libzstd-dev liblzma-dev libbz2-dev zstd xz-utils bzip2 chromium python3-pil libabsl-dev groff-base time procps \
                clang libclang-rt-dev python3-distributed

srcs = $(sort $(wildcard $(1)/*.cpp))
objs = $(patsubst %.cpp,$(OBJ)/%.o,$(call srcs,$(1)))

# Two libraries: the TCP timer (rto/src, librto) and the retry library for
# clients of remote services (rto/src/retry, librto_retry). Neither links the other.
RTO_OBJS      := $(call objs,rto/src)
RETRY_OBJS    := $(call objs,rto/src/retry)
WIRE_OBJS     := $(call objs,netstack/wire/src)
# netstack's library: tcp (the sender and receiver cores and their parts),
# sim (the deterministic simulator), real_peer (TUN, namespaces, the kernel
# as peer), trace (pcap files and progress lines of what was sent).
NETSTACK_PARTS := tcp sim real_peer trace
NETSTACK_OBJS := $(call objs,netstack/src) $(foreach p,$(NETSTACK_PARTS),$(call objs,netstack/src/$(p)))
NETSTACK_CLI  := $(call objs,netstack/cli)
# pcap-replay's library, one folder per concern: input (files, live, frames
# to segments), analysis (the timer models and their verdicts), pipeline (the
# file and live loops above the analysis), report (text,
# JSON, HTML, CSV), plot (SVG graphs).
REPLAY_PARTS  := input analysis analysis/engine pipeline report plot
REPLAY_OBJS   := $(call objs,pcap-replay/src) $(foreach p,$(REPLAY_PARTS),$(call objs,pcap-replay/src/$(p)))
REPLAY_CLI    := $(call objs,pcap-replay/cli)
TEST_MAIN     := $(OBJ)/tests/doctest_main.o
TEST_COMMON   := $(call objs,tests/common)
TEST_RTO      := $(call objs,tests/rto)
TEST_RETRY    := $(call objs,tests/retry)
TEST_REPLAY   := $(call objs,tests/pcap-replay)
TEST_NETSTACK := $(call objs,tests/netstack)
BENCHES       := $(patsubst bench/%.cpp,$(BIN)/bench-%,$(call srcs,bench))
BACKOFF_SIM   := $(call objs,bench/backoff-sim)
STORM_OBJS    := $(call objs,bench/reconnect-storm)

LIBRTO      := $(LIB)/librto.a
LIBRETRY    := $(LIB)/librto_retry.a
LIBWIRE     := $(LIB)/libwire.a
LIBNETSTACK := $(LIB)/libnetstack.a
LIBREPLAY   := $(LIB)/libpcapreplay.a

# librto.so: version (stated once, as RTO_VERSION_STRING in rto/rto.h, where
# C programs read it too; the soname is its major), objects, files.
RTO_VERSION    := $(shell sed -n 's/^\#define RTO_VERSION_STRING "\([0-9.]*\)".*/\1/p' rto/include/rto/rto.h)
ifeq ($(RTO_VERSION),)
  $(error rto/include/rto/rto.h: no RTO_VERSION_STRING "MAJOR.MINOR.PATCH")
endif
RTO_SOVERSION  := $(firstword $(subst ., ,$(RTO_VERSION)))
RTO_PIC_OBJS   := $(patsubst $(OBJ)/%.o,$(OBJ)/pic/%.o,$(RTO_OBJS))
RTO_SONAME     := librto.so.$(RTO_SOVERSION)
LIBRTO_SO_REAL := $(LIB)/librto.so.$(RTO_VERSION)
LIBRTO_SO      := $(LIB)/librto.so $(LIB)/$(RTO_SONAME) $(LIBRTO_SO_REAL)
# librto_retry.so: the same version and soname scheme.
RETRY_PIC_OBJS   := $(patsubst $(OBJ)/%.o,$(OBJ)/pic/%.o,$(RETRY_OBJS))
RETRY_SONAME     := librto_retry.so.$(RTO_SOVERSION)
LIBRETRY_SO_REAL := $(LIB)/librto_retry.so.$(RTO_VERSION)
LIBRETRY_SO      := $(LIB)/librto_retry.so $(LIB)/$(RETRY_SONAME) $(LIBRETRY_SO_REAL)

PROGRAMS := $(BIN)/pcap-replay $(BIN)/netstack
TESTS    := $(BIN)/test-rto $(BIN)/test-retry $(BIN)/test-pcap-replay $(BIN)/test-netstack

.PHONY: all test run bench deps install clean fuzz fuzz-build fuzz-ci
.DEFAULT_GOAL := all

all: $(LIBRTO) $(LIBRTO_SO) $(LIBRETRY) $(LIBRETRY_SO) $(LIBWIRE) $(LIBNETSTACK) $(LIBREPLAY) $(PROGRAMS) $(BIN)/backoff-sim $(BIN)/reconnect-storm

# ---- compile -----------------------------------------------------------
$(OBJ)/rto/%.o: rto/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) -c $< -o $@

$(OBJ)/netstack/wire/%.o: netstack/wire/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) $(INC_WIRE) -c $< -o $@

$(OBJ)/netstack/src/%.o: netstack/src/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) $(INC_WIRE) $(INC_NETSTACK) -c $< -o $@

$(OBJ)/netstack/cli/%.o: netstack/cli/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) $(INC_WIRE) $(INC_NETSTACK) -c $< -o $@

$(OBJ)/pcap-replay/%.o: pcap-replay/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) $(INC_WIRE) $(INC_REPLAY) -Ipcap-replay/src -c $< -o $@

$(OBJ)/tests/%.o: tests/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -Itests $(INC_RTO) $(INC_WIRE) $(INC_NETSTACK) $(INC_REPLAY) -c $< -o $@
# White-box tests of internal parts of the analysis (FirstSegment, infer_settings).
WHITEBOX_TESTS := first_segment_test inference_unknown_wait_test flow_hash_test stable_queue_test \
                  identity_rules_test scale_memory_test engine_probe_timer_test engine_chain_judge_test \
                  engine_causes_test inference_thresholds_test pictures_plot_test engine_backoff_fit_test \
                  engine_unheard_ack_test flow_table_last_entry_test
$(patsubst %,$(OBJ)/tests/pcap-replay/%.o,$(WHITEBOX_TESTS)): CXXFLAGS += -Ipcap-replay/src

$(OBJ)/bench/%.o: bench/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(INC_RTO) $(INC_WIRE) $(INC_NETSTACK) $(INC_REPLAY) -c $< -o $@

# ---- libraries ---------------------------------------------------------
$(LIBRTO): $(RTO_OBJS)
$(LIBRETRY): $(RETRY_OBJS)
$(LIBWIRE): $(WIRE_OBJS)
$(LIBNETSTACK): $(NETSTACK_OBJS)
$(LIBREPLAY): $(REPLAY_OBJS)
$(LIB)/%.a:
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# ---- librto.so -----------------------------------------------------------
# The shared library: the C API (rto/rto.h) and the public C++ API, marked
# RTO_API (rto/export.h); every other symbol is hidden. Its objects are built
# apart, with -fPIC and -fvisibility=hidden; rto/librto.map lists the exports.
# librto.so -> librto.so.$(RTO_SOVERSION) (the soname) -> librto.so.$(RTO_VERSION).
$(OBJ)/pic/rto/%.o: rto/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -fPIC -fvisibility=hidden -fvisibility-inlines-hidden $(INC_RTO) -c $< -o $@

$(LIBRTO_SO_REAL): $(RTO_PIC_OBJS) rto/librto.map
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -shared -Wl,-soname,$(RTO_SONAME) -Wl,--version-script=rto/librto.map \
	  -Wl,-z,defs $(RTO_PIC_OBJS) -o $@

$(LIB)/$(RTO_SONAME): $(LIBRTO_SO_REAL)
	ln -sf $(notdir $<) $@

$(LIB)/librto.so: $(LIB)/$(RTO_SONAME)
	ln -sf $(notdir $<) $@

# ---- librto_retry.so -----------------------------------------------------
# Built as librto.so is: -fPIC, -fvisibility=hidden, exports marked
# RTO_RETRY_API (rto/retry/export.h), rto/librto_retry.map; it needs no librto.
$(LIBRETRY_SO_REAL): $(RETRY_PIC_OBJS) rto/librto_retry.map
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -shared -Wl,-soname,$(RETRY_SONAME) -Wl,--version-script=rto/librto_retry.map \
	  -Wl,-z,defs $(RETRY_PIC_OBJS) -o $@

$(LIB)/$(RETRY_SONAME): $(LIBRETRY_SO_REAL)
	ln -sf $(notdir $<) $@

$(LIB)/librto_retry.so: $(LIB)/$(RETRY_SONAME)
	ln -sf $(notdir $<) $@

# ---- programs ----------------------------------------------------------
REPLAY_LINK   := $(LIBREPLAY) $(LIBWIRE) $(LIBRTO)
NETSTACK_LINK := $(LIBNETSTACK) $(LIBWIRE) $(LIBRTO)

$(BIN)/pcap-replay: $(REPLAY_CLI) $(REPLAY_LINK)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) -lfmt

$(BIN)/netstack: $(NETSTACK_CLI) $(NETSTACK_LINK)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) -lfmt

$(BIN)/test-rto: $(TEST_MAIN) $(TEST_COMMON) $(TEST_RTO) $(LIBRTO)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@

# The retry library's tests link librto_retry alone: it needs nothing of the timer.
$(BIN)/test-retry: $(TEST_MAIN) $(TEST_RETRY) $(LIBRETRY)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@

$(BIN)/test-pcap-replay: $(TEST_MAIN) $(TEST_COMMON) $(TEST_REPLAY) $(REPLAY_LINK)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) -lfmt

$(BIN)/test-netstack: $(TEST_MAIN) $(TEST_COMMON) $(TEST_NETSTACK) $(NETSTACK_LINK)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) -lfmt

# The backoff experiments (bench/backoff-sim/*.cpp, one program; not a Google Benchmark).
$(BIN)/backoff-sim: $(BACKOFF_SIM) $(LIBRETRY) $(LIBREPLAY)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ -lfmt

$(BIN)/bench-%: $(OBJ)/bench/%.o $(LIBREPLAY) $(NETSTACK_LINK)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $< $(LIBREPLAY) $(NETSTACK_LINK) -o $@ $(PCAP_LIBS) -lfmt -lbenchmark -lpthread

# Experiment 4 (bench/README.md, "Reconnect storm"): a program, not a Google
# Benchmark, so its sources live in their own folder, outside BENCHES.
$(BIN)/reconnect-storm: $(STORM_OBJS) $(LIBREPLAY) $(NETSTACK_LINK) $(LIBRETRY)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS) -lfmt

# The replay benchmark's capture generator and bare libpcap loop
# (bench/replay-scale/, programs; bench/replay-scale.sh runs them).
$(BIN)/replay-gen: $(OBJ)/bench/replay-scale/gen_capture.o
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@
$(BIN)/replay-bare-loop: $(OBJ)/bench/replay-scale/bare_loop.o
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) $^ -o $@ $(PCAP_LIBS)

# ---- fuzzing (make fuzz; tests/fuzz/README.md) -------------------------
# One libFuzzer program per harness, tests/fuzz/<name>.cpp -> $(BIN)/fuzz-<name>,
# with the helpers of tests/fuzz/common/. Built only with FUZZ=1 (clang).
FUZZ_HARNESSES := $(patsubst tests/fuzz/%.cpp,%,$(call srcs,tests/fuzz))
FUZZ_COMMON    := $(call objs,tests/fuzz/common)
FUZZ_BINS      := $(patsubst %,$(BIN)/fuzz-%,$(FUZZ_HARNESSES))
FUZZ_SECONDS   ?= 300

# The harness objects come from a pattern rule (intermediates): keep them, so
# that a second fuzz-build (make test, then make fuzz-ci) compiles nothing.
.SECONDARY: $(patsubst %,$(OBJ)/tests/fuzz/%.o,$(FUZZ_HARNESSES)) $(FUZZ_COMMON)

# The harnesses reach the parsers' internal headers (pcap_file.hpp, tunnel_decap.hpp).
$(OBJ)/tests/fuzz/%.o: CXXFLAGS += -Ipcap-replay/src

$(BIN)/fuzz-%: $(OBJ)/tests/fuzz/%.o $(FUZZ_COMMON) $(LIBREPLAY) $(LIBNETSTACK) $(LIBWIRE) $(LIBRTO) $(LIBRETRY)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -fsanitize=fuzzer $^ -o $@ $(PCAP_LIBS) -lfmt

fuzz-build:
	@$(MAKE) --no-print-directory -j$(JOBS) FUZZ=1 $(patsubst %,build/fuzz/bin/fuzz-%,$(FUZZ_HARNESSES))

fuzz: deps fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh

# CI (.ci/run, after make test): every harness for FUZZ_CI_SECONDS of
# mutation, no run limit; reuses the harnesses make test built.
FUZZ_CI_SECONDS ?= 30
fuzz-ci:
	@FUZZ_SMOKE_SECONDS=$(FUZZ_CI_SECONDS) FUZZ_SMOKE_RUNS=0 bash tests/e2e/fuzz_smoke.sh

# ---- top-level targets -------------------------------------------------
deps:
	@bash tests/deps.sh $(DEB_PACKAGES)

test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TESTS) $(BENCHES) $(BIN)/replay-gen SAN=$(SAN)
	@BUILD=$(BUILD) SAN=$(SAN) bash tests/run-all.sh

RUN_CAPTURE ?= tests/captures/linux-blackhole.pcap
# The text report goes to the terminal, the same report with pictures to RUN_HTML.
RUN_HTML ?= $(BUILD)/run/$(basename $(notdir $(RUN_CAPTURE))).html
run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(BIN)/pcap-replay SAN=$(SAN)
	@mkdir -p $(dir $(RUN_HTML))
	@$(BIN)/pcap-replay check --profile rfc6298 --html $(RUN_HTML) $(RUN_CAPTURE); \
	  status=$$?; echo "pcap-replay exit status: $$status (0: no MUST-level departure; 1: MUST-level departures found)"; \
	  [ $$status -le 1 ] && echo "HTML report (summary, tables, a picture per sender): $(RUN_HTML)"; \
	  [ $$status -le 1 ]

BENCH_CAPTURE ?= ../shared/traces/linux/blackhole-backoff.pcap
# Google Benchmark flags for every microbenchmark: the median of 3 runs.
BENCH_FLAGS   ?= --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
bench: deps
	@$(MAKE) --no-print-directory $(BENCHES) $(BIN)/pcap-replay $(BIN)/backoff-sim $(BIN)/reconnect-storm \
	  $(BIN)/replay-gen $(BIN)/replay-bare-loop SAN=0
	@# Each microbenchmark prints its table and keeps a JSON copy for goals.py.
	@mkdir -p $(BUILD)/bench
	@for b in $(BENCHES); do echo "== $$b"; \
	  $$b $(BENCH_FLAGS) --benchmark_out=$(BUILD)/bench/$${b##*/bench-}.json --benchmark_out_format=json || exit 1; done
	@# The backoff experiments (bench/README.md); the plots go to bench/results/.
	@mkdir -p bench/results
	@for e in brooker ratelimit amplification; do echo "== backoff-sim $$e"; \
	  $(BIN)/backoff-sim $$e --svg-dir bench/results || exit 1; done
	@echo "== backoff-sim ratelimit, a 429 costing 0.1 token"
	@$(BIN)/backoff-sim ratelimit --reject-cost 0.1 --time-limit-s 300 --trials 2 --svg-suffix -cost --svg-dir bench/results
	@echo "== reconnect-storm (experiment 4)"
	@$(BIN)/reconnect-storm --svg bench/results/reconnect-storm.svg
	@# Whole-process time of a full check beside tshark's retransmission
	@# analysis of the same capture (the independent tool, as a baseline).
	@if [ -r $(BENCH_CAPTURE) ]; then \
	  hyperfine --warmup 2 --runs 10 \
	    '$(BIN)/pcap-replay check --profile linux -j 1 $(BENCH_CAPTURE)' \
	    'tshark -r $(BENCH_CAPTURE) -Y tcp.analysis.retransmission'; \
	else echo "bench: $(BENCH_CAPTURE) not found, whole-process timing skipped"; fi
	@# Replay at scale: a generated multi-flow capture beside a bare
	@# libpcap loop, tcptrace and tshark; time, packets/s, peak RSS.
	@BUILD=$(BUILD) bash bench/replay-scale.sh
	@# Cost per packet across shapes of traffic (BASELINE_BIN=old build: beside it).
	@BUILD=$(BUILD) bash bench/replay-shapes.sh
	@# The speed goals (bench/README.md) against this run's numbers.
	@echo "== goals"
	@python3 bench/goals.py $(BUILD)/bench

# Man pages and the bash completion, installed when they exist.
MAN1       := $(wildcard pcap-replay/man/pcap-replay.1 netstack/man/netstack.1)
MAN3       := $(wildcard rto/man/rto.3)
COMPLETION := $(wildcard pcap-replay/completion/pcap-replay.bash)
RTO_SUBST  := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@RTO_VERSION@|$(RTO_VERSION)|g' \
                  -e 's|@RTO_SOVERSION@|$(RTO_SOVERSION)|g'

# The libraries, their headers and the CMake package are installed by
# rto/CMakeLists.txt (both kinds of each library, the package generated from
# its targets: install(EXPORT)), built with this build's flags; the Makefile
# adds the pkg-config files, the programs and the documentation.
RTO_CMAKE_BUILD := $(BUILD)/cmake-rto
install: all
	cmake -S rto -B $(RTO_CMAKE_BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DCMAKE_INSTALL_LIBDIR=lib \
	  -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER=$(CXX) -DCMAKE_CXX_FLAGS="$(filter-out -MMD -MP,$(CXXFLAGS))" \
	  -DCMAKE_SHARED_LINKER_FLAGS="$(LDFLAGS) -Wl,-z,defs" > $(BUILD)/cmake-rto.log
	cmake --build $(RTO_CMAKE_BUILD) -j$(JOBS) >> $(BUILD)/cmake-rto.log
	DESTDIR=$(DESTDIR) cmake --install $(RTO_CMAKE_BUILD) >> $(BUILD)/cmake-rto.log
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	$(RTO_SUBST) rto/rto.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rto.pc
	$(RTO_SUBST) rto/rto-retry.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/rto-retry.pc
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
ifneq ($(MAN1),)
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
endif
ifneq ($(MAN3),)
	install -d $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(MAN3) $(DESTDIR)$(PREFIX)/share/man/man3/
endif
	install -d $(DESTDIR)$(PREFIX)/share/doc/pcap-replay
	install -m 644 pcap-replay/SCHEMA.md $(DESTDIR)$(PREFIX)/share/doc/pcap-replay/
ifneq ($(COMPLETION),)
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(COMPLETION) $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pcap-replay
endif
	@echo "installed under $(DESTDIR)$(PREFIX). A program linked to librto.so or librto_retry.so finds them when"
	@echo "$(PREFIX)/lib is on the dynamic linker's path: sudo ldconfig, or -Wl,-rpath,$(PREFIX)/lib, or LD_LIBRARY_PATH (man 3 rto)."

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
