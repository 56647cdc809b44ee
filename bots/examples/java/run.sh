#!/bin/sh
# Starts the Java example bot: the command the arena runs (it sets ARENA_ADDRESS and
# ARENA_TOKEN). Build first with build.sh. JAVA_OPTS replaces the JVM options below.
#
#   .venv/bin/arena bot check bots/examples/java/run.sh
#
# The options keep the JVM small and quick to start, which also fits the arena's bot
# containers (256 MiB, 1 CPU, 64 threads, read-only root):
#   -XX:+UseSerialGC -Xmx96m one GC thread, a small heap (the bot keeps almost nothing)
#   -XX:TieredStopAtLevel=1  C1 only: faster start-up, fewer compiler threads
#   -XX:-UsePerfData         no hsperfdata file in /tmp
#   -Xss512k                 smaller thread stacks
HERE="$(cd "$(dirname "$0")" && pwd)"
JAR="$HERE/build/flip7-java-bot.jar"
if [ ! -f "$JAR" ]; then
    echo "run.sh: $JAR is missing: build it with: bash $HERE/build.sh" >&2
    exit 2
fi
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--XX:+UseSerialGC -Xmx96m -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xss512k} \
    -jar "$JAR" "$@"
