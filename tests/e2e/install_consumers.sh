#!/usr/bin/env bash
# `make install` into temporary prefixes and three consumers of the installed
# tree (CMake find_package, pkg-config, a C program): tests/install/consumers.sh.
# Exit 0 pass, 77 skip, 1 fail.
exec bash "$(dirname "$0")/../install/consumers.sh"
