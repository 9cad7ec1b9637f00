#!/usr/bin/env bash
# Installs rto into temporary prefixes (`make install PREFIX=...`, and once
# staged with DESTDIR) and checks the installed tree as its users meet it:
#   - the files, the soname and its symlinks, the exported symbols of librto.so;
#   - the retry library apart: librto_retry.so (its soname, its exports, no
#     librto needed, no symbol shared with librto.so) and rto-retry.pc;
#   - rto.pc (no language level in Cflags) and the CMake package's version rules
#     and components (timer, retry);
#   - consumers built against the tree and run: a C++23 program through
#     pkg-config, a C99 program (shared and static), a C99 program that keeps
#     its estimators inside its own structs and drives a wheel by
#     rto_wheel_next_deadline_us (shared and static), a C99 client of the
#     retry library's C API with its backoff in its own struct (shared and
#     static), a C++23 client of the
#     retry library alone through pkg-config rto-retry, and a CMake project
#     using find_package(rto COMPONENTS retry) (the README's TimerWheel example
#     at C++23, C, and the retry client with rto::retry);
#   - the README's example is this directory's connection.hpp, verbatim.
# Exit 0 pass, 77 skip (a tool is missing; with CI=true that is a failure), 1 fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
SAN=${SAN:-0}
here=tests/install
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

missing=()
for tool in cmake pkg-config cc c++ nm readelf c++filt; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = true ]; then echo "FAIL: missing ${missing[*]} (CI=true)"; exit 1; fi
  echo "skip: missing ${missing[*]} (make deps installs them)"; exit 77
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if [ "$SAN" = 1 ]; then san_flags="-fsanitize=address,undefined -fno-sanitize-recover=all"; else san_flags=""; fi

# ---- install ----------------------------------------------------------------
if ! make --no-print-directory install PREFIX="$prefix" SAN="$SAN" >"$tmp/install.log" 2>&1; then
  tail -n 30 "$tmp/install.log"; echo "FAIL: make install PREFIX=$prefix"; exit 1
fi
ok "make install PREFIX=$prefix"

for f in include/rto/rto.h include/rto/export.h include/rto/rto.hpp include/rto/timer_wheel.hpp \
         include/rto/retry/retry.hpp include/rto/retry/retry.h include/rto/retry/export.h lib/librto_retry.a lib/pkgconfig/rto-retry.pc \
         lib/librto.a lib/pkgconfig/rto.pc lib/cmake/rto/rtoConfig.cmake \
         lib/cmake/rto/rtoConfigVersion.cmake lib/cmake/rto/rtoTimerTargets.cmake lib/cmake/rto/rtoRetryTargets.cmake \
         bin/pcap-replay bin/netstack; do
  [ -e "$prefix/$f" ] || bad "installed $f"
done

