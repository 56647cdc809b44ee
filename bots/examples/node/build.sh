#!/usr/bin/env bash
# Installs the Node bot's dependencies exactly as package-lock.json pins them (npm ci) and
# copies the protocol file next to the bot (proto/, for the Docker build context).
# Idempotent: does nothing when node_modules already matches the lockfile.
#
#   bots/examples/node/build.sh            (needs node >= 18 and npm)
#
# Offline: npm ci takes every package from npm's cache when it is there (--prefer-offline);
# with a warm cache (e.g. a CI cache of ~/.npm) no network is needed. FORCE=1 reinstalls.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
cd "$HERE"

for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "build.sh: $tool not found (install Node.js >= 18 and npm)" >&2; exit 3; }
done
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$NODE_MAJOR" -lt 18 ]; then
    echo "build.sh: node $(node --version) is too old (need >= 18)" >&2
    exit 3
fi
echo "node $(node --version), npm $(npm --version)"

# the lockfile's hash, stored after a successful install: same hash -> nothing to do
STAMP="node_modules/.flip7-lock.sha256"
WANT="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "${FORCE:-0}" != "1" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] \
    && [ -d node_modules/@grpc/grpc-js ] && [ -d node_modules/@grpc/proto-loader ]; then
    echo "dependencies: up to date with package-lock.json (node_modules kept)"
else
    echo "dependencies: npm ci (from package-lock.json)"
    # --ignore-scripts: no dependency needs an install script (protobufjs' only prints a
    # version warning); production dependencies only
    npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
    echo "$WANT" > "$STAMP"
    echo "dependencies: installed $(node -p 'Object.keys(require("./package-lock.json").packages).length - 1') packages into node_modules"
fi

# the protocol, loaded at run time (no generated code); the copy serves the Docker build,
# whose context is this folder. A bot inside the repository reads protos/ directly.
SRC="$REPO/protos/arena/v1/arena.proto"
DST="proto/arena/v1/arena.proto"
if [ -f "$SRC" ]; then
    if cmp -s "$SRC" "$DST" 2>/dev/null; then
        echo "proto: $DST up to date"
    else
        mkdir -p "$(dirname "$DST")"
        cp "$SRC" "$DST"
        echo "proto: copied protos/arena/v1/arena.proto to $DST"
    fi
elif [ ! -f "$DST" ]; then
    echo "build.sh: no arena.proto at $SRC" >&2
    exit 4
fi

# smoke test: the dependencies load and the proto parses
node -e '
const { loadService, findProto } = require("./bot.js");
loadService();
console.log("check: bot.js loads, " + require("path").relative(process.cwd(), findProto()) + " parses");
'
echo "built: run with $HERE/run.sh"
