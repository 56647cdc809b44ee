'use strict';
// The Node example bot's strategy: card counting with an expected-value rule.
//
// Every decision reads only the request: the public observation (every line, every total,
// the draw pile as a multiset `unseen`, the discard pile) and the legal options. Nothing
// here knows about gRPC; bot.js decodes the messages and calls choose().
//
//   HIT_OR_STAY   hit while one more card has a positive expected gain (exact over the
//                 unseen multiset: bust -> lose the line, Flip 7 -> +15, modifiers, ...),
//                 with two end-game overrides (bank a winning lead, gamble when banking
//                 cannot win)
//   targets       value(option) = my gain - sum of opponents' gains x weight(opponent),
//                 weight = 1 + standing/100 (hurting the leader counts more)
//
// Rule references (docs/rules.md): X7 bust, X8 Flip 7, B4/B5/B7 base cards and scoring,
// V3 The Zero, V4 Unlucky 7, V5 Lucky 13, V6 modifiers, V7 actions, V8 Brutal.

const FLIP7_CARDS = 7;
const FLIP7_BONUS = 15;
const BUST = -1e6; // "never do this" (busting myself)

// ------------------------------------------------------------------------------ cards

const NUMBER_RE = /^(?:\d+|U7|L13)$/;

function isNumber(label) {
  return NUMBER_RE.test(label);
}

function isModifier(label) {
  const c = label.charAt(0);
  return c === '+' || c === '-' || label === 'x2' || label === '/2';
}

function numberValue(label) {
  if (label === 'U7') return 7;
  if (label === 'L13') return 13;
  return parseInt(label, 10);
}

/** Would `label` (a number card) bust a line holding `nums`? (X7, V4 Unlucky 7, V5 Lucky 13) */
function wouldBust(nums, label) {
  if (!isNumber(label) || label === 'U7') return false;
  const v = numberValue(label);
  let held = 0;
  let heldLucky = false;
  for (const l of nums) {
    if (numberValue(l) === v) {
      held += 1;
      if (l === 'L13') heldLucky = true;
    }
  }
  if (held === 0) return false;
  if (v === 13 && held === 1 && (heldLucky || label === 'L13')) return false;
  return true;
}

/** A line after `label` arrives (Unlucky 7 wipes every other number and modifier, V4). */
function addCard(line, label) {
  if (label === 'U7') return { nums: ['U7'], mods: [], sc: line.sc };
  if (isNumber(label)) return { nums: line.nums.concat([label]), mods: line.mods, sc: line.sc };
  if (isModifier(label)) return { nums: line.nums, mods: line.mods.concat([label]), sc: line.sc };
  return line;
}

/** A line without the card `label` (labels are unique within a line). */
function removeCard(line, label) {
  let i = line.nums.indexOf(label);
  if (i >= 0) {
    const nums = line.nums.slice();
    nums.splice(i, 1);
    return { nums, mods: line.mods, sc: line.sc };
  }
  i = line.mods.indexOf(label);
  if (i >= 0) {
    const mods = line.mods.slice();
    mods.splice(i, 1);
    return { nums: line.nums, mods, sc: line.sc };
  }
  return line;
}

/**
 * What a line scores if the round ended now: {bust, flip7, score}. B7 (base), V6 (vengeance),
 * V8 (Brutal: a busted line scores its minus cards, scores may be negative).
 */
function evalLine(rules, line) {
  const { nums, mods } = line;
  let minus = 0;
  let plus = 0;
  let doubles = 0;
  let halves = 0;
  for (const m of mods) {
    if (m === 'x2') doubles += 1;
    else if (m === '/2') halves += 1;
    else if (m.charAt(0) === '-') minus += parseInt(m.slice(1), 10);
    else plus += parseInt(m.slice(1), 10);
  }
  // bust: a duplicate number (two 13s are fine when one is the Lucky 13)
  const seen = new Map();
  let sum = 0;
  let zero = false;
  let bust = false;
  for (const l of nums) {
    const v = numberValue(l);
    sum += v;
    if (v === 0) zero = true;
    const prev = seen.get(v);
    if (prev === undefined) {
      seen.set(v, [l]);
    } else {
      prev.push(l);
      if (!(v === 13 && prev.length === 2 && prev.includes('L13'))) bust = true;
    }
  }
  if (bust) return { bust: true, flip7: false, score: rules.brutal ? -minus : 0 };
  const flip7 = nums.length >= FLIP7_CARDS;
  let score;
  if (rules.vengeance) {
    if (zero && !flip7) {
      score = 0; // V3: The Zero scores the line 0 unless Flip 7
    } else {
      score = Math.floor(sum / 2 ** halves) - minus;
      if (!rules.brutal) score = Math.max(0, score);
    }
  } else {
    score = sum * 2 ** doubles + plus;
  }
  if (flip7) score += FLIP7_BONUS;
  return { bust: false, flip7, score };
}