# Man pages and the completion: installed exactly when the sources exist.
for pair in pcap-replay/man/pcap-replay.1:share/man/man1/pcap-replay.1 \
            netstack/man/netstack.1:share/man/man1/netstack.1 \
            rto/man/rto.3:share/man/man3/rto.3 \
            pcap-replay/completion/pcap-replay.bash:share/bash-completion/completions/pcap-replay \
            pcap-replay/SCHEMA.md:share/doc/pcap-replay/SCHEMA.md; do
  src=${pair%%:*} dst=${pair#*:}
  if [ -e "$src" ]; then
    cmp -s "$src" "$prefix/$dst" && ok "$src installed as $dst" || bad "$src installed as $dst"
  else
    [ ! -e "$prefix/$dst" ] && ok "$src absent, nothing installed at $dst" || bad "$dst installed without $src"
  fi
done

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
version=$(pkg-config --modversion rto)
major=${version%%.*}
rest=${version#*.}; minor=${rest%%.*}
echo "installed version (rto.pc): $version"

# ---- librto.so: soname, symlinks, exports -------------------------------------
real=$prefix/lib/librto.so.$version
[ -f "$real" ] && [ ! -L "$real" ] && ok "lib/librto.so.$version is the library" || bad "lib/librto.so.$version"
[ "$(readlink "$prefix/lib/librto.so.$major")" = "librto.so.$version" ] \
  && ok "librto.so.$major -> librto.so.$version" || bad "librto.so.$major symlink"
[ "$(readlink "$prefix/lib/librto.so")" = "librto.so.$major" ] \
  && ok "librto.so -> librto.so.$major" || bad "librto.so symlink"
soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "librto.so.$major" ] && ok "soname $soname" || bad "soname '$soname', want librto.so.$major"

nm -D --defined-only "$real" | awk '{ print $NF }' >"$tmp/mangled"
c++filt <"$tmp/mangled" >"$tmp/exports"
# Every export is a C API function (rto_...) or in namespace rto (its classes,
# their typeinfo and vtables); nothing of the implementation's helpers or of libstdc++.
others=$(grep -vE '^rto_[a-z0-9_]+$' "$tmp/exports" | grep -vE '(^|[ ])rto::' || true)
[ -z "$others" ] && ok "librto.so exports only rto_* and rto::" || { bad "unintended exports:"; echo "$others" | head; }
# The C functions exported are exactly those rto.h declares (counted from the header).
declared=$(grep -oE '^RTO_API [^(]*\b(rto_[a-z0-9_]+)\(' "$prefix/include/rto/rto.h" | grep -oE 'rto_[a-z0-9_]+\($' | tr -d '(' | sort)
exported=$(grep -E '^rto_' "$tmp/exports" | sort)
[ -n "$declared" ] && [ "$declared" = "$exported" ] \
  && ok "the $(wc -w <<<"$exported") C functions exported are those rto.h declares" \
  || { bad "C exports differ from rto.h"; diff <(echo "$declared") <(echo "$exported") | head; }
# (on_rtt_sample and rto() are inline: the per-sample path compiles into the caller.)
grep -qE '^rto::Estimator::Estimator\(' "$tmp/exports" && grep -qE '^rto::RetransmissionTimer::on_expiry' "$tmp/exports" \
  && grep -qE '^rto::TimerWheel::next_deadline' "$tmp/exports" && grep -qx 'typeinfo for rto::ConfigError' "$tmp/exports" \
  && ok "the C++ API (rto::Estimator, RetransmissionTimer, TimerWheel, ConfigError's typeinfo) is exported" \
  || bad "C++ API exports"
# Every out-of-line function of the public API (a global T symbol of librto.a,
# in namespace rto or the C API) is exported: a public class or function
# declared without RTO_API would be missing here.
nm -g --defined-only "$prefix/lib/librto.a" 2>/dev/null | awk '$2 == "T" { print $3 }' | c++filt \
  | grep -E '^(rto::|rto_)' | sort -u >"$tmp/static-api"
unexported=$(comm -23 "$tmp/static-api" <(sort -u "$tmp/exports"))
[ -s "$tmp/static-api" ] && [ -z "$unexported" ] \
  && ok "all $(wc -l <"$tmp/static-api") public functions of librto.a are exported by librto.so" \
  || { bad "public functions of librto.a missing from librto.so (RTO_API?):"; echo "$unexported" | head; }
# The library holds internal code (helpers in anonymous namespaces, libstdc++
# instantiations: local symbols of its full symbol table); none of it is exported.
internal=$(nm -C "$real" | grep -cE ' t (rto::\(anonymous namespace\)|std::)' || true)
[ "$internal" -gt 0 ] && ! grep -qE 'anonymous namespace|^std::' "$tmp/exports" \
  && ok "$internal internal functions are in the library, local, not exported" || bad "internal symbol visibility"

# ---- librto_retry.so: soname, symlinks, exports, apart from librto ---------------
rreal=$prefix/lib/librto_retry.so.$version
[ -f "$rreal" ] && [ ! -L "$rreal" ] && ok "lib/librto_retry.so.$version is the library" || bad "lib/librto_retry.so.$version"
[ "$(readlink "$prefix/lib/librto_retry.so.$major")" = "librto_retry.so.$version" ] \
  && [ "$(readlink "$prefix/lib/librto_retry.so")" = "librto_retry.so.$major" ] \
  && ok "librto_retry.so -> librto_retry.so.$major -> librto_retry.so.$version" || bad "librto_retry.so symlinks"
rsoname=$(readelf -d "$rreal" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$rsoname" = "librto_retry.so.$major" ] && ok "soname $rsoname" || bad "soname '$rsoname', want librto_retry.so.$major"
! readelf -d "$rreal" | grep -q 'NEEDED.*librto\.so' && ok "librto_retry.so does not need librto.so" \
  || bad "librto_retry.so needs librto.so"
nm -D --defined-only "$rreal" | awk '{ print $3 }' | c++filt >"$tmp/retry-exports"
rothers=$(grep -vE '^rto_[a-z0-9_]+$' "$tmp/retry-exports" | grep -vE '(^|[ ])rto::' || true)
[ -s "$tmp/retry-exports" ] && [ -z "$rothers" ] && ok "librto_retry.so exports only rto_* and rto::" \
  || { bad "librto_retry.so exports:"; echo "$rothers" | head; }
rdeclared=$(grep -oE '^RTO_RETRY_API [^(]*\b(rto_[a-z0-9_]+)\(' "$prefix/include/rto/retry/retry.h" | grep -oE 'rto_[a-z0-9_]+\($' | tr -d '(' | sort)
rexported=$(grep -E '^rto_' "$tmp/retry-exports" | sort)
[ -n "$rdeclared" ] && [ "$rdeclared" = "$rexported" ] \
  && ok "the $(wc -w <<<"$rexported") C functions librto_retry.so exports are those rto/retry/retry.h declares" \
  || { bad "C exports of librto_retry.so differ from rto/retry/retry.h"; diff <(echo "$rdeclared") <(echo "$rexported") | head; }
grep -qE '^rto::Backoff::Backoff\(' "$tmp/retry-exports" && grep -qx 'typeinfo for rto::BackoffPolicyError' "$tmp/retry-exports" \
  && ok "the retry API (rto::Backoff, BackoffPolicyError's typeinfo) is exported by librto_retry.so" || bad "retry API exports"
shared=$(comm -12 <(sort -u "$tmp/exports") <(sort -u "$tmp/retry-exports"))
[ -z "$shared" ] && ok "librto.so and librto_retry.so export no symbol in common (the timer holds no retry code)" \
  || { bad "symbols in both libraries:"; echo "$shared" | head; }
nm -g --defined-only "$prefix/lib/librto_retry.a" 2>/dev/null | awk '$2 == "T" { print $3 }' | c++filt \
  | grep -E '^rto::' | sort -u >"$tmp/retry-static-api"
runexported=$(comm -23 "$tmp/retry-static-api" <(sort -u "$tmp/retry-exports"))
[ -s "$tmp/retry-static-api" ] && [ -z "$runexported" ] \
  && ok "all $(wc -l <"$tmp/retry-static-api") public functions of librto_retry.a are exported by librto_retry.so" \
  || { bad "public functions of librto_retry.a missing from librto_retry.so (RTO_RETRY_API?):"; echo "$runexported" | head; }
[ "$(pkg-config --modversion rto-retry)" = "$version" ] && ok "rto-retry.pc version $version" || bad "rto-retry.pc version"
case "$(pkg-config --cflags rto-retry)" in *-std=*) bad "rto-retry.pc Cflags carry a language level";; *) ok "rto-retry.pc Cflags carry no -std";; esac
case " $(pkg-config --libs rto-retry) " in *" -lrto "*) bad "rto-retry.pc links librto";; *) ok "rto-retry.pc links librto_retry alone";; esac

