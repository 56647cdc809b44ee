'use strict';
// Unit tests of the strategy on hand-made requests (decoded shape: enums as strings, oneofs
// named by `option`). Run: npm test   (node's built-in runner, Node >= 18)
const test = require('node:test');
const assert = require('node:assert');
const s = require('../strategy');

const BASE = { vengeance: false, brutal: false };
const VENG = { vengeance: true, brutal: false };
const BRUTAL = { vengeance: true, brutal: true };
const line = (nums, mods = []) => ({ nums, mods, sc: false });

function baseUnseen() {
  const u = { 0: 1, '+2': 1, '+4': 1, '+6': 1, '+8': 1, '+10': 1, x2: 1, FREEZE: 3, FLIP_THREE: 3, SECOND_CHANCE: 3 };
  for (let n = 1; n <= 12; n++) u[String(n)] = n;
  return u;
}

function view(seat, nums, opts = {}) {
  return {
    seat,
    status: opts.status || 'ACTIVE',
    numbers: nums,
    modifiers: opts.mods || [],
    second_chances: opts.sc || 0,
    total: opts.total || 0,
    line_score: opts.line || 0,
    flip7: false,
  };
}

function request(kind, players, options, extra = {}) {
  return {
    request_id: '7',
    game_id: 'g',
    seat: extra.seat || 0,
    kind,
    card: extra.card || '',
    observation: {
      variant: extra.variant || 'base',
      ruleset: { variant: extra.variant || 'base', brutal: !!extra.brutal, target_score: 200 },
      seat: extra.seat || 0,
      seats: players.length,
      players,
      discard: [],
      deck_size: 50,
      unseen: extra.unseen || baseUnseen(),
      pending: [],
    },
    events: [],
    options,
  };
}

const MOVES = [{ option: 'move', move: 'HIT' }, { option: 'move', move: 'STAY' }];
const seats = (...xs) => xs.map((seat) => ({ option: 'seat', seat }));
const cards = (...xs) => xs.map(([seat, label]) => ({ option: 'card', card: { seat, label } }));

test('scoring: base (B7), vengeance (V3, V6), Brutal (V8)', () => {
  assert.strictEqual(s.evalLine(BASE, line(['5', '7'], ['x2', '+4'])).score, 28);
  assert.strictEqual(s.evalLine(BASE, line(['0', '1', '2', '3', '4', '5', '6'])).score, 21 + 15);
  assert.strictEqual(s.evalLine(BASE, line(['5', '5'])).bust, true);
  assert.strictEqual(s.evalLine(VENG, line(['0', '9'])).score, 0);
  assert.strictEqual(s.evalLine(VENG, line(['9', '8'], ['/2', '-4'])).score, 4);
  assert.strictEqual(s.evalLine(VENG, line(['3'], ['-10'])).score, 0);
  assert.strictEqual(s.evalLine(BRUTAL, line(['3'], ['-10'])).score, -7);
  assert.deepStrictEqual(s.evalLine(BRUTAL, line(['3', '3'], ['-6'])), { bust: true, flip7: false, score: -6 });
});

test('Lucky 13 and Unlucky 7 (V4, V5)', () => {
  assert.strictEqual(s.evalLine(VENG, line(['13', 'L13'])).bust, false);
  assert.strictEqual(s.evalLine(VENG, line(['13', 'L13', '13'])).bust, true);
  assert.strictEqual(s.evalLine(VENG, line(['13', '13'])).bust, true);
  assert.deepStrictEqual(s.addCard(line(['7', '9'], ['-2']), 'U7').nums, ['U7']);
  assert.strictEqual(s.wouldBust(['7'], 'U7'), false);
  assert.strictEqual(s.wouldBust(['U7'], '7'), true);
});

test('HIT_OR_STAY: hits a small line, stays on a big one', () => {
  const small = request('HIT_OR_STAY', [view(0, ['3'], { line: 3 }), view(1, [])], MOVES);
  assert.strictEqual(MOVES[s.choose(small)].move, 'HIT');
  const big = request('HIT_OR_STAY', [view(0, ['12', '11', '10', '9'], { line: 42 }), view(1, [])], MOVES);
  assert.strictEqual(MOVES[s.choose(big)].move, 'STAY');
});

