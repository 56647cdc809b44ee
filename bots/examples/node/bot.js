#!/usr/bin/env node
'use strict';
// Flip 7 Arena example bot in Node.js: one gRPC stream (Arena.Play), many games at once,
// requests in batches, reconnects with the same token when the stream drops. The strategy
// is in strategy.js.
//
// Environment (set by the arena):  ARENA_ADDRESS  "unix:///path/arena.sock" or "host:port"
//                                  ARENA_TOKEN    this bot's token
// Optional:                        ARENA_PROTO    path of arena.proto (default: see findProto)
//                                  ARENA_LOG      "info" or "debug" for more on stderr
//                                  ARENA_BATCHES  "0": one request per message (no batches)
//
// Exit status: 0 after the arena's goodbye; 1 when the arena stays unreachable for
// RECONNECT_MS; 2 when the arena refuses the bot (bad token, version, ...) or on a bad setup.

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const strategy = require('./strategy');

const BOT_NAME = 'node-ev';
const BOT_VERSION = `node-ev 1.0 (node ${process.versions.node}, grpc-js ${grpcVersion()})`;
const PROTOCOL_VERSION = 1;
const RECONNECT_MS = 10000; // keep trying this long after the last good session
const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 1000;

const LOG_LEVEL = { warning: 0, info: 1, debug: 2 }[(process.env.ARENA_LOG || 'warning').toLowerCase()] || 0;

function log(level, ...args) {
  if (level <= LOG_LEVEL) process.stderr.write(`[${BOT_NAME}] ${args.join(' ')}\n`);
}

function grpcVersion() {
  try {
    return require('@grpc/grpc-js/package.json').version;
  } catch (e) {
    return '?';
  }
}

/** arena.proto: $ARENA_PROTO, else the copy kept in this kit (proto/arena/v1/arena.proto). */
function findProto() {
  const candidates = [
    process.env.ARENA_PROTO,
    path.resolve(__dirname, 'proto/arena/v1/arena.proto'),
  ].filter(Boolean);
  for (const p of candidates) if (fs.existsSync(p)) return p;
  throw new Error(`arena.proto not found (looked at ${candidates.join(', ')}); set ARENA_PROTO`);
}

function loadService() {
  const definition = protoLoader.loadSync(findProto(), {
    keepCase: true, // field names exactly as in arena.proto (request_id, option_index, ...)
    longs: String, // uint64 request_id / bot_seed as decimal strings, echoed back unchanged
    enums: String, // DecisionKind, Move, PlayerStatus, Error.Code as their names
    defaults: true, // unset scalars read as 0 / "" / false, unset repeated fields as []
    oneofs: true, // msg.msg / option.option name the oneof member that is set
  });
  return grpc.loadPackageDefinition(definition).arena.v1.Arena;
}

const CHANNEL_OPTIONS = {
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  'grpc.enable_retries': 0,
};

/**
 * What went wrong, for Answer.error: "TypeError: x is undefined (strategy.js:42)", the
 * exception and the innermost place of the bot's own code in its stack (not Node's own
 * code nor node_modules; else the first place named).
 */