# ---- installed headers and rto.pc ----------------------------------------------
ids=$(grep -rnE '\bB[0-9]{2}\b|shared case' "$prefix"/include/rto || true)
[ -z "$ids" ] && ok "installed headers cite no internal test ids" || { bad "internal test ids in headers:"; echo "$ids"; }
cflags=$(pkg-config --cflags rto)
case "$cflags" in *-std=*) bad "rto.pc Cflags carry a language level: $cflags";; *) ok "rto.pc Cflags '$cflags' carry no -std";; esac

# ---- pkg-config consumer: C++23, shared -----------------------------------------
# shellcheck disable=SC2086
if c++ -std=c++23 -Wall -Wextra -Wpedantic -Werror $san_flags "$here/pkgconfig-consumer/main.cpp" \
     $(pkg-config --cflags --libs rto) -Wl,-rpath,"$prefix/lib" -o "$tmp/pc_consumer" 2>"$tmp/pc.log"; then
  ok "pkg-config consumer builds at -std=c++23"
  readelf -d "$tmp/pc_consumer" | grep -q "NEEDED.*\[librto.so.$major\]" \
    && ok "pkg-config consumer links librto.so.$major" || bad "pkg-config consumer is not linked to librto.so.$major"
  "$tmp/pc_consumer" >"$tmp/pc.out" 2>&1 && ok "pkg-config consumer runs" || { cat "$tmp/pc.out"; bad "pkg-config consumer run"; }
else
  cat "$tmp/pc.log"; bad "pkg-config consumer build"
