#!/usr/bin/env bash
# rto as a CMake subproject (add_subdirectory, FetchContent), static and
# shared: tests/install/subproject.sh. Exit 0 pass, 77 skip, 1 fail.
exec bash "$(dirname "$0")/../install/subproject.sh"
