#!/usr/bin/env bash
# Installs the Node bot's dependencies exactly as package-lock.json pins them (npm ci) and
# checks that the bot loads and its protocol file parses. Works wherever this folder is
# copied: the protocol is the copy kept in this kit, proto/arena/v1/arena.proto (ARENA_PROTO
# names another one). Idempotent: does nothing when node_modules already matches the lockfile.
#
#   bots/examples/node/build.sh            (needs node >= 18 and npm)
#
# Offline: npm ci takes every package from npm's cache when it is there (--prefer-offline);
# with a warm cache (e.g. a CI cache of ~/.npm) no network is needed. FORCE=1 reinstalls.
#
# Exit status: 0 built; 1 a step failed (npm ci, the load check); 3 node or npm is missing
# or too old; 4 the protocol file is not found.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
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

# the protocol, loaded at run time (no generated code)
PROTO="${ARENA_PROTO:-$HERE/proto/arena/v1/arena.proto}"
if [ ! -f "$PROTO" ]; then
    echo "build.sh: no protocol file at $PROTO (restore proto/ from the kit, or set ARENA_PROTO)" >&2
    exit 4
fi
echo "proto: $PROTO"

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
    npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error \
        || { echo "build.sh: npm ci failed" >&2; exit 1; }
    echo "$WANT" > "$STAMP"
    echo "dependencies: installed $(node -p 'Object.keys(require("./package-lock.json").packages).length - 1') packages into node_modules"
fi

# smoke test: the dependencies load and the proto parses
ARENA_PROTO="$PROTO" node -e '
const { loadService, findProto } = require("./bot.js");
loadService();
console.log("check: bot.js loads, " + require("path").relative(process.cwd(), findProto()) + " parses");
' || { echo "build.sh: bot.js does not load" >&2; exit 1; }
echo "built: run with $HERE/run.sh"
