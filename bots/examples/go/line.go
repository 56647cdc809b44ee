package main

// The rules model: a player's line, what it scores (docs/rules.md B7, V6, V8) and what happens
// to it when a card arrives (X7, X8, B5, V3, V4, V5). Everything here is pure and cheap, so
// the strategy can evaluate thousands of hypothetical lines per decision.

import (
	"strconv"
	"strings"
)

// flip7Cards is the number of number cards that make a Flip 7 (X8); flip7Bonus its bonus.
const (
	flip7Cards = 7
	flip7Bonus = 15
)

// Rules are the parts of the ruleset the strategy needs.
type Rules struct {
	Vengeance bool // "vengeance" (Flip 7: With a Vengeance), else "base"
	Brutal    bool // V8
	Target    int  // the game ends after a round in which someone reaches this total
	Seats     int  // seats at the table
}

// Card kinds, from the label.
const (
	kindNumber = iota
	kindModifier
	kindAction
)

// cardKind classifies a card label: "0".."13", "U7", "L13" are numbers; "+n", "-n", "x2",
// "/2" modifiers; everything else ("FREEZE", "FLIP_THREE", "STEAL", ...) an action.
func cardKind(label string) int {
	if _, ok := numberValue(label); ok {
		return kindNumber
	}
	if label == "x2" || label == "/2" || strings.HasPrefix(label, "+") || strings.HasPrefix(label, "-") {
		return kindModifier
	}
	return kindAction
}

// numberValue is the face value of a number card label ("U7" is 7, "L13" is 13).
func numberValue(label string) (int, bool) {
	switch label {
	case "U7":
		return 7, true
	case "L13":
		return 13, true
	}
	if label == "" || label[0] < '0' || label[0] > '9' {
		return 0, false
	}
	v, err := strconv.Atoi(label)
	if err != nil || v < 0 || v > 15 {
		return 0, false
	}
	return v, true
}

// modifierAmount is n for "+n" / "-n" (0 for "x2" and "/2").
func modifierAmount(label string) int {
	if len(label) < 2 {
		return 0
	}
	v, err := strconv.Atoi(label[1:])
	if err != nil {
		return 0
	}
	return v
}

// Line is a player's cards reduced to what matters for scoring and busting. It is a plain
// comparable value (usable as a map key); "changing" it means returning a modified copy.
type Line struct {
	Mask   uint16 // number ranks held (bit v for value v)
	Sum    int    // sum of the number cards
	N      int    // number cards held (toward Flip 7)
	N13    int    // 13s held (two allowed with the Lucky 13, V5)
	L13    bool   // holds the Lucky 13
	Zero   bool   // Vengeance: holds The Zero (V3)
	SC     bool   // base: holds a Second Chance (B5)
	Add    int    // base: sum of the + modifiers
	Mult   int    // base: 2^(number of x2)
	Halves int    // Vengeance: number of ÷2 cards
	Minus  int    // Vengeance: sum of the minus cards
	Flip7  bool   // made Flip 7 this round
	Busted bool   // busted this round
	Mods   int    // modifier cards held (a line of modifiers only still scores them)
}

// emptyLine is a line with no cards.
func emptyLine() Line { return Line{Mult: 1} }

// buildLine folds a player's face-up labels into a Line (no bust checks: the line is
// whatever the arena says it is).
func buildLine(numbers, modifiers []string, r Rules) Line {
	l := emptyLine()
	for _, lb := range numbers {
		v, ok := numberValue(lb)
		if !ok {
			continue
		}
		l = l.addNumber(lb, v, r)
	}
	for _, lb := range modifiers {
		l = l.addModifier(lb)
	}
	return l
}

func (l Line) addNumber(label string, v int, r Rules) Line {
	l.Mask |= 1 << uint(v)
	l.Sum += v
	l.N++
	if v == 13 {
		l.N13++
		if label == "L13" {
			l.L13 = true
		}
	}
	if v == 0 && r.Vengeance {
		l.Zero = true
	}
	if l.N >= flip7Cards {
		l.Flip7 = true
	}
	return l
}

func (l Line) addModifier(label string) Line {
	switch {
	case label == "x2":
		l.Mult *= 2
	case label == "/2":
		l.Halves++
	case strings.HasPrefix(label, "+"):
		l.Add += modifierAmount(label)
	case strings.HasPrefix(label, "-"):
		l.Minus += modifierAmount(label)
	default:
		return l
	}
	l.Mods++
	return l
}

