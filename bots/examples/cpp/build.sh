#!/usr/bin/env bash
# Builds the C++ example bot: build/flip7-bot (next to this script).
#
#   bash bots/examples/cpp/build.sh          (from anywhere; idempotent, offline)
#
# Needs only Debian packages (no other registry):
#   apt-get install g++ cmake make pkg-config libgrpc++-dev libprotobuf-dev \
#       protobuf-compiler protobuf-compiler-grpc
# The C++ stubs are generated from protos/arena/v1/arena.proto into build/gen/ on every
# build that needs them (nothing generated is committed). A second run rebuilds only what
# changed. JOBS=N limits the parallel compile jobs (default: all CPUs).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="$HERE/build"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

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

echo "build.sh: toolchain: $(g++ -dumpfullversion) g++, cmake $(cmake --version | head -n1 | awk '{print $3}'), $(protoc --version), grpc++ $(pkg-config --modversion grpc++)"
if [ -f "$BUILD/CMakeCache.txt" ]; then
    echo "build.sh: reusing the configured build tree $BUILD"
else
    echo "build.sh: configuring $BUILD (Release)"
fi
cmake -S "$HERE" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "build.sh: compiling with $JOBS jobs (stubs from protos/arena/v1/arena.proto into build/gen/)"
cmake --build "$BUILD" --parallel "$JOBS"
echo "build.sh: built $BUILD/flip7-bot ($("$BUILD/flip7-bot" --version))"
