#!/usr/bin/env bash
# Prints the extra seed directories of a harness ($1), beside its committed
# corpus: for the harnesses that read whole captures, the shipped captures of
# tests/captures and the shared traces of ../shared/traces (linux/, public/),
# the latter as their first SEED_BYTES bytes (default 16384, the longest input
# run.sh gives these harnesses) copied into $OUT/seeds/shared-traces/ so that
# libFuzzer does not load megabytes it would cut anyway. libFuzzer reads every
# file of a directory given to it. Missing ../shared/traces: only the shipped ones.
OUT=${OUT:-build/fuzz}
SEED_BYTES=${SEED_BYTES:-16384}
here=$(dirname "$0")
shared_traces() {
  local src="$here/../../../shared/traces" dst="$OUT/seeds/shared-traces" f
  [ -d "$src" ] || return 0
  mkdir -p "$dst"
  for f in "$src"/linux/*.pcap* "$src"/public/*.pcap*; do
    [ -f "$f" ] || continue
    [ -s "$dst/$(basename "$f")" ] || head -c "$SEED_BYTES" "$f" >"$dst/$(basename "$f")"
  done
  echo "$dst"
}
case "$1" in
  parsers|reader|pipeline) echo tests/captures tests/captures/lab tests/captures/lockstep "$(shared_traces)" ;;
  *) ;;
esac