fi

# ---- retry consumer: C++23, pkg-config rto-retry, librto_retry alone ---------------
# shellcheck disable=SC2086
if c++ -std=c++23 -Wall -Wextra -Wpedantic -Werror $san_flags "$here/retry-consumer/main.cpp" \
     $(pkg-config --cflags --libs rto-retry) -Wl,-rpath,"$prefix/lib" -o "$tmp/retry_consumer" 2>"$tmp/retry.log"; then
  ok "retry consumer builds at -std=c++23 with pkg-config rto-retry"
  readelf -d "$tmp/retry_consumer" | grep -q "NEEDED.*\[librto_retry.so.$major\]" \
    && ! readelf -d "$tmp/retry_consumer" | grep -q 'NEEDED.*\[librto\.so' \
    && ok "retry consumer links librto_retry.so.$major and not librto.so" || bad "retry consumer's libraries"
  "$tmp/retry_consumer" >"$tmp/retry.out" 2>&1 && ok "retry consumer runs: $(tail -n 1 "$tmp/retry.out")" \
    || { cat "$tmp/retry.out"; bad "retry consumer run"; }
else
  cat "$tmp/retry.log"; bad "retry consumer build"
fi

# The retry headers in a program without exceptions (call.hpp says it can be).
# shellcheck disable=SC2086
if c++ -std=c++20 -fno-exceptions -Wall -Wextra -Wpedantic -Werror $san_flags "$here/retry-consumer/no_exceptions.cpp" \
     $(pkg-config --cflags --libs rto-retry) -Wl,-rpath,"$prefix/lib" -o "$tmp/retry_noexc" 2>"$tmp/noexc.log"; then
  "$tmp/retry_noexc" >"$tmp/noexc.out" 2>&1 && ok "retry(callable) with -fno-exceptions runs: $(cat "$tmp/noexc.out")" \
    || { cat "$tmp/noexc.out"; bad "retry(callable) with -fno-exceptions"; }
else
  cat "$tmp/noexc.log"; bad "retry consumer build with -fno-exceptions"
fi

# ---- C consumer: C99, shared, then static -----------------------------------------
cprog=$here/c-consumer/c_consumer.c
# shellcheck disable=SC2086
if cc -std=c99 -Wall -Wextra -Wpedantic -Werror $san_flags "$cprog" $(pkg-config --cflags --libs rto) \
     -Wl,-rpath,"$prefix/lib" -o "$tmp/c_consumer" 2>"$tmp/c.log"; then
  ok "C consumer builds at -std=c99"
  readelf -d "$tmp/c_consumer" | grep -q "NEEDED.*\[librto.so.$major\]" \
    && ok "C consumer links librto.so.$major" || bad "C consumer is not linked to librto.so.$major"
  "$tmp/c_consumer" >"$tmp/c.out" 2>&1 && ok "C consumer runs: $(tail -n 1 "$tmp/c.out")" || { cat "$tmp/c.out"; bad "C consumer run"; }
else
  cat "$tmp/c.log"; bad "C consumer build"
fi
# Static: librto.a plus what rto.pc's Libs.private says it needs (the C++ runtime).
private=$(pkg-config --static --libs-only-l rto | sed 's/-lrto\b//')
# shellcheck disable=SC2086
if cc -std=c99 -Werror $san_flags "$cprog" $(pkg-config --cflags rto) "$prefix/lib/librto.a" $private \
     -o "$tmp/c_static" 2>"$tmp/cs.log"; then
  ! readelf -d "$tmp/c_static" | grep -q 'NEEDED.*librto' && "$tmp/c_static" >/dev/null 2>&1 \
    && ok "C consumer linked with librto.a and Libs.private ($private) runs" || bad "static C consumer"
else
  cat "$tmp/cs.log"; bad "static C consumer build (Libs.private: $private)"
fi

# ---- C client of the retry library: rto/retry/retry.h, shared, then static --------
rprog=$here/retry-c-consumer/retry_c.c
# shellcheck disable=SC2086
if cc -std=c99 -Wall -Wextra -Wpedantic -Werror $san_flags "$rprog" $(pkg-config --cflags --libs rto-retry) \
     -Wl,-rpath,"$prefix/lib" -o "$tmp/retry_c" 2>"$tmp/rc.log"; then
  readelf -d "$tmp/retry_c" | grep -q "NEEDED.*\[librto_retry.so.$major\]" \
    && ok "C retry client links librto_retry.so.$major" || bad "C retry client is not linked to librto_retry.so.$major"
  "$tmp/retry_c" >"$tmp/rc.out" 2>&1 && ok "C retry client with its backoff in its own struct runs: $(tail -n 1 "$tmp/rc.out")" \
    || { cat "$tmp/rc.out"; bad "C retry client run"; }