// wouldBust says whether receiving this number busts the line (before any Second Chance):
// a rank already held, except the Unlucky 7 (V4) and the Lucky 13 pair (V5).
func (l Line) wouldBust(label string, v int, r Rules) bool {
	if l.Mask&(1<<uint(v)) == 0 {
		return false
	}
	if r.Vengeance && label == "U7" {
		return false
	}
	if v == 13 && l.N13 == 1 && (l.L13 || label == "L13") {
		return false
	}
	return true
}

// Card is a parsed card label.
type Card struct {
	Label string
	Kind  int // kindNumber, kindModifier or kindAction
	Value int // numbers: face value
}

// parseCard parses a label once, so hypothetical draws do no string work.
func parseCard(label string) Card {
	c := Card{Label: label, Kind: cardKind(label)}
	if c.Kind == kindNumber {
		c.Value, _ = numberValue(label)
	}
	return c
}

// Receive is the line after a card arrives in it. keepModifiers says whether a modifier
// stays in this line: always in the base game and for cards that arrive by Steal or Swap;
// a Vengeance modifier that is drawn is given away by its receiver (V6), so for a drawn
// one the caller passes false unless the player would have to keep it. Action cards leave
// the line as it is, except a first Second Chance (B5).
func (l Line) Receive(c Card, r Rules, keepModifiers bool) Line {
	if l.Busted {
		return l
	}
	switch c.Kind {
	case kindNumber:
		if r.Vengeance && c.Label == "U7" { // V4: only this 7 remains
			nl := emptyLine()
			return nl.addNumber(c.Label, 7, r)
		}
		if l.wouldBust(c.Label, c.Value, r) {
			if !r.Vengeance && l.SC { // B5: the Second Chance absorbs the duplicate
				l.SC = false
				return l
			}
			l.Busted = true
			return l
		}
		return l.addNumber(c.Label, c.Value, r)
	case kindModifier:
		if keepModifiers || !r.Vengeance {
			return l.addModifier(c.Label)
		}
		return l
	}
	if c.Label == "SECOND_CHANCE" {
		l.SC = true // a second one is passed on (B5): the line is the same
	}
	return l
}

// Score is what the line banks if the round ended now (engine.scoring.line_value).
func (l Line) Score(r Rules) int {
	if l.Busted {
		if r.Brutal {
			return -l.Minus // V8: a busted player scores the minus cards
		}
		return 0
	}
	if l.N == 0 && l.Mods == 0 {
		return 0
	}
	var v int
	if r.Vengeance {
		if l.Zero && !l.Flip7 {
			v = 0 // V3
		} else {
			v = (l.Sum >> uint(l.Halves)) - l.Minus
			if v < 0 && !r.Brutal {
				v = 0
			}
		}
	} else {
		v = l.Sum*l.Mult + l.Add // B7: ×2 on the numbers only, then the + cards
	}
	if l.Flip7 {
		v += flip7Bonus
	}
	return v
}

// withoutCard rebuilds a line from labels minus one card (labels are unique in a line).
func withoutCard(numbers, modifiers []string, label string, r Rules) Line {
	return buildLine(drop(numbers, label), drop(modifiers, label), r)
}

func drop(labels []string, label string) []string {
	out := make([]string, 0, len(labels))
	removed := false
	for _, lb := range labels {
		if !removed && lb == label {
			removed = true
			continue
		}
		out = append(out, lb)
	}
	return out
}

// swapArrive is the line after its own card `give` leaves and `get` arrives by Swap (V7):
// the arriving card takes effect (an Unlucky 7 wipes the line), then duplicates bust.
func swapArrive(numbers, modifiers []string, give, get string, r Rules) Line {
	nums := drop(numbers, give)
	mods := drop(modifiers, give)
	if r.Vengeance && get == "U7" {
		return buildLine([]string{"U7"}, nil, r)
	}
	l := buildLine(nums, mods, r)
	if v, ok := numberValue(get); ok {
		if l.wouldBust(get, v, r) {
			l.Busted = true
			return l
		}
		return l.addNumber(get, v, r)
	}
	return l.addModifier(get)
}