// ------------------------------------------------------------------------------ context

/** Everything a decision needs, decoded once from the request. */
function makeContext(req, game) {
  const obs = req.observation || {};
  const ruleset = obs.ruleset || {};
  const variant = obs.variant || ruleset.variant || (game && game.variant) || 'base';
  const rules = {
    vengeance: variant === 'vengeance',
    brutal: !!(ruleset.brutal || (game && game.brutal)),
    target: ruleset.target_score || (game && game.target) || 200,
  };
  const players = (obs.players || []).map((p) => ({
    seat: p.seat,
    status: p.status,
    nums: p.numbers || [],
    mods: p.modifiers || [],
    sc: (p.second_chances || 0) > 0,
    total: p.total || 0,
    line: p.line_score || 0,
    flip7: !!p.flip7,
  }));
  // the draw pile; when it is empty the next draw reshuffles the discard pile (X4)
  let pool = new Map();
  if ((obs.deck_size || 0) > 0 && obs.unseen) {
    for (const label of Object.keys(obs.unseen)) {
      const n = obs.unseen[label];
      if (n > 0) pool.set(label, n);
    }
  }
  if (pool.size === 0) {
    pool = new Map();
    for (const label of obs.discard || []) pool.set(label, (pool.get(label) || 0) + 1);
  }
  let poolSize = 0;
  for (const n of pool.values()) poolSize += n;
  return {
    me: req.seat,
    seats: players.length || obs.seats || 1,
    rules,
    players,
    pool,
    poolSize,
    rng: (game && game.rng) || mulberry32(Number(BigInt.asUintN(32, BigInt(req.request_id || 0)))),
    cache: new Map(),
  };
}

function player(ctx, seat) {
  return ctx.players[seat] || { seat, status: 'ACTIVE', nums: [], mods: [], sc: false, total: 0, line: 0 };
}

/** Game total plus what the line would bank now. */
function standing(ctx, seat) {
  const p = player(ctx, seat);
  return p.total + p.line;
}

/** Hurting an opponent is worth more the higher they stand. */
function weight(ctx, seat) {
  return 1 + Math.max(0, standing(ctx, seat)) / 100;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------------------ expectations

/**
 * Expected change of the player's line value from drawing one more card, exact over the
 * unseen multiset, and the probability that the card busts the line.
 */
function hitOutlook(ctx, p) {
  const key = 'hit:' + p.seat;
  const cached = ctx.cache.get(key);
  if (cached) return cached;
  const { rules, pool, poolSize } = ctx;
  const solo = ctx.seats === 1;
  const cur = evalLine(rules, p).score;
  let gain = 0;
  let bustCards = 0;
  let secondChances = 0;
  for (const [label, n] of pool) {
    if (isNumber(label)) {
      const r = evalLine(rules, addCard(p, label));
      if (r.bust) {
        bustCards += n;
        if (!p.sc) gain += n * (r.score - cur); // with a Second Chance: both are discarded (B5)
      } else {
        let d = r.score - cur;
        // V3: holding The Zero forbids staying; the line must run on to Flip 7 or bust
        if (label === '0' && rules.vengeance && !r.flip7) d -= 3;
        gain += n * d;
      }
    } else if (isModifier(label)) {
      if (!rules.vengeance || solo) gain += n * (evalLine(rules, addCard(p, label)).score - cur);
      // else (V6): I give it to someone else, which costs me nothing
    } else if (label === 'SECOND_CHANCE') {
      secondChances += n; // valued below, once the bust chance is known
    } else if (label === 'STEAL') {
      gain += n * 2;
    } else if (label === 'SWAP' || label === 'DISCARD') {
      gain += n * 1;
    }
    // Freeze / Flip Three / Just One More! / Flip Four!: I pick the target, so neutral
  }
  const pBust = poolSize ? bustCards / poolSize : 0;
  if (secondChances && !p.sc) gain += secondChances * Math.max(1, pBust * cur);
  const out = { gain: poolSize ? gain / poolSize : 0, pBust, cur };
  ctx.cache.set(key, out);
  return out;
}

function hitGain(ctx, p) {
  return hitOutlook(ctx, p).gain;
}

/**
 * Expected change of a player's line value from `k` forced draws (Flip Three, Flip Four!),
 * stopping on bust or Flip 7; Monte Carlo over the unseen multiset. Action cards and (in
 * Vengeance) modifiers are set aside and resolved by the player: counted as neutral.
 */
function forcedDrawGain(ctx, p, k) {
  if (k <= 1) return hitGain(ctx, p);
  const key = `draw${k}:${p.seat}`;
  const cached = ctx.cache.get(key);
  if (cached !== undefined) return cached;
  const { rules, pool } = ctx;
  const deck = [];
  for (const [label, n] of pool) for (let i = 0; i < n; i++) deck.push(label);
  if (deck.length === 0) return 0;
  const cur = evalLine(rules, p).score;
  const samples = 160;
  const draws = Math.min(k, deck.length);
  const rng = ctx.rng;
  let acc = 0;
  for (let s = 0; s < samples; s++) {
    let line = { nums: p.nums, mods: p.mods, sc: p.sc };
    let result = null;
    for (let i = 0; i < draws; i++) {
      const j = i + Math.floor(rng() * (deck.length - i));
      const label = deck[j];
      deck[j] = deck[i];
      deck[i] = label;
      if (isNumber(label)) {
        const next = addCard(line, label);
        const r = evalLine(rules, next);
        if (r.bust) {
          if (line.sc) {
            line = { nums: line.nums, mods: line.mods, sc: false };
            continue;
          }
          result = r.score;
          break;
        }
        line = next;
        if (r.flip7) {
          result = r.score;
          break;
        }
      } else if (isModifier(label)) {
        if (!rules.vengeance) line = addCard(line, label);
      } else if (label === 'SECOND_CHANCE' && !line.sc) {
        line = { nums: line.nums, mods: line.mods, sc: true };
      }
    }
    if (result === null) result = evalLine(rules, line).score;
    acc += result - cur;
  }
  const out = acc / samples;
  ctx.cache.set(key, out);
  return out;
}

/**
 * What an active player still expects to add to the line by playing on (what a Freeze or
 * the stay after Just One More! takes away). Roughly one-card gain x cards still wanted.
 */
function continuation(ctx, p) {
  if (p.status !== 'ACTIVE') return 0;
  const g = hitGain(ctx, p);
  if (g <= 0) return 0;
  let sum = 0;
  for (const l of p.nums) sum += numberValue(l);
  return g * Math.max(1, (25 - sum) / 7);
}

// ------------------------------------------------------------------------------ decisions

function argmax(n, value) {
  let best = 0;
  let bestV = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = value(i);
    if (v > bestV) {
      best = i;
      bestV = v;
    }
  }
  return best;
}

