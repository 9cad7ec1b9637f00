#!/usr/bin/env bash
# The mutation table (tests/mutate.sh) against the tree: every edit's text
# must be found exactly once in its file, so a rename in the analysis cannot
# leave the table stale until the next (three-hour) mutation run finds it.
# Nothing is built. Exit 0 pass, 77 skip (no python3), 1 fail.
set -u
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
if bash tests/mutate.sh --check; then
  echo "ok: the mutation table matches the tree"
else
  echo "FAIL: the mutation table is stale (tests/mutate.sh --check above)"
  exit 1
fi
