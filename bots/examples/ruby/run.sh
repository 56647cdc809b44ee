#!/bin/sh
# The command the arena runs for this bot: bots/examples/ruby/run.sh
# (ARENA_ADDRESS and ARENA_TOKEN come from the arena). Run build.sh once before.
# RUBY overrides the ruby binary (default: ruby on PATH).
HERE="$(cd "$(dirname "$0")" && pwd)"
exec "${RUBY:-ruby}" "$HERE/bot.rb" "$@"