function hitOrStay(ctx, options) {
  const hit = options.findIndex((o) => o.move === 'HIT');
  const stay = options.findIndex((o) => o.move === 'STAY');
  if (stay < 0) return hit >= 0 ? hit : 0; // empty line, or The Zero (V3): must hit
  if (hit < 0) return stay;
  if (ctx.poolSize === 0) return stay; // X4: nothing left to draw
  const me = player(ctx, ctx.me);
  const mine = me.total + me.line;
  const target = ctx.rules.target;
  let bestOther = -Infinity; // anyone's standing now
  let bestBanked = -Infinity; // standings that can no longer grow by drawing
  for (const p of ctx.players) {
    if (p.seat === ctx.me) continue;
    const st = p.total + p.line;
    bestOther = Math.max(bestOther, st);
    if (p.status !== 'ACTIVE') bestBanked = Math.max(bestBanked, st);
  }
  // end game: banking now ends the game with me on top -> bank it
  if (mine >= target && mine > bestOther) return stay;
  // someone already banked a winning total above mine: staying cannot win
  if (bestBanked >= target && bestBanked > mine) return hit;
  return hitGain(ctx, me) > 0 ? hit : stay;
}

const FORCED_DRAWS = { FLIP_THREE: 3, FLIP_FOUR: 4, JUST_ONE_MORE: 1 };

function chooseTarget(ctx, card, options) {
  const draws = FORCED_DRAWS[card];
  return argmax(options.length, (i) => {
    const seat = options[i].seat;
    const p = player(ctx, seat);
    let effect; // the change this card makes to the target's expected line value
    if (card === 'FREEZE') {
      effect = -continuation(ctx, p); // B3: the target banks now
    } else if (draws !== undefined) {
      effect = forcedDrawGain(ctx, p, draws);
      if (card === 'JUST_ONE_MORE') effect -= continuation(ctx, p); // then must stay (V7)
    } else {
      effect = 0;
    }
    return seat === ctx.me ? effect : -effect * weight(ctx, seat);
  });
}

function giveSecondChance(ctx, options) {
  // the weakest opponent benefits me least
  return argmax(options.length, (i) => {
    const seat = options[i].seat;
    return seat === ctx.me ? -1e9 : -standing(ctx, seat);
  });
}