test('HIT_OR_STAY: banks a winning lead, gambles when banking cannot win', () => {
  const lead = request('HIT_OR_STAY', [view(0, ['2'], { total: 199, line: 2 }), view(1, [], { total: 150 })], MOVES);
  assert.strictEqual(MOVES[s.choose(lead)].move, 'STAY');
  const lost = request(
    'HIT_OR_STAY',
    [view(0, ['12', '11', '10', '9'], { total: 100, line: 42 }), view(1, ['5'], { total: 205, status: 'STAYED', line: 5 })],
    MOVES,
  );
  assert.strictEqual(MOVES[s.choose(lost)].move, 'HIT');
});

test('HIT_OR_STAY: only HIT offered (The Zero) -> HIT', () => {
  const opts = [{ option: 'move', move: 'HIT' }];
  assert.strictEqual(s.choose(request('HIT_OR_STAY', [view(0, ['0'])], opts, { variant: 'vengeance' })), 0);
});

test('Freeze: an opponent who wants cards, or myself when I would rather stop', () => {
  const want = request('CHOOSE_TARGET', [view(0, ['2'], { line: 2 }), view(1, ['3'], { line: 3 })], seats(0, 1), { card: 'FREEZE' });
  assert.strictEqual(s.choose(want, { rng: s.mulberry32(1) }), 1);
  const full = request(
    'CHOOSE_TARGET',
    [view(0, ['12', '11', '10', '9'], { line: 42 }), view(1, ['12', '11', '10', '8'], { line: 41 })],
    seats(0, 1),
    { card: 'FREEZE' },
  );
  assert.strictEqual(s.choose(full, { rng: s.mulberry32(1) }), 0);
});

test('Flip Three: an opponent with a big line, myself when my line is small', () => {
  const r = request('CHOOSE_TARGET', [view(0, ['2'], { line: 2 }), view(1, ['12', '11', '10', '9'], { line: 42 })], seats(0, 1), {
    card: 'FLIP_THREE',
  });
  assert.strictEqual(s.choose(r, { rng: s.mulberry32(1) }), 1);
  const mine = request('CHOOSE_TARGET', [view(0, [], { line: 0 }), view(1, ['4'], { line: 4 })], seats(0, 1), {
    card: 'FLIP_THREE',
  });
  assert.strictEqual(s.choose(mine, { rng: s.mulberry32(1) }), 0);
});

test('GIVE_MODIFIER: a minus card to the leader, never to myself', () => {
  const players = [view(0, ['9'], { total: 150, line: 9 }), view(1, ['9'], { total: 50, line: 9 }), view(2, ['9'], { total: 120, line: 9 })];
  const r = request('GIVE_MODIFIER', players, seats(0, 1, 2), { variant: 'vengeance', card: '-6' });
  assert.strictEqual(s.choose(r), 2);
});

test('STEAL: the most valuable card that does not bust me', () => {
  const players = [view(0, ['12', '3'], { line: 15 }), view(1, ['12', '11', '4'], { line: 27 })];
  const r = request('STEAL', players, cards([1, '12'], [1, '11'], [1, '4']), { variant: 'vengeance' });
  assert.strictEqual(s.choose(r), 1);
});

test('SWAP never busts me; DISCARD drops my own bad card', () => {
  const players = [view(0, ['5', '6'], { mods: ['-10'], line: 1 }), view(1, ['5', '12'], { line: 17 })];
  const swaps = [
    { option: 'swap', swap: { first: { seat: 0, label: '6' }, second: { seat: 1, label: '5' } } },
    { option: 'swap', swap: { first: { seat: 0, label: '5' }, second: { seat: 1, label: '12' } } },
  ];
  assert.strictEqual(s.choose(request('SWAP', players, swaps, { variant: 'vengeance' })), 1);
  const d = request('DISCARD', players, cards([0, '-10'], [1, '5']), { variant: 'vengeance' });
  assert.strictEqual(s.choose(d), 0);
});

test('FLIP7_BONUS: -15 to a leader ahead of me, else +15', () => {
  const opts = [
    { option: 'flip7', flip7: { bonus_to_self: true, penalty_seat: 0 } },
    { option: 'flip7', flip7: { bonus_to_self: false, penalty_seat: 1 } },
    { option: 'flip7', flip7: { bonus_to_self: false, penalty_seat: 2 } },
  ];
  const ahead = [view(0, [], { total: 100, line: 40 }), view(1, [], { total: 190 }), view(2, [], { total: 20 })];
  assert.strictEqual(s.choose(request('FLIP7_BONUS', ahead, opts, { brutal: true })), 1);
  const behind = [view(0, [], { total: 100, line: 40 }), view(1, [], { total: 90 }), view(2, [], { total: 20 })];
  assert.strictEqual(s.choose(request('FLIP7_BONUS', behind, opts, { brutal: true })), 0);
});
