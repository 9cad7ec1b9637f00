#!/usr/bin/env bash
# Smoke run of the libFuzzer harnesses (tests/fuzz/) inside `make
# test`: builds them with clang into build/fuzz/ (incremental; the first
# build compiles the libraries once more, with coverage and ASan+UBSan),
# then runs each over its committed corpus, regression inputs included, and
# for a few seconds of mutation (FUZZ_SMOKE_SECONDS, default 4; at most
# FUZZ_SMOKE_RUNS executions, default 2000; 0 = no limit but the time, which
# is libFuzzer's -runs=-1: its -runs=0 would mutate nothing). Fails on any
# crash, leak, sanitizer report, broken invariant or input running over 10 s.
# New inputs go to a temporary directory, never into the repository.
# `make fuzz-ci` (CI, .ci/run) is this with 30 s and no run limit per
# harness; `make fuzz` is the long run.
# Exit 0 pass, 77 skip (no clang / libFuzzer: a failure under CI=true), 1 fail.
set -u
OUT=build/fuzz
SECONDS_EACH=${FUZZ_SMOKE_SECONDS:-4}
RUNS=${FUZZ_SMOKE_RUNS:-2000}
[ "$RUNS" = 0 ] && RUNS=-1  # libFuzzer: -1 = unlimited
missing=""
command -v clang++ >/dev/null || missing="clang++"
if [ -z "$missing" ]; then
  rt="$(clang++ -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a"
  [ -f "$rt" ] || missing="libFuzzer ($rt; Debian package libclang-rt-dev)"
fi
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: $missing missing under CI=true"; exit 1; fi
  echo "skip: $missing missing"; exit 77
fi
harnesses=$(cd tests/fuzz && ls *.cpp | sed 's/\.cpp$//')
if ! make --no-print-directory -s fuzz-build >"$OUT.build.log" 2>&1; then
  echo "FAIL: building the fuzz harnesses (log: $OUT.build.log)"; tail -20 "$OUT.build.log"; exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in $harnesses; do
  mkdir -p "$tmp/$h"
  dict=()
  [ -r "tests/fuzz/dict/$h.dict" ] && dict=(-dict="tests/fuzz/dict/$h.dict")
  # Every committed input once, whole (a corpus directory would be cut to
  # -max_len), then mutation from the corpus.
  if "$OUT/bin/fuzz-$h" -timeout=10 "tests/fuzz/corpus/$h"/* >"$tmp/$h.log" 2>&1 &&
     "$OUT/bin/fuzz-$h" -runs="$RUNS" -max_total_time="$SECONDS_EACH" -timeout=10 -max_len=8192 \
       -artifact_prefix="$tmp/" "${dict[@]}" "$tmp/$h" "tests/fuzz/corpus/$h" >>"$tmp/$h.log" 2>&1; then
    echo "ok: fuzz-$h: $(grep -E '^#[0-9]+' "$tmp/$h.log" | tail -n 1)"
  else
    echo "FAIL: fuzz-$h"; grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$tmp/$h.log" | head -8
    fail=1
  fi
done
exit $fail