else
  cat "$tmp/rc.log"; bad "C retry client build"
fi
rprivate=$(pkg-config --static --libs-only-l rto-retry | sed 's/-lrto_retry\b//')
# shellcheck disable=SC2086
if cc -std=c99 -Werror $san_flags "$rprog" $(pkg-config --cflags rto-retry) "$prefix/lib/librto_retry.a" $rprivate \
     -o "$tmp/retry_c_static" 2>"$tmp/rcs.log"; then
  "$tmp/retry_c_static" >/dev/null 2>&1 && ok "the C retry client linked with librto_retry.a runs" || bad "static C retry client"
else
  cat "$tmp/rcs.log"; bad "static C retry client build"
fi

# ---- C embedding: caller-allocated states, a wheel driven by next_deadline --------
eprog=$here/c-embed/c_embed.c
# shellcheck disable=SC2086
if cc -std=c99 -Wall -Wextra -Wpedantic -Werror $san_flags "$eprog" $(pkg-config --cflags --libs rto) \
     -Wl,-rpath,"$prefix/lib" -o "$tmp/c_embed" 2>"$tmp/ce.log"; then
  "$tmp/c_embed" >"$tmp/ce.out" 2>&1 \
    && ok "C program with its estimators in its own structs and a wheel driven by next_deadline runs: $(tail -n 1 "$tmp/ce.out")" \
    || { cat "$tmp/ce.out"; bad "C embedding program run"; }
else
  cat "$tmp/ce.log"; bad "C embedding program build"
fi
# shellcheck disable=SC2086
if cc -std=c99 -Werror $san_flags "$eprog" $(pkg-config --cflags rto) "$prefix/lib/librto.a" $private \
     -o "$tmp/ce_static" 2>"$tmp/ces.log"; then
  "$tmp/ce_static" >/dev/null 2>&1 && ok "the C embedding program linked with librto.a runs" || bad "static C embedding program"
else
  cat "$tmp/ces.log"; bad "static C embedding program build"
fi

# ---- CMake consumer: find_package(rto), C++23 and C ------------------------------
cmake_build() {  # cmake_build DIR PREFIX_PATH TARGET RETRY_TARGET
  cmake -S "$here/cmake-consumer" -B "$1" -DCMAKE_PREFIX_PATH="$2" -DRTO_TARGET="$3" -DRTO_RETRY_TARGET="$4" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror $san_flags" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror $san_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$san_flags" >"$1.log" 2>&1 && cmake --build "$1" >>"$1.log" 2>&1
}
if cmake_build "$tmp/cm" "$prefix" rto::rto rto::retry; then
  ok "CMake consumer: find_package(rto 0.2 REQUIRED COMPONENTS retry) and build"
  grep -qx "rto_DIR=$prefix/lib/cmake/rto" "$tmp/cm/found.txt" && grep -qx "rto_VERSION=$version" "$tmp/cm/found.txt" \
    && ok "CMake found the installed package, version $version" || { cat "$tmp/cm/found.txt"; bad "CMake package location/version"; }
  grep -qx "rto_LIBRARY=$prefix/lib/librto.so.$version" "$tmp/cm/found.txt" \
    && grep -qx "rto_RETRY_STATIC_LIBRARY=$prefix/lib/librto_retry.a" "$tmp/cm/found.txt" \
    && ok "the package's variables name the installed files (rto_LIBRARY, rto_RETRY_STATIC_LIBRARY)" \
    || { cat "$tmp/cm/found.txt"; bad "the package's library variables"; }
  cmd=$(grep -E '"command".*main\.cpp' "$tmp/cm/compile_commands.json" || true)
  [[ "$cmd" == *-std=c++23* && "$cmd" != *-std=c++20* ]] \
    && ok "rto::rto keeps the consumer at -std=c++23" || { echo "$cmd"; bad "language level of the CMake consumer"; }
  readelf -d "$tmp/cm/connection" | grep -q "NEEDED.*\[librto.so.$major\]" \
    && ok "rto::rto is librto.so.$major" || bad "rto::rto is not the shared library"
  "$tmp/cm/connection" >"$tmp/cm.out" 2>&1 && ok "README example (C++23, rto::rto) runs: $(tail -n 1 "$tmp/cm.out")" \
    || { cat "$tmp/cm.out"; bad "README example run"; }
  "$tmp/cm/c_connection" >/dev/null 2>&1 && ok "C program with rto::rto_c runs" || bad "C program with rto::rto_c"
  readelf -d "$tmp/cm/retry_client" | grep -q "NEEDED.*\[librto_retry.so.$major\]" \
    && ! readelf -d "$tmp/cm/retry_client" | grep -q 'NEEDED.*\[librto\.so' \
    && "$tmp/cm/retry_client" >/dev/null 2>&1 && ok "retry client with rto::retry (librto_retry.so.$major alone) runs" \
    || bad "retry client with rto::retry"