function describe(e) {
  if (!(e instanceof Error)) return `thrown: ${String(e)}`;
  let where = '';
  for (const line of String(e.stack || '').split('\n').slice(1)) {
    const m = /^at .*?\(?([^\s()]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const mine = !m[1].startsWith('node:') && !m[1].includes('node_modules');
    if (mine || !where) where = ` (${path.basename(m[1])}:${m[2]})`;
    if (mine) break;
  }
  return `${e.name}: ${e.message}${where}`;
}

class Bot {
  constructor(Arena, address, token, { batches = true } = {}) {
    this.Arena = Arena;
    this.address = address;
    this.token = token;
    this.batches = batches; // ask the arena for every ready request in one message
    this.games = new Map(); // game_id -> Map(seat -> game state); survives reconnects
    this.answered = 0;
  }

  /** One stream, from hello to its end: resolves to {kind: goodbye|retry|fatal, why}. */
  session() {
    return new Promise((resolve) => {
      const client = new this.Arena(this.address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
      const call = client.Play();
      const state = { welcomed: false, done: false };
      const finish = (kind, why) => {
        if (state.done) return;
        state.done = true;
        if (kind === 'goodbye') {
          call.end();
        } else {
          call.cancel();
        }
        client.close();
        resolve({ kind, why, welcomed: state.welcomed });
      };
      call.on('data', (msg) => {
        if (state.done) return;
        try {
          this.handle(msg, call, state, finish);
        } catch (e) {
          // never let one bad message kill the bot: the arena resends what is pending
          log(0, 'error handling a message:', e && e.stack ? e.stack : e);
        }
      });
      call.on('error', (e) => finish('retry', `${grpc.status[e.code] || e.code} ${e.details || e.message}`));
      call.on('end', () => finish('retry', 'the stream ended without a goodbye'));
      call.write({
        hello: {
          token: this.token,
          bot_name: BOT_NAME,
          protocol_version: PROTOCOL_VERSION,
          max_concurrent_games: 0, // as many as the arena likes
          bot_version: BOT_VERSION,
          want_forced: false,
          batches: this.batches,
        },
      });
    });
  }

  handle(msg, call, state, finish) {
    switch (msg.msg) {
      case 'batch': {
        // every request that was ready: all answered at once, in one message
        const answers = msg.batch.requests.map((r) => this.answer(r));
        call.write({ answers: { answers } });
        this.answered += answers.length;
        break;
      }
      case 'request': {
        // answered synchronously, so answers leave in the order the requests came
        call.write({ answer: this.answer(msg.request) });
        this.answered += 1;
        break;
      }
      case 'game_start': {
        const gs = msg.game_start;
        let seats = this.games.get(gs.game_id);
        if (!seats) this.games.set(gs.game_id, (seats = new Map()));
        // after a reconnect the arena announces every game in flight again: keep the seat
        // (and its random state) as it is
        if (seats.has(gs.seat)) break;
        const seed = BigInt(gs.bot_seed || '0');
        seats.set(gs.seat, {
          gameId: gs.game_id,
          seat: gs.seat,
          seats: gs.seats,
          variant: gs.ruleset ? gs.ruleset.variant : 'base',
          brutal: !!(gs.ruleset && gs.ruleset.brutal),
          target: (gs.ruleset && gs.ruleset.target_score) || 200,
          rng: strategy.mulberry32(Number(BigInt.asUintN(32, seed ^ (seed >> 32n)))),
        });
        log(2, `game ${gs.game_id} starts, seat ${gs.seat}/${gs.seats} ${gs.ruleset && gs.ruleset.variant}`);
        break;
      }
      case 'game_end': {
        const ge = msg.game_end;
        this.games.delete(ge.game_id);
        log(2, `game ${ge.game_id} over: ${ge.status}, totals ${ge.totals.join(' ')}`);
        break;
      }
      case 'welcome':
        state.welcomed = true;
        log(1, `welcome as ${msg.welcome.bot_name} (session ${msg.welcome.session_id}, ` +
          `grace ${msg.welcome.reconnect_grace_ms} ms, batches ${msg.welcome.batches ? 'on' : 'off'})`);
        break;
      case 'error': {
        const why = `${msg.error.code}: ${msg.error.message}`;
        // our previous stream is not yet noticed as gone: retry; anything else is final
        finish(msg.error.code === 'ALREADY_CONNECTED' ? 'retry' : 'fatal', why);
        break;
      }
      case 'goodbye':
        finish('goodbye', msg.goodbye.reason);
        break;
      default:
        log(1, 'ignoring an unknown message');
    }
  }

  /**
   * The Answer to one request: the strategy's choice, or, when the strategy throws or gives
   * an index that is not one of the options, option 0 with `error` saying what went wrong
   * (the arena then records the bot's own fault, BOT_ERROR, and plays the safe default).
   */
  answer(r) {
    const n = r.options ? r.options.length : 0;
    const seats = this.games.get(r.game_id);
    const game = seats ? seats.get(r.seat) : undefined;
    let index;
    try {
      index = strategy.choose(r, game);
    } catch (e) {
      const error = describe(e);
      log(0, `strategy failed on ${r.kind} (request ${r.request_id}):`, e && e.stack ? e.stack : e);
      return { request_id: r.request_id, option_index: 0, error };
    }
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      const error = `strategy.choose returned ${index} for ${n} options`;
      log(0, error);
      return { request_id: r.request_id, option_index: 0, error };
    }
    return { request_id: r.request_id, option_index: index };
  }

  /** Play until the arena says goodbye; reconnect (same token) when the stream drops. */
  async run() {
    let giveUpAt = null;
    let delay = FIRST_DELAY_MS;
    for (;;) {
      const out = await this.session();
      if (out.kind === 'goodbye') {
        log(1, `goodbye (${out.why}) after ${this.answered} answers`);
        return 0;
      }
      if (out.kind === 'fatal') {
        process.stderr.write(`[${BOT_NAME}] the arena refused this bot: ${out.why}\n`);
        return 2;
      }
      const now = Date.now();
      if (out.welcomed) {
        // that session worked: a fresh reconnect window
        giveUpAt = null;
        delay = FIRST_DELAY_MS;
      }
      if (giveUpAt === null) giveUpAt = now + RECONNECT_MS;
      if (now >= giveUpAt) {
        process.stderr.write(`[${BOT_NAME}] lost the arena at ${this.address}: ${out.why}\n`);
        return 1;
      }
      log(1, `stream lost (${out.why}); reconnecting in ${delay} ms`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

async function main() {
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address || token === undefined) {
    process.stderr.write('ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them for its bots)\n');
    return 2;
  }
  let Arena;
  try {
    Arena = loadService();
  } catch (e) {
    process.stderr.write(`[${BOT_NAME}] ${e.message}\n`);
    return 2;
  }
  return new Bot(Arena, address, token, { batches: process.env.ARENA_BATCHES !== '0' }).run();
}

if (require.main === module) {
  process.on('SIGTERM', () => process.exit(0));
  main().then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`[${BOT_NAME}] fatal: ${e && e.stack ? e.stack : e}\n`);
      process.exit(1);
    },
  );
}

module.exports = { Bot, loadService, findProto, describe };
