#!/usr/bin/env bash
# Builds the Ruby example bot from Debian packages: generates the gRPC stubs into build/gen
# from the kit's own copy of the protocol (proto/arena/v1/arena.proto; PROTO_ROOT=DIR uses
# DIR/arena/v1/arena.proto instead) and checks that the bot loads. Works wherever this folder
# is copied, offline. Idempotent: the stubs are regenerated on every run (in a second).
#
#   bots/examples/ruby/build.sh            (needs ruby, ruby-grpc, ruby-grpc-tools)
#   bots/examples/ruby/build.sh clean      remove build/
#
# Exit status: 0 built; 1 a step failed (the stubs, the load check); 3 a tool or a Debian
# package is missing; 4 the protocol file is not found.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PROTO_DIR="${PROTO_ROOT:-$HERE/proto}"
PROTO="$PROTO_DIR/arena/v1/arena.proto"
BUILD="$HERE/build"
GEN="$BUILD/gen"

say() { printf 'build.sh: %s\n' "$*"; }
missing() { printf 'build.sh: missing toolchain: %s\n' "$*" >&2; exit 3; }

case "${1:-build}" in
clean)
    rm -rf "$BUILD"
    say "removed $BUILD"
    exit 0
    ;;
build) ;;
*) printf 'build.sh: error: usage: %s [build|clean]\n' "$0" >&2; exit 1 ;;
esac

# ------------------------------------------------------------------ toolchain
command -v ruby >/dev/null 2>&1 || missing "ruby not found (apt-get install ruby ruby-grpc ruby-grpc-tools)"
command -v grpc_tools_ruby_protoc >/dev/null 2>&1 ||
    missing "grpc_tools_ruby_protoc not found (apt-get install ruby-grpc-tools)"
ruby -e 'require "grpc"; require "google/protobuf"' >/dev/null 2>&1 ||
    missing "the grpc gem does not load (apt-get install ruby-grpc)"
[ -f "$PROTO" ] || { printf 'build.sh: no protocol file at %s (restore proto/ from the kit, or set PROTO_ROOT)\n' "$PROTO" >&2; exit 4; }
say "toolchain: ruby $(ruby -e 'print RUBY_VERSION'), grpc $(ruby -e 'require "grpc"; print GRPC::VERSION'), google-protobuf $(ruby -e 'print Gem.loaded_specs.key?("google-protobuf") ? Gem.loaded_specs["google-protobuf"].version : "?"' -r google/protobuf)"

# ------------------------------------------------------------------ stubs
mkdir -p "$BUILD"
TMP="$(mktemp -d "$BUILD/gen.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
grpc_tools_ruby_protoc -I "$PROTO_DIR" --ruby_out="$TMP" --grpc_out="$TMP" "$PROTO" ||
    { echo "build.sh: grpc_tools_ruby_protoc failed" >&2; exit 1; }
[ -f "$TMP/arena/v1/arena_pb.rb" ] && [ -f "$TMP/arena/v1/arena_services_pb.rb" ] ||
    { echo "build.sh: grpc_tools_ruby_protoc did not write arena/v1/arena_pb.rb and arena_services_pb.rb" >&2; exit 1; }
rm -rf "$GEN"
mv "$TMP" "$GEN"
chmod -R a+rX "$GEN"
say "generated build/gen/arena/v1/{arena_pb.rb,arena_services_pb.rb} from ${PROTO#"$HERE"/}"

# ------------------------------------------------------------------ smoke test
ARENA_STUBS="$GEN" ruby -e '
ENV["ARENA_ADDRESS"] = ""
load ARGV[0]
PB::Option.new(move: :STAY).option == :move or abort "the stubs do not decode a oneof"
Strategy.respond_to?(:choose) or abort "strategy.rb has no Strategy.choose"
puts "build.sh: check: bot.rb loads, the stubs and Strategy.choose are there"
' "$HERE/bot.rb" || { echo "build.sh: bot.rb does not load" >&2; exit 1; }
chmod a+rx "$HERE/run.sh" "$HERE/bot.rb"
say "built: run with $HERE/run.sh"