else
  cat "$tmp/cm.log"; bad "CMake consumer configure/build"
fi
if cmake_build "$tmp/cms" "$prefix" rto::rto_static rto::retry_static; then
  ! readelf -d "$tmp/cms/connection" | grep -q 'NEEDED.*librto' && "$tmp/cms/connection" >/dev/null 2>&1 \
    && ok "README example with rto::rto_static (librto.a) runs" || bad "rto::rto_static consumer"
  # rto::rto_c asks no C++ level of a C++ target: a C++17 one stays at C++17.
  cmd=$(python3 -c 'import json,sys; print(next(e["command"] for e in json.load(open(sys.argv[1])) if e["file"].endswith("cxx17_c_api.cpp")))' "$tmp/cms/compile_commands.json" 2>/dev/null)
  case "$cmd" in *-std=c++17*|*-std=gnu++17*) ok "a C++17 target linking rto::rto_c compiles at C++17" ;;
    *) bad "a C++17 target linking rto::rto_c: '$cmd'" ;; esac
  "$tmp/cms/cxx17_c_api" && ok "the C++17 program using the C API through rto::rto_c runs" || bad "cxx17_c_api run"
  ! readelf -d "$tmp/cms/retry_client" | grep -q 'NEEDED.*librto' && "$tmp/cms/retry_client" >/dev/null 2>&1 \
    && ok "retry client with rto::retry_static (librto_retry.a) runs" || bad "rto::retry_static consumer"
else
  cat "$tmp/cms.log"; bad "CMake consumer with rto::rto_static"
fi

# A C-only project (project(app LANGUAGES C)): the C APIs through the static
# targets (the package adds the C++ runtime the C linker does not) and the shared ones.
for kind in static shared; do
  if [ $kind = static ]; then t=rto::rto_static rt=rto::retry_static; else t=rto::rto_c rt=rto::retry; fi
  if cmake -S "$here/cmake-c-consumer" -B "$tmp/cmc-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DRTO_TARGET=$t \
       -DRTO_RETRY_TARGET=$rt -DCMAKE_BUILD_RPATH="$prefix/lib" -DCMAKE_C_FLAGS="$san_flags" \
       -DCMAKE_EXE_LINKER_FLAGS="$san_flags" >"$tmp/cmc-$kind.log" 2>&1 && cmake --build "$tmp/cmc-$kind" >>"$tmp/cmc-$kind.log" 2>&1; then
    if [ $kind = static ]; then
      ! readelf -d "$tmp/cmc-$kind/c_embed" | grep -q 'NEEDED.*librto' && ! readelf -d "$tmp/cmc-$kind/retry_c" | grep -q 'NEEDED.*librto' \
        || bad "C-only CMake project: static targets linked a shared rto"
    fi
    "$tmp/cmc-$kind/c_embed" >/dev/null 2>&1 && "$tmp/cmc-$kind/retry_c" >/dev/null 2>&1 \
      && ok "a C-only CMake project links $t and $rt and runs both C programs" || bad "C-only CMake project with $t, $rt: run"
  else
    tail -n 20 "$tmp/cmc-$kind.log"; bad "C-only CMake project with $t and $rt (configure/build)"
  fi
done