/** How much a modifier costs the player who receives it (V6, V8). */
function modifierDamage(ctx, p, label) {
  const { rules } = ctx;
  const harmful = label.charAt(0) === '-' || label === '/2';
  if (p.status === 'BUSTED') {
    // Brutal only: a busted line scores its minus cards
    return label.charAt(0) === '-' ? parseInt(label.slice(1), 10) : 0;
  }
  const now = evalLine(rules, p).score;
  let after = evalLine(rules, addCard(p, label)).score;
  let damage = now - after;
  if (p.status === 'ACTIVE' && harmful) {
    // an active line is still growing: the card will bite into what it becomes
    if (label === '/2') damage = Math.max(damage, Math.floor(Math.max(now, 20) / 2));
    else damage = Math.max(damage, parseInt(label.slice(1), 10) * 0.8);
  }
  return damage;
}

function giveModifier(ctx, card, options) {
  return argmax(options.length, (i) => {
    const seat = options[i].seat;
    const p = player(ctx, seat);
    const damage = modifierDamage(ctx, p, card);
    if (seat === ctx.me) return -1e9 - damage; // never myself unless I am the only choice
    return damage * weight(ctx, seat) + standing(ctx, seat) / 1000;
  });
}

/** The change of a player's line value when `line` replaces their current line. */
function delta(ctx, p, line) {
  const r = evalLine(ctx.rules, line);
  const now = evalLine(ctx.rules, p).score;
  let d = r.score - now;
  // V3: gaining The Zero (without Flip 7) also forbids staying; losing it frees the line
  if (ctx.rules.vengeance && !r.bust && !r.flip7) {
    const had = p.nums.includes('0');
    const has = line.nums.includes('0');
    if (has && !had) d -= 5;
    if (had && !has) d += 2;
  }
  return { d, bust: r.bust };
}

/** Value of one option for me: my gain minus the weighted gains of opponents. */
function valueFor(ctx, seat, change) {
  if (seat === ctx.me) return change.bust ? BUST : change.d;
  return -change.d * weight(ctx, seat);
}

function steal(ctx, options) {
  const me = player(ctx, ctx.me);
  return argmax(options.length, (i) => {
    const { seat, label } = options[i].card;
    const victim = player(ctx, seat);
    const mine = delta(ctx, me, addCard(me, label));
    const theirs = delta(ctx, victim, removeCard(victim, label));
    return valueFor(ctx, ctx.me, mine) + valueFor(ctx, seat, theirs);
  });
}

function discard(ctx, options) {
  return argmax(options.length, (i) => {
    const { seat, label } = options[i].card;
    const p = player(ctx, seat);
    return valueFor(ctx, seat, delta(ctx, p, removeCard(p, label)));
  });
}

function swap(ctx, options) {
  return argmax(options.length, (i) => {
    const { first, second } = options[i].swap;
    const a = player(ctx, first.seat);
    const b = player(ctx, second.seat);
    // first goes to second.seat, second goes to first.seat; both arrive at once (V7)
    const newA = addCard(removeCard(a, first.label), second.label);
    const newB = addCard(removeCard(b, second.label), first.label);
    return (
      valueFor(ctx, first.seat, delta(ctx, a, newA)) + valueFor(ctx, second.seat, delta(ctx, b, newB))
    );
  });
}

function flip7Bonus(ctx, options) {
  const self = options.findIndex((o) => o.flip7 && o.flip7.bonus_to_self);
  let leader = -1;
  let leaderStanding = -Infinity;
  options.forEach((o, i) => {
    if (!o.flip7 || o.flip7.bonus_to_self) return;
    const st = standing(ctx, o.flip7.penalty_seat);
    if (st > leaderStanding) {
      leader = i;
      leaderStanding = st;
    }
  });
  if (leader >= 0 && (self < 0 || leaderStanding > standing(ctx, ctx.me))) return leader;
  return self >= 0 ? self : 0;
}

/**
 * The strategy: an index into req.options. `req` is a decoded DecisionRequest (proto-loader
 * objects: enums as strings, oneofs named by `option`), `game` the bot's per-game state.
 */
function choose(req, game) {
  const options = req.options || [];
  if (options.length <= 1) return 0;
  const ctx = makeContext(req, game);
  const card = req.card || '';
  switch (req.kind) {
    case 'HIT_OR_STAY':
      return hitOrStay(ctx, options);
    case 'CHOOSE_TARGET':
      return chooseTarget(ctx, card, options);
    case 'GIVE_SECOND_CHANCE':
      return giveSecondChance(ctx, options);
    case 'GIVE_MODIFIER':
      return giveModifier(ctx, card, options);
    case 'STEAL':
      return steal(ctx, options);
    case 'DISCARD':
      return discard(ctx, options);
    case 'SWAP':
      return swap(ctx, options);
    case 'FLIP7_BONUS':
      return flip7Bonus(ctx, options);
    default:
      return 0;
  }
}

module.exports = {
  choose,
  evalLine,
  wouldBust,
  addCard,
  removeCard,
  makeContext,
  hitOutlook,
  forcedDrawGain,
  mulberry32,
};
