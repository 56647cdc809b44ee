// Flip 7 strategy: card counting and expected gain, for every decision kind of both
// variants. Pure functions of one DecisionRequest (the observation in it is complete), so
// it needs no per-game state and can be called for any number of games at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arena/v1/arena.pb.h"

namespace flip7 {

// ------------------------------------------------------------------ cards
enum class Kind : uint8_t { Number, Modifier, Action };

// One card label ("7", "U7", "L13", "+4", "x2", "-6", "/2", "FREEZE", ...), parsed.
struct CardInfo {
  Kind kind = Kind::Action;
  int value = 0;         // numbers: the rank; modifiers: the amount (+n / -n)
  char op = 0;           // modifiers: '+', 'x' (x2), '-', '/' (÷2)
  bool unlucky = false;  // "U7" (Vengeance V4)
  bool lucky = false;    // "L13" (Vengeance V5)
  std::string label;
};

CardInfo parse_card(const std::string& label);

struct Rules {
  bool vengeance = false;
  bool brutal = false;
  int target = 200;
};

// A line reduced to what scoring and bust checks need (cheap to copy in a search).
struct LineState {
  int sum = 0;         // sum of the number cards
  int count = 0;       // number cards held
  uint32_t ranks = 0;  // bit v: a card of rank v is held
  int n13 = 0;         // 13s held (Lucky 13 pairs)
  bool lucky13 = false;
  bool zero = false;   // Vengeance: The Zero held (V3)
  bool sc = false;     // base: a Second Chance held
  int doubles = 0;     // base: x2 cards
  int plus = 0;        // base: sum of + cards
  int halves = 0;      // Vengeance: ÷2 cards
  int minus = 0;       // Vengeance: sum of minus cards
  bool busted = false;
  bool flip7 = false;
  bool active = true;  // still drawing this round
};

// One player's public line, card by card (for Steal / Discard / Swap).
struct Player {
  int seat = 0;
  arena::v1::PlayerStatus status = arena::v1::ACTIVE;
  std::vector<CardInfo> numbers;
  std::vector<CardInfo> modifiers;
  int second_chances = 0;
  int total = 0;
  bool flip7 = false;
  LineState line;  // built from the cards above
};

struct DeckEntry {
  CardInfo card;  // for merged "neutral" entries only kind matters
  int count = 0;
  bool neutral = false;  // drawing it changes nothing for the drawer in this model
};

// Everything the strategy reads, from one observation.
struct Table {
  Rules rules;
  int me = 0;
  std::vector<Player> players;
  std::vector<DeckEntry> deck;  // what the next cards come from
  int deck_total = 0;
};

Table make_table(const arena::v1::Observation& obs, uint32_t me);

// Scoring (B7, V6, V8): what the line banks if the round ended now.
int line_value(const LineState& l, const Rules& r);
// The line after receiving one number or modifier card (bust, Second Chance, Unlucky 7,
// Lucky 13, The Zero, Flip 7 all applied).
LineState receive(LineState l, const CardInfo& c, const Rules& r);
// Would receiving this number bust the line?
bool is_duplicate(const LineState& l, const CardInfo& c, const Rules& r);
// Expected line value after `draws` forced draws from the deck (exact over the multiset).
double expected_after(const Table& t, const LineState& l, int draws, bool modifiers_to_self);
// Expected change of the line value from one more card (> 0: worth a hit).
double hit_gain(const Table& t, int seat);
// Probability that the next card busts the line.
double bust_probability(const Table& t, const LineState& l);

// ------------------------------------------------------------------ decisions
// The option index to answer (always within range).
int choose(const arena::v1::DecisionRequest& req);

}  // namespace flip7