# ---- the package's version rules ---------------------------------------------------
probe() {  # probe WANT PREFIX_PATH [COMPONENTS]: 0 when find_package(rto WANT [COMPONENTS ...]) succeeds
  cmake -S "$here/version-probe" -B "$tmp/probe-$1${3:+-$3}" -DWANT="$1" -DCMAKE_PREFIX_PATH="$2" \
    ${3:+-DCOMPONENTS="$3"} >"$tmp/probe-$1${3:+-$3}.log" 2>&1
}
probe "$major.$minor" "$prefix" && ok "find_package(rto $major.$minor) accepts $version" || bad "find_package(rto $major.$minor)"
probe "$version" "$prefix" && ok "find_package(rto $version) accepts $version" || bad "find_package(rto $version)"
probe "$major.$((minor + 1))" "$prefix" && bad "find_package(rto $major.$((minor + 1))) accepted $version" \
  || ok "find_package(rto $major.$((minor + 1))) refuses $version (newer)"
probe "$((major + 1)).0" "$prefix" && bad "find_package(rto $((major + 1)).0) accepted $version" \
  || ok "find_package(rto $((major + 1)).0) refuses $version (another major)"
if [ "$major" = 0 ] && [ "$minor" -gt 0 ]; then
  probe "0.$((minor - 1))" "$prefix" && bad "find_package(rto 0.$((minor - 1))) accepted $version" \
    || ok "find_package(rto 0.$((minor - 1))) refuses $version (before 1.0 a minor may break)"
fi

# Components: timer and retry exist, another is refused with its name.
probe "$major.$minor" "$prefix" "timer;retry" && ok "find_package(rto COMPONENTS timer retry) succeeds" \
  || bad "find_package(rto COMPONENTS timer retry)"
if probe "$major.$minor" "$prefix" nosuch; then bad "find_package(rto COMPONENTS nosuch) succeeded"
else grep -q "no component 'nosuch'" "$tmp/probe-$major.$minor-nosuch.log" \
  && ok "find_package(rto COMPONENTS nosuch) fails and names the component" || bad "unknown component message"
fi

# The 64-bit rule, read by CMake in script mode as find_package would read it.
cat >"$tmp/bits.cmake" <<'CMAKE'
set(PACKAGE_FIND_VERSION 0.1)
set(PACKAGE_FIND_VERSION_MAJOR 0)
set(PACKAGE_FIND_VERSION_MINOR 1)
include("${VERSION_FILE}")
message("unsuitable=${PACKAGE_VERSION_UNSUITABLE}")
CMAKE
for bits in 4 8; do
  u=$(cmake -DVERSION_FILE="$prefix/lib/cmake/rto/rtoConfigVersion.cmake" -DCMAKE_SIZEOF_VOID_P=$bits \
        -P "$tmp/bits.cmake" 2>&1)
  want=$([ $bits = 8 ] && echo "unsuitable=" || echo "unsuitable=TRUE")
  [ "$u" = "$want" ] && ok "a $((bits * 8))-bit project: $want" || bad "a $((bits * 8))-bit project: '$u', want '$want'"
done

# ---- staged install (DESTDIR): rto.pc names the final prefix, the CMake package is relocatable
stage=$tmp/stage
if make --no-print-directory install DESTDIR="$stage" PREFIX=/usr SAN="$SAN" >"$tmp/stage.log" 2>&1; then
  grep -qx 'prefix=/usr' "$stage/usr/lib/pkgconfig/rto.pc" && ok "DESTDIR install: rto.pc says prefix=/usr" \
    || bad "DESTDIR install: rto.pc prefix"
  [ -z "$(find "$stage" -mindepth 1 -maxdepth 1 ! -name usr)" ] && ok "DESTDIR install writes only under \$DESTDIR/usr" \
    || bad "DESTDIR install wrote outside \$DESTDIR/usr"
  probe "$major.$minor" "$stage/usr" && ok "the staged CMake package is found where it lies" \
    || { cat "$tmp/probe-$major.$minor.log"; bad "staged CMake package"; }
else
  tail -n 30 "$tmp/stage.log"; bad "make install DESTDIR=$stage"
fi

# ---- the README's example is connection.hpp, verbatim ------------------------------
example=$here/cmake-consumer/connection.hpp
awk -v m="<!-- verbatim: $example -->" '
  $0 == m { found = 1; next }
  found == 1 && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }' README.md >"$tmp/readme-example"
if [ -s "$tmp/readme-example" ] && cmp -s "$tmp/readme-example" "$example"; then
  ok "README.md shows $example verbatim"
else
  bad "README.md's example differs from $example"; diff "$tmp/readme-example" "$example" | head
fi

[ $fail -eq 0 ] && echo "install consumers: all checks passed" || echo "install consumers: FAILED"
exit $fail
