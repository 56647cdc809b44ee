// Flip 7 strategy for the C++ example bot. See strategy.hpp and README.md ("Strategy").
#include "strategy.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

namespace flip7 {

namespace pb = arena::v1;

namespace {

constexpr int kFlip7Cards = 7;
constexpr int kFlip7Bonus = 15;
constexpr double kBustPenalty = 1000.0;  // "never bust yourself" on Steal / Swap
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool all_digits(const std::string& s, size_t from) {
  if (s.size() <= from) return false;
  for (size_t i = from; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// A line rebuilt from its cards (no bust checks: a busted line keeps its duplicate).
LineState build_line(const std::vector<CardInfo>& numbers, const std::vector<CardInfo>& modifiers,
                     bool sc, pb::PlayerStatus status, bool flip7, const Rules& r) {
  LineState l;
  for (const CardInfo& c : numbers) {
    l.sum += c.value;
    l.count += 1;
    if (c.value >= 0 && c.value < 32) l.ranks |= 1u << c.value;
    if (c.value == 13) {
      l.n13 += 1;
      l.lucky13 = l.lucky13 || c.lucky;
    }
    if (r.vengeance && c.value == 0) l.zero = true;
  }
  for (const CardInfo& m : modifiers) {
    switch (m.op) {
      case '+': l.plus += m.value; break;
      case 'x': l.doubles += 1; break;
      case '-': l.minus += m.value; break;
      case '/': l.halves += 1; break;
      default: break;
    }
  }
  l.sc = sc;
  l.busted = status == pb::BUSTED;
  l.active = status == pb::ACTIVE;
  l.flip7 = flip7 || (!l.busted && l.count >= kFlip7Cards);
  return l;
}

// A player's line with one card (by label) taken out of it.
LineState line_without(const Player& p, const std::string& label, const Rules& r) {
  std::vector<CardInfo> numbers, modifiers;
  for (const CardInfo& c : p.numbers)
    if (c.label != label) numbers.push_back(c);
  for (const CardInfo& c : p.modifiers)
    if (c.label != label) modifiers.push_back(c);
  return build_line(numbers, modifiers, p.second_chances > 0, p.status, false, r);
}

double standing(const Table& t, int seat) {
  const Player& p = t.players[seat];
  return p.total + line_value(p.line, t.rules);
}

// Hurting a player is worth more the better they stand (total + line).
double weight(const Table& t, int seat) {
  return 1.0 + std::max(0.0, standing(t, seat)) / 100.0;
}

// Does a Vengeance modifier drawn by `seat` end up in its own line (nobody else to give it to)?
bool modifiers_to_self(const Table& t, int seat) {
  if (!t.rules.vengeance) return true;  // base modifiers are always kept
  for (const Player& p : t.players) {
    if (p.seat == seat) continue;
    if (t.rules.brutal || !p.line.busted) return false;
  }
  return true;
}

bool valid_seat(const Table& t, int seat) {
  return seat >= 0 && seat < static_cast<int>(t.players.size());
}

struct Search {
  const Table& t;
  std::vector<int> counts;
  int total;
  bool mods_to_self;

  double run(const LineState& l, int draws) {
    if (draws == 0 || l.busted || l.flip7 || total <= 0) return line_value(l, t.rules);
    double acc = 0.0;
    const int n = static_cast<int>(counts.size());
    const int here = total;
    for (int i = 0; i < n; ++i) {
      const int c = counts[i];
      if (c == 0) continue;
      const DeckEntry& e = t.deck[i];
      LineState next = l;
      if (!e.neutral && !(e.card.kind == Kind::Modifier && !mods_to_self))
        next = receive(l, e.card, t.rules);
      if (draws == 1 || next.busted || next.flip7) {
        acc += c * static_cast<double>(line_value(next, t.rules));
      } else {
        counts[i] -= 1;
        total -= 1;
        acc += c * run(next, draws - 1);
        counts[i] += 1;
        total += 1;
      }
    }
    return acc / here;
  }
};

int find_move(const pb::DecisionRequest& req, pb::Move move) {
  for (int i = 0; i < req.options_size(); ++i) {
    const pb::Option& o = req.options(i);
    if (o.option_case() == pb::Option::kMove && o.move() == move) return i;
  }
  return -1;
}

template <typename Score>
int best_index(const pb::DecisionRequest& req, Score score) {
  int best = 0;
  double best_v = kNegInf;
  for (int i = 0; i < req.options_size(); ++i) {
    const double v = score(req.options(i));
    if (v > best_v) {
      best = i;
      best_v = v;
    }
  }
  return best;
}

// ------------------------------------------------------------------ decision kinds
int hit_or_stay(const pb::DecisionRequest& req, const Table& t) {
  const int hit = find_move(req, pb::HIT);
  const int stay = find_move(req, pb::STAY);
  if (stay < 0) return hit >= 0 ? hit : 0;  // empty line or The Zero: STAY is not offered
  if (hit < 0) return stay;
  const double mine = standing(t, t.me);
  // End of the game: someone who already banked is ahead of me past the target, so
  // staying loses for sure; or I am ahead of everyone past the target, so I bank it.
  double best_other = kNegInf;
  bool must_hit = false;
  for (const Player& p : t.players) {
    if (p.seat == t.me) continue;
    const double s = standing(t, p.seat);
    best_other = std::max(best_other, s);
    if (!p.line.active && s >= t.rules.target && s > mine) must_hit = true;
  }
  if (must_hit) return hit;
  if (mine >= t.rules.target && mine > best_other) return stay;
  return hit_gain(t, t.me) > 0.0 ? hit : stay;
}

int choose_target(const pb::DecisionRequest& req, const Table& t) {
  const std::string& card = req.card();
  int draws = 0;
  if (card == "FLIP_THREE") draws = 3;
  else if (card == "FLIP_FOUR") draws = 4;
  else if (card == "JUST_ONE_MORE") draws = 1;
  return best_index(req, [&](const pb::Option& o) -> double {
    const int s = static_cast<int>(o.seat());
    if (!valid_seat(t, s)) return kNegInf;
    const LineState& l = t.players[s].line;
    if (card == "FREEZE") {
      // freezing takes the rest of the round away: good against an opponent who still
      // wants cards; on myself only worth a little when I would rather stop (I can stay on
      // my own turn anyway; it only spares me forced draws until then)
      const double want = l.active ? hit_gain(t, s) : 0.0;
      return s == t.me ? -0.1 * want : want * weight(t, s);
    }
    if (draws > 0) {
      // forced draws: good for a small line, bad for a big one
      double delta = expected_after(t, l, draws, false) - line_value(l, t.rules);
      if (card == "JUST_ONE_MORE" && l.active) delta -= std::max(0.0, hit_gain(t, s));  // then stays
      return s == t.me ? delta : -delta * weight(t, s);
    }
    // an action this bot does not know: aim it at the leader, not at itself
    return s == t.me ? -1e6 : standing(t, s);
  });
}

int give_second_chance(const pb::DecisionRequest& req, const Table& t) {
  // the weakest opponent gains least from it
  return best_index(req, [&](const pb::Option& o) -> double {
    const int s = static_cast<int>(o.seat());
    if (!valid_seat(t, s)) return kNegInf;
    return (s == t.me ? -1e6 : 0.0) - standing(t, s);
  });
}

int give_modifier(const pb::DecisionRequest& req, const Table& t) {
  const CardInfo m = parse_card(req.card());
  return best_index(req, [&](const pb::Option& o) -> double {
    const int s = static_cast<int>(o.seat());
    if (!valid_seat(t, s)) return kNegInf;
    const LineState& l = t.players[s].line;
    const double before = line_value(l, t.rules);
    const double after = line_value(receive(l, m, t.rules), t.rules);
    double damage = before - after;  // > 0: the card hurts its receiver
    const bool harmful = m.op == '-' || m.op == '/';
    if (harmful && l.active && !l.busted) {
      // the card stays in a line that is still growing
      const double later = m.op == '-' ? m.value : (l.sum + 8) / 2.0;
      damage = std::max(damage, 0.6 * later);
    }
    if (s == t.me) return -damage - (harmful ? 0.5 : 0.0);
    return damage * weight(t, s) + 1e-3 * standing(t, s);
  });
}

int steal(const pb::DecisionRequest& req, const Table& t) {
  const Player& me = t.players[t.me];
  const double mine = line_value(me.line, t.rules);
  return best_index(req, [&](const pb::Option& o) -> double {
    if (o.option_case() != pb::Option::kCard) return kNegInf;
    const int s = static_cast<int>(o.card().seat());
    if (!valid_seat(t, s)) return kNegInf;
    const CardInfo c = parse_card(o.card().label());
    const LineState got = receive(me.line, c, t.rules);
    double v = line_value(got, t.rules) - mine;
    if (got.busted) v -= kBustPenalty;
    if (s != t.me) {
      const Player& victim = t.players[s];
      const double loss = line_value(victim.line, t.rules) -
                          line_value(line_without(victim, c.label, t.rules), t.rules);
      v += loss * weight(t, s);
    }
    return v;
  });
}

int discard(const pb::DecisionRequest& req, const Table& t) {
  return best_index(req, [&](const pb::Option& o) -> double {
    if (o.option_case() != pb::Option::kCard) return kNegInf;
    const int s = static_cast<int>(o.card().seat());
    if (!valid_seat(t, s)) return kNegInf;
    const Player& p = t.players[s];
    const double delta = line_value(line_without(p, o.card().label(), t.rules), t.rules) -
                         line_value(p.line, t.rules);
    return s == t.me ? delta : -delta * weight(t, s);
  });
}

int swap(const pb::DecisionRequest& req, const Table& t) {
  return best_index(req, [&](const pb::Option& o) -> double {
    if (o.option_case() != pb::Option::kSwap) return kNegInf;
    const pb::CardRef& a = o.swap().first();   // goes to b's line
    const pb::CardRef& b = o.swap().second();  // goes to a's line
    double v = 0.0;
    for (int side = 0; side < 2; ++side) {
      const pb::CardRef& give = side == 0 ? a : b;
      const pb::CardRef& get = side == 0 ? b : a;
      const int s = static_cast<int>(give.seat());
      if (!valid_seat(t, s)) return kNegInf;
      const Player& p = t.players[s];
      const LineState after =
          receive(line_without(p, give.label(), t.rules), parse_card(get.label()), t.rules);
      const double delta = line_value(after, t.rules) - line_value(p.line, t.rules);
      if (s == t.me) v += delta - (after.busted ? kBustPenalty : 0.0);
      else v -= delta * weight(t, s);
    }
    return v;
  });
}

int flip7_bonus(const pb::DecisionRequest& req, const Table& t) {
  // +15 for me, unless an opponent stays ahead of me even after it: then -15 to them (it
  // may keep them below the target; relative to them both choices are worth the same)
  const Player& me = t.players[t.me];
  const double mine = standing(t, t.me) - (me.line.flip7 ? kFlip7Bonus : 0);
  int self = -1, leader = -1;
  double leader_v = kNegInf;
  for (int i = 0; i < req.options_size(); ++i) {
    const pb::Option& o = req.options(i);
    if (o.option_case() != pb::Option::kFlip7) continue;
    if (o.flip7().bonus_to_self()) {
      if (self < 0) self = i;
      continue;
    }
    const int s = static_cast<int>(o.flip7().penalty_seat());
    if (!valid_seat(t, s) || s == t.me) continue;
    const double v = standing(t, s);
    if (v > leader_v) {
      leader = i;
      leader_v = v;
    }
  }
  if (leader >= 0 && (self < 0 || leader_v > mine + kFlip7Bonus)) return leader;
  return self >= 0 ? self : 0;
}

}  // namespace

// ------------------------------------------------------------------ public helpers
CardInfo parse_card(const std::string& label) {
  CardInfo c;
  c.label = label;
  if (label == "U7") {
    c.kind = Kind::Number;
    c.value = 7;
    c.unlucky = true;
  } else if (label == "L13") {
    c.kind = Kind::Number;
    c.value = 13;
    c.lucky = true;
  } else if (all_digits(label, 0)) {
    c.kind = Kind::Number;
    c.value = std::stoi(label);
  } else if ((label[0] == '+' || label[0] == '-') && all_digits(label, 1)) {
    c.kind = Kind::Modifier;
    c.op = label[0];
    c.value = std::stoi(label.substr(1));
  } else if (label == "x2") {
    c.kind = Kind::Modifier;
    c.op = 'x';
    c.value = 2;
  } else if (label == "/2") {
    c.kind = Kind::Modifier;
    c.op = '/';
    c.value = 2;
  }
  return c;
}

int line_value(const LineState& l, const Rules& r) {
  if (l.busted) return r.brutal ? -l.minus : 0;  // V8: a busted Brutal line keeps its minus
  const int bonus = l.flip7 ? kFlip7Bonus : 0;
  if (!r.vengeance) return (l.sum << l.doubles) + l.plus + bonus;
  if (l.zero && !l.flip7) return 0;  // V3
  int v = (l.sum >> l.halves) - l.minus;
  if (!r.brutal) v = std::max(0, v);
  return v + bonus;
}

bool is_duplicate(const LineState& l, const CardInfo& c, const Rules& r) {
  if (c.kind != Kind::Number) return false;
  if (r.vengeance && c.unlucky) return false;  // V4: never busts
  if (c.value < 0 || c.value >= 32 || !(l.ranks & (1u << c.value))) return false;
  if (r.vengeance && c.value == 13 && l.n13 == 1 && (c.lucky || l.lucky13)) return false;  // V5
  return true;
}

LineState receive(LineState l, const CardInfo& c, const Rules& r) {
  switch (c.kind) {
    case Kind::Number: {
      if (r.vengeance && c.unlucky) {  // V4: only the 7 remains
        LineState w;
        w.sum = 7;
        w.count = 1;
        w.ranks = 1u << 7;
        w.active = l.active;
        return w;
      }
      if (is_duplicate(l, c, r)) {
        if (l.sc) l.sc = false;  // B5: the Second Chance and the duplicate go
        else l.busted = true;
        return l;
      }
      l.sum += c.value;
      l.count += 1;
      if (c.value >= 0 && c.value < 32) l.ranks |= 1u << c.value;
      if (c.value == 13) {
        l.n13 += 1;
        l.lucky13 = l.lucky13 || c.lucky;
      }
      if (r.vengeance && c.value == 0) l.zero = true;
      if (l.count >= kFlip7Cards) l.flip7 = true;
      return l;
    }
    case Kind::Modifier:
      switch (c.op) {
        case '+': l.plus += c.value; break;
        case 'x': l.doubles += 1; break;
        case '-': l.minus += c.value; break;
        case '/': l.halves += 1; break;
        default: break;
      }
      return l;
    case Kind::Action:
      if (!r.vengeance && c.label == "SECOND_CHANCE") l.sc = true;  // a second one is given away
      return l;
  }
  return l;
}

Table make_table(const pb::Observation& obs, uint32_t me) {
  Table t;
  const std::string& variant = obs.ruleset().variant().empty() ? obs.variant() : obs.ruleset().variant();
  t.rules.vengeance = variant == "vengeance";
  t.rules.brutal = obs.ruleset().brutal();
  t.rules.target = obs.ruleset().target_score() > 0 ? obs.ruleset().target_score() : 200;
  t.me = static_cast<int>(me);
  t.players.reserve(obs.players_size());
  for (int i = 0; i < obs.players_size(); ++i) {
    const pb::PlayerView& v = obs.players(i);
    Player p;
    p.seat = i;
    p.status = v.status();
    for (const std::string& s : v.numbers()) p.numbers.push_back(parse_card(s));
    for (const std::string& s : v.modifiers()) p.modifiers.push_back(parse_card(s));
    p.second_chances = static_cast<int>(v.second_chances());
    p.total = v.total();
    p.flip7 = v.flip7();
    p.line = build_line(p.numbers, p.modifiers, p.second_chances > 0, p.status, p.flip7, t.rules);
    t.players.push_back(std::move(p));
  }
  if (t.me >= static_cast<int>(t.players.size())) t.me = 0;

  // What the next cards come from: the draw pile, or the discard pile that an empty draw
  // pile would be reshuffled from (X4). Sorted by label, so sums are reproducible.
  std::map<std::string, int> counts;
  if (obs.deck_size() > 0 && !obs.unseen().empty()) {
    for (const auto& [label, n] : obs.unseen()) counts[label] += static_cast<int>(n);
  } else {
    for (const std::string& label : obs.discard()) counts[label] += 1;
  }
  int neutral = 0;
  for (const auto& [label, n] : counts) {
    if (n <= 0) continue;
    DeckEntry e;
    e.card = parse_card(label);
    e.count = n;
    t.deck_total += n;
    const bool matters = e.card.kind != Kind::Action || (!t.rules.vengeance && label == "SECOND_CHANCE");
    if (!matters) {
      neutral += n;  // actions: the drawer resolves them, no direct change to the line
      continue;
    }
    t.deck.push_back(std::move(e));
  }
  if (neutral > 0) {
    DeckEntry e;
    e.neutral = true;
    e.count = neutral;
    t.deck.push_back(std::move(e));
  }
  return t;
}

double expected_after(const Table& t, const LineState& l, int draws, bool mods_to_self) {
  Search s{t, {}, t.deck_total, mods_to_self};
  s.counts.reserve(t.deck.size());
  for (const DeckEntry& e : t.deck) s.counts.push_back(e.count);
  return s.run(l, draws);
}

double bust_probability(const Table& t, const LineState& l) {
  if (t.deck_total <= 0 || l.sc) return 0.0;
  int bad = 0;
  for (const DeckEntry& e : t.deck)
    if (!e.neutral && is_duplicate(l, e.card, t.rules)) bad += e.count;
  return static_cast<double>(bad) / t.deck_total;
}

double hit_gain(const Table& t, int seat) {
  if (!valid_seat(t, seat) || t.deck_total <= 0) return 0.0;
  const LineState& l = t.players[seat].line;
  const double now = line_value(l, t.rules);
  double gain = expected_after(t, l, 1, modifiers_to_self(t, seat)) - now;
  if (!t.rules.vengeance && !l.sc) {
    // a Second Chance is insurance against a later bust
    for (const DeckEntry& e : t.deck) {
      if (!e.neutral && e.card.label == "SECOND_CHANCE") {
        gain += static_cast<double>(e.count) / t.deck_total * 0.5 * bust_probability(t, l) * now;
      }
    }
  }
  return gain;
}

int choose(const pb::DecisionRequest& req) {
  const int n = req.options_size();
  if (n <= 1) return 0;
  const Table t = make_table(req.observation(), req.seat());
  int index = 0;
  switch (req.kind()) {
    case pb::HIT_OR_STAY: index = hit_or_stay(req, t); break;
    case pb::CHOOSE_TARGET: index = choose_target(req, t); break;
    case pb::GIVE_SECOND_CHANCE: index = give_second_chance(req, t); break;
    case pb::GIVE_MODIFIER: index = give_modifier(req, t); break;
    case pb::STEAL: index = steal(req, t); break;
    case pb::DISCARD: index = discard(req, t); break;
    case pb::SWAP: index = swap(req, t); break;
    case pb::FLIP7_BONUS: index = flip7_bonus(req, t); break;
    default: index = 0; break;
  }
  return (index >= 0 && index < n) ? index : 0;
}

}  // namespace flip7
