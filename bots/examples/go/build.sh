#!/bin/sh
# Build the Go example bot offline from Debian packages: build/flip7-bot (static).
#
#   bots/examples/go/build.sh          generate the stubs, build the binary
#   bots/examples/go/build.sh test     ... then go vet and go test (the strategy's unit tests)
#   bots/examples/go/build.sh clean    remove build/
#
# Needs (Debian 12): golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc
#   golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev
# Exit status: 0 built; 1 the build or a test failed (or a bad argument); 3 a tool or a
# Debian package is missing; 4 the protocol file is not found.
# (install the -1-5 package explicitly: grpc-dev is also satisfied by the older -1-3 one,
# whose github.com/golang/protobuf cannot marshal the generated oneofs at run time).
#
# GOPATH mode, no network: GO111MODULE=off, GOPROXY=off,
#   GOPATH=build/gopath (the generated package flip7arena/arena/v1) : /usr/share/gocode.
# The protocol is the kit's own copy, proto/arena/v1/arena.proto, so the kit builds wherever
# it is copied; PROTO_ROOT=DIR uses DIR/arena/v1/arena.proto instead.
# Idempotent: the stubs are regenerated from the proto on every run; Go's build cache
# (build/gocache unless GOCACHE is set) makes a rebuild quick.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
PROTO_DIR=${PROTO_ROOT:-$HERE/proto}
PROTO="$PROTO_DIR/arena/v1/arena.proto"
BUILD="$HERE/build"
SYSTEM_GOPATH=${SYSTEM_GOPATH:-/usr/share/gocode}
OUT="$BUILD/flip7-bot"

say() { printf 'build.sh: %s\n' "$*"; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }
# exit 3: the toolchain (a tool or a Debian -dev package) is missing, as opposed to a failure
missing() { printf 'build.sh: missing toolchain: %s\n' "$*" >&2; exit 3; }

case "${1:-build}" in
clean)
    rm -rf "$BUILD"
    say "removed $BUILD"
    exit 0
    ;;
build | test) ;;
*) die "usage: $0 [build|test|clean]" ;;
esac

# ------------------------------------------------------------------ toolchain
for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
    command -v "$tool" >/dev/null 2>&1 || missing "$tool not found (apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc)"
done
for pkg in google.golang.org/grpc google.golang.org/protobuf github.com/golang/protobuf/proto; do
    [ -d "$SYSTEM_GOPATH/src/$pkg" ] || missing "$SYSTEM_GOPATH/src/$pkg missing (apt-get install golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev)"
done
# github.com/golang/protobuf >= 1.4 is a shim over google.golang.org/protobuf (registry.go);
# 1.3 is not, and breaks oneof marshalling of protoc-gen-go 1.28 code at run time.
[ -f "$SYSTEM_GOPATH/src/github.com/golang/protobuf/proto/registry.go" ] ||
    missing "github.com/golang/protobuf in $SYSTEM_GOPATH is older than 1.4 (apt-get install golang-github-golang-protobuf-1-5-dev)"
[ -f "$PROTO" ] || { printf 'build.sh: no protocol file at %s (restore proto/ from the kit, or set PROTO_ROOT)\n' "$PROTO" >&2; exit 4; }
say "toolchain: $(go version | cut -d' ' -f3-4), $(protoc --version), protoc-gen-go $(protoc-gen-go --version 2>&1 | awk '{print $NF}'), protoc-gen-go-grpc $(protoc-gen-go-grpc --version 2>&1 | awk '{print $NF}')"

# ------------------------------------------------------------------ stubs
GOPATH_LOCAL="$BUILD/gopath"
GEN="$GOPATH_LOCAL/src/flip7arena/arena/v1"
mkdir -p "$BUILD" "$GOPATH_LOCAL/src/flip7arena/arena"
TMP=$(mktemp -d "$BUILD/gen.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'rm -rf "$TMP"; exit 1' HUP INT PIPE TERM
# go_package "flip7arena/arena/v1;arenav1": paths=import puts the files under that path
protoc -I "$PROTO_DIR" \
    --go_out="$TMP" --go_opt=paths=import \
    --go-grpc_out="$TMP" --go-grpc_opt=paths=import \
    "$PROTO"
[ -f "$TMP/flip7arena/arena/v1/arena.pb.go" ] && [ -f "$TMP/flip7arena/arena/v1/arena_grpc.pb.go" ] ||
    die "protoc did not write flip7arena/arena/v1/arena*.pb.go"
if [ -d "$GEN" ] && diff -r "$TMP/flip7arena/arena/v1" "$GEN" >/dev/null 2>&1; then
    say "stubs up to date: build/gopath/src/flip7arena/arena/v1 (from ${PROTO#"$HERE"/})"
else
    rm -rf "$GEN"
    mv "$TMP/flip7arena/arena/v1" "$GEN"
    say "generated build/gopath/src/flip7arena/arena/v1/{arena.pb.go,arena_grpc.pb.go} from ${PROTO#"$HERE"/}"
fi

# ------------------------------------------------------------------ build
export GO111MODULE=off GOPROXY=off GOFLAGS= CGO_ENABLED=0
export GOPATH="$GOPATH_LOCAL:$SYSTEM_GOPATH"
export GOCACHE="${GOCACHE:-$BUILD/gocache}"
cd "$HERE"
go build -trimpath -ldflags "-s -w" -o "$OUT.tmp" .
mv -f "$OUT.tmp" "$OUT" # a rename: a running copy of the bot is not disturbed
say "built ${OUT#"$HERE"/} ($(wc -c <"$OUT" | tr -d ' ') bytes, CGO_ENABLED=0, GOPATH=$GOPATH, GOCACHE=$GOCACHE)"
if command -v file >/dev/null 2>&1; then
    case "$(file -b "$OUT")" in
    *statically* | *"static-pie"*) say "static binary: yes" ;;
    *) die "$OUT is not statically linked: $(file -b "$OUT")" ;;
    esac
fi

if [ "${1:-build}" = test ]; then
    go vet .
    say "go vet: ok"
    go test -count=1 .
    say "go test: ok"
fi
