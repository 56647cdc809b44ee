#!/bin/sh
# The command the arena runs for this bot: bots/examples/node/run.sh
# (ARENA_ADDRESS and ARENA_TOKEN come from the arena). Run build.sh once before.
# NODE overrides the node binary (default: node on PATH).
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ ! -d "$HERE/node_modules/@grpc/grpc-js" ]; then
    echo "node bot: dependencies missing; run $HERE/build.sh first" >&2
    exit 2
fi
exec "${NODE:-node}" "$HERE/bot.js" "$@"
