#!/usr/bin/env bash
# Builds the C++ example bot: build/flip7-bot (next to this script).
#
#   bash bots/examples/cpp/build.sh          (from anywhere; idempotent, offline)
#
# Needs only Debian packages (no other registry):
#   apt-get install g++ cmake make pkg-config libgrpc++-dev libprotobuf-dev \
#       protobuf-compiler protobuf-compiler-grpc
# The C++ stubs are generated into build/gen/ on every build that needs them (nothing
# generated is committed) from the kit's own copy of the protocol, proto/arena/v1/arena.proto,
# so the kit builds wherever it is copied; PROTO_ROOT=DIR uses DIR/arena/v1/arena.proto
# instead. A second run rebuilds only what changed. JOBS=N limits the parallel compile jobs
# (default: all CPUs).
#
# Exit status: 0 built; 1 the build failed (cmake, the compiler); 3 a tool or a Debian
# package is missing; 4 the protocol file is not found.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="$HERE/build"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
PROTO_ROOT="$(cd "${PROTO_ROOT:-$HERE/proto}" 2>/dev/null && pwd || echo "${PROTO_ROOT:-$HERE/proto}")"

missing=()
for tool in g++ cmake make pkg-config protoc grpc_cpp_plugin; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if command -v pkg-config >/dev/null 2>&1; then
    for lib in grpc++ protobuf; do
        pkg-config --exists "$lib" || missing+=("$lib.pc")
    done
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "build.sh: missing ${missing[*]}" >&2
    echo "build.sh: apt-get install g++ cmake make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc" >&2
    exit 3
fi

if [ ! -f "$PROTO_ROOT/arena/v1/arena.proto" ]; then
    echo "build.sh: no protocol file at $PROTO_ROOT/arena/v1/arena.proto (restore proto/ from the kit, or set PROTO_ROOT)" >&2
    exit 4
fi

echo "build.sh: toolchain: $(g++ -dumpfullversion) g++, cmake $(cmake --version | head -n1 | awk '{print $3}'), $(protoc --version), grpc++ $(pkg-config --modversion grpc++)"
# a build tree copied along with the kit was configured for the old place: start it afresh
CONFIGURED_FOR="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)"
if [ -n "$CONFIGURED_FOR" ] && [ "$CONFIGURED_FOR" != "$HERE" ]; then
    echo "build.sh: $BUILD was configured for $CONFIGURED_FOR: configuring it again here"
    rm -rf "$BUILD/CMakeCache.txt" "$BUILD/CMakeFiles"
fi
if [ -f "$BUILD/CMakeCache.txt" ]; then
    echo "build.sh: reusing the configured build tree $BUILD"
else
    echo "build.sh: configuring $BUILD (Release)"
fi
cmake -S "$HERE" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPROTO_ROOT="$PROTO_ROOT" >/dev/null \
    || { echo "build.sh: cmake could not configure $BUILD" >&2; exit 1; }
echo "build.sh: compiling with $JOBS jobs (stubs from $PROTO_ROOT/arena/v1/arena.proto into build/gen/)"
cmake --build "$BUILD" --parallel "$JOBS" || { echo "build.sh: the build failed" >&2; exit 1; }
echo "build.sh: built $BUILD/flip7-bot ($("$BUILD/flip7-bot" --version))"
