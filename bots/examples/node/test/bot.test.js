'use strict';
// Unit tests of the protocol side (bot.js) without a network: a batch is answered in one
// message, a lone request in one answer, and a strategy that throws or answers out of range
// is reported in Answer.error. Run: npm test
const test = require('node:test');
const assert = require('node:assert');
const strategy = require('../strategy');
const { Bot, describe } = require('../bot');

const MOVES = [{ option: 'move', move: 'HIT' }, { option: 'move', move: 'STAY' }];

function request(id, gameId, nums) {
  const unseen = { 0: 1, FREEZE: 3, FLIP_THREE: 3, SECOND_CHANCE: 3 };
  for (let n = 1; n <= 12; n++) unseen[String(n)] = n;
  const player = (seat, numbers) => ({
    seat, status: 'ACTIVE', numbers, modifiers: [], second_chances: 0, total: 0,
    line_score: numbers.reduce((a, b) => a + Number(b), 0), flip7: false,
  });
  return {
    request_id: String(id),
    game_id: gameId,
    seat: 0,
    kind: 'HIT_OR_STAY',
    card: '',
    observation: {
      variant: 'base',
      ruleset: { variant: 'base', brutal: false, target_score: 200 },
      seat: 0, seats: 2, players: [player(0, nums), player(1, [])],
      discard: [], deck_size: 80, unseen, pending: [],
    },
    events: [],
    options: MOVES,
  };
}

/** A bot wired to a call that only records what is written. */
function botAndCall() {
  const bot = new Bot(null, 'unused', 'token');
  const written = [];
  const call = { write: (m) => written.push(m) };
  const finish = () => assert.fail('the stream should not end');
  return { bot, written, send: (msg) => bot.handle(msg, call, { welcomed: true }, finish) };
}

/** Runs `fn` with strategy.choose replaced by `choose`. */
function withStrategy(choose, fn) {
  const real = strategy.choose;
  strategy.choose = choose;
  try {
    fn();
  } finally {
    strategy.choose = real;
  }
}

test('a batch is answered in one message, one answer per request', () => {
  const { bot, written, send } = botAndCall();
  const reqs = [request(4, 'g1', ['3']), request(5, 'g2', ['12', '11', '10', '9']), request(6, 'g3', [])];
  send({ msg: 'batch', batch: { requests: reqs } });
  assert.strictEqual(written.length, 1);
  const answers = written[0].answers.answers;
  assert.deepStrictEqual(answers.map((a) => a.request_id), ['4', '5', '6']);
  assert.deepStrictEqual(answers.map((a) => MOVES[a.option_index].move), ['HIT', 'STAY', 'HIT']);
  assert.ok(answers.every((a) => a.error === undefined));
  assert.strictEqual(bot.answered, 3);
});

test('a lone request gets a lone answer', () => {
  const { written, send } = botAndCall();
  send({ msg: 'request', request: request(9, 'g1', ['3']) });
  assert.deepStrictEqual(written, [{ answer: { request_id: '9', option_index: 0 } }]);
});

test('a strategy that throws is reported in Answer.error with where it threw', () => {
  const { written, send } = botAndCall();
  withStrategy(
    (req) => {
      if (req.game_id === 'bad') throw new RangeError('no such card');
      return 1;
    },
    () => send({ msg: 'batch', batch: { requests: [request(1, 'bad', []), request(2, 'good', [])] } }),
  );
  const [bad, good] = written[0].answers.answers;
  assert.strictEqual(bad.option_index, 0);
  assert.match(bad.error, /^RangeError: no such card \(bot\.test\.js:\d+\)$/);
  assert.deepStrictEqual(good, { request_id: '2', option_index: 1 }); // the others are unharmed
});

test('an index outside the options is reported, not sent', () => {
  const { written, send } = botAndCall();
  withStrategy(() => 2, () => send({ msg: 'request', request: request(3, 'g', []) }));
  assert.deepStrictEqual(written[0].answer, {
    request_id: '3',
    option_index: 0,
    error: 'strategy.choose returned 2 for 2 options',
  });
});

test('describe: anything thrown becomes one line', () => {
  assert.strictEqual(describe('oops'), 'thrown: oops');
  assert.match(describe(new TypeError('x is undefined')), /^TypeError: x is undefined \(bot\.test\.js:\d+\)$/);
});
