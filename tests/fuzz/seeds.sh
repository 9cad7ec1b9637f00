#!/usr/bin/env bash
# Prints the extra seed directories of a harness ($1), beside its committed
# corpus: the shipped captures of tests/captures for the harnesses that read
# whole captures (libFuzzer reads every file of a directory given to it).
case "$1" in
  parsers|reader|pipeline) echo tests/captures tests/captures/lab tests/captures/lockstep ;;
  *) ;;
esac
