package main

import (
	"math/rand"
	"strconv"
	"testing"
	"time"

	pb "flip7arena/arena/v1"
)

var (
	base      = Rules{Target: 200, Seats: 3}
	vengeance = Rules{Vengeance: true, Target: 200, Seats: 3}
	brutalV   = Rules{Vengeance: true, Brutal: true, Target: 200, Seats: 3}
)

func TestScore(t *testing.T) {
	cases := []struct {
		name     string
		r        Rules
		nums     []string
		mods     []string
		want     int
		busted   bool
		wantFlip bool
	}{
		{"base sum", base, []string{"3", "12", "0"}, nil, 15, false, false},
		{"base x2 before +", base, []string{"5", "6"}, []string{"+4", "x2"}, 26, false, false},
		{"base modifiers only", base, nil, []string{"+10", "x2"}, 10, false, false},
		{"base flip 7", base, []string{"0", "1", "2", "3", "4", "5", "6"}, nil, 36, false, true},
		{"base busted", base, []string{"5"}, []string{"+4"}, 0, true, false},
		{"vengeance halves then minus", vengeance, []string{"9", "8"}, []string{"/2", "-4"}, 4, false, false},
		{"vengeance floor 0", vengeance, []string{"3"}, []string{"-10"}, 0, false, false},
		{"vengeance brutal below 0", brutalV, []string{"3"}, []string{"-10"}, -7, false, false},
		{"vengeance the zero", vengeance, []string{"0", "12"}, nil, 0, false, false},
		{"vengeance zero with flip 7", vengeance, []string{"0", "1", "2", "3", "4", "5", "6"}, nil, 36, false, true},
		{"vengeance lucky pair", vengeance, []string{"13", "L13"}, nil, 26, false, false},
		{"brutal busted minus", brutalV, []string{"5"}, []string{"-6", "-2"}, -8, true, false},
	}
	for _, c := range cases {
		l := buildLine(c.nums, c.mods, c.r)
		l.Busted = c.busted
		if got := l.Score(c.r); got != c.want {
			t.Errorf("%s: score %d, want %d", c.name, got, c.want)
		}
		if l.Flip7 != c.wantFlip {
			t.Errorf("%s: flip7 %v, want %v", c.name, l.Flip7, c.wantFlip)
		}
	}
}

func TestReceive(t *testing.T) {
	l := buildLine([]string{"5", "7"}, []string{"-4"}, vengeance)
	if nl := l.Receive(parseCard("U7"), vengeance, false); nl.N != 1 || nl.Sum != 7 || nl.Minus != 0 || nl.Busted {
		t.Errorf("Unlucky 7 should wipe the line: %+v", nl)
	}
	if nl := l.Receive(parseCard("7"), vengeance, false); !nl.Busted {
		t.Errorf("a second 7 busts")
	}
	thirteen := buildLine([]string{"13"}, nil, vengeance)
	if nl := thirteen.Receive(parseCard("L13"), vengeance, false); nl.Busted || nl.N != 2 {
		t.Errorf("Lucky 13 pairs with a 13: %+v", nl)
	}
	pair := buildLine([]string{"13", "L13"}, nil, vengeance)
	if nl := pair.Receive(parseCard("13"), vengeance, false); !nl.Busted {
		t.Errorf("a third 13 busts")
	}
	sc := buildLine([]string{"4"}, nil, base)
	sc.SC = true
	if nl := sc.Receive(parseCard("4"), base, true); nl.Busted || nl.SC || nl.N != 1 {
		t.Errorf("a Second Chance absorbs the duplicate: %+v", nl)
	}
	if nl := l.Receive(parseCard("-6"), vengeance, false); nl.Minus != 4 {
		t.Errorf("a drawn Vengeance modifier is given away")
	}
	if nl := l.Receive(parseCard("-6"), vengeance, true); nl.Minus != 10 {
		t.Errorf("a stolen modifier stays")
	}
	if got := swapArrive([]string{"5", "9"}, nil, "9", "5", vengeance); !got.Busted {
		t.Errorf("swapping in a duplicate busts")
	}
}

// --------------------------------------------------------------------------- requests

func deckCounts(r Rules) map[string]uint32 {
	m := map[string]uint32{"0": 1}
	if !r.Vengeance {
		for n := 1; n <= 12; n++ {
			m[strconv.Itoa(n)] = uint32(n)
		}
		for _, lb := range []string{"+2", "+4", "+6", "+8", "+10", "x2"} {
			m[lb] = 1
		}
		m["FREEZE"], m["FLIP_THREE"], m["SECOND_CHANCE"] = 3, 3, 3
		return m
	}
	for n := 1; n <= 13; n++ {
		m[strconv.Itoa(n)] = uint32(n)
	}
	m["7"], m["U7"], m["13"], m["L13"] = 6, 1, 12, 1
	for _, lb := range []string{"/2", "-2", "-4", "-6", "-8", "-10"} {
		m[lb] = 1
	}
	for _, lb := range []string{"JUST_ONE_MORE", "FLIP_FOUR", "STEAL", "SWAP", "DISCARD"} {
		m[lb] = 2
	}
	return m
}

// randomTable deals each seat a few distinct cards from the deck.
func randomTable(rng *rand.Rand, r Rules, seats int) *pb.Observation {
	counts := deckCounts(r)
	variant := "base"
	if r.Vengeance {
		variant = "vengeance"
	}
	obs := &pb.Observation{
		Variant: variant,
		Ruleset: &pb.Ruleset{Variant: variant, Brutal: r.Brutal, TargetScore: 200},
		Seats:   uint32(seats),
		Unseen:  counts,
	}
	for s := 0; s < seats; s++ {
		pv := &pb.PlayerView{Seat: uint32(s), Status: pb.PlayerStatus_ACTIVE, Total: int32(rng.Intn(190))}
		switch rng.Intn(6) {
		case 0:
			pv.Status = pb.PlayerStatus_STAYED
		case 1:
			pv.Status = pb.PlayerStatus_BUSTED
		}
		held := map[int]bool{}
		for k := rng.Intn(7); k > 0; k-- {
			v := rng.Intn(13)
			if held[v] {
				continue
			}
			held[v] = true
			lb := strconv.Itoa(v)
			if counts[lb] == 0 {
				continue
			}
			counts[lb]--
			pv.Numbers = append(pv.Numbers, lb)
		}
		if rng.Intn(3) == 0 {
			for lb, c := range counts {
				if c > 0 && cardKind(lb) == kindModifier {
					counts[lb]--
					pv.Modifiers = append(pv.Modifiers, lb)
					break
				}
			}
		}
		pv.LineScore = int32(buildLine(pv.Numbers, pv.Modifiers, r).Score(r))
		obs.Players = append(obs.Players, pv)
	}
	return obs
}

func request(obs *pb.Observation, kind pb.DecisionKind, card string) *pb.DecisionRequest {
	req := &pb.DecisionRequest{Seat: 0, Kind: kind, Card: card, Observation: obs}
	var cards []*pb.CardRef
	for _, pv := range obs.Players {
		if pv.Status == pb.PlayerStatus_BUSTED {
			continue
		}
		for _, lb := range append(append([]string{}, pv.Numbers...), pv.Modifiers...) {
			cards = append(cards, &pb.CardRef{Seat: pv.Seat, Label: lb})
		}
	}
	seat := func(s uint32) *pb.Option { return &pb.Option{Option: &pb.Option_Seat{Seat: s}} }
	switch kind {
	case pb.DecisionKind_HIT_OR_STAY:
		req.Options = []*pb.Option{{Option: &pb.Option_Move{Move: pb.Move_HIT}}, {Option: &pb.Option_Move{Move: pb.Move_STAY}}}
	case pb.DecisionKind_CHOOSE_TARGET, pb.DecisionKind_GIVE_MODIFIER, pb.DecisionKind_GIVE_SECOND_CHANCE:
		for _, pv := range obs.Players {
			if pv.Status != pb.PlayerStatus_BUSTED {
				req.Options = append(req.Options, seat(pv.Seat))
			}
		}
	case pb.DecisionKind_STEAL, pb.DecisionKind_DISCARD:
		for _, c := range cards {
			if kind == pb.DecisionKind_STEAL && c.Seat == 0 {
				continue
			}
			req.Options = append(req.Options, &pb.Option{Option: &pb.Option_Card{Card: c}})
		}
	case pb.DecisionKind_SWAP:
		for i := range cards {
			for j := i + 1; j < len(cards); j++ {
				if cards[i].Seat != cards[j].Seat {
					req.Options = append(req.Options, &pb.Option{Option: &pb.Option_Swap{Swap: &pb.SwapPair{First: cards[i], Second: cards[j]}}})
				}
			}
		}
	case pb.DecisionKind_FLIP7_BONUS:
		req.Options = append(req.Options, &pb.Option{Option: &pb.Option_Flip7{Flip7: &pb.Flip7Choice{BonusToSelf: true}}})
		for s := 1; s < len(obs.Players); s++ {
			req.Options = append(req.Options, &pb.Option{Option: &pb.Option_Flip7{Flip7: &pb.Flip7Choice{PenaltySeat: uint32(s)}}})
		}
	}
	return req
}

func TestDecideAlwaysLegalAndFast(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	kinds := []struct {
		kind pb.DecisionKind
		card string
	}{
		{pb.DecisionKind_HIT_OR_STAY, ""},
		{pb.DecisionKind_CHOOSE_TARGET, "FREEZE"},
		{pb.DecisionKind_CHOOSE_TARGET, "FLIP_THREE"},
		{pb.DecisionKind_CHOOSE_TARGET, "FLIP_FOUR"},
		{pb.DecisionKind_CHOOSE_TARGET, "JUST_ONE_MORE"},
		{pb.DecisionKind_GIVE_SECOND_CHANCE, "SECOND_CHANCE"},
		{pb.DecisionKind_GIVE_MODIFIER, "/2"},
		{pb.DecisionKind_GIVE_MODIFIER, "-10"},
		{pb.DecisionKind_STEAL, "STEAL"},
		{pb.DecisionKind_DISCARD, "DISCARD"},
		{pb.DecisionKind_SWAP, "SWAP"},
		{pb.DecisionKind_FLIP7_BONUS, ""},
	}
	var worst time.Duration
	worstWhat := ""
	for _, r := range []Rules{base, vengeance, brutalV} {
		for _, seats := range []int{1, 2, 4, 18} {
			for trial := 0; trial < 20; trial++ {
				obs := randomTable(rng, r, seats)
				obs.Players[0].Status = pb.PlayerStatus_ACTIVE
				for _, k := range kinds {
					req := request(obs, k.kind, k.card)
					if len(req.Options) == 0 {
						continue
					}
					start := time.Now()
					i, _, err := Decide(req)
					if d := time.Since(start); d > worst {
						worst, worstWhat = d, k.kind.String()+" "+k.card+" seats "+strconv.Itoa(seats)
					}
					if i < 0 || i >= len(req.Options) {
						t.Fatalf("%v: index %d of %d", k.kind, i, len(req.Options))
					}
					if err != nil {
						t.Fatalf("%v %s: %v", k.kind, k.card, err)
					}
				}
			}
		}
	}
	t.Logf("slowest decision: %v (%s)", worst, worstWhat)
	if worst > 200*time.Millisecond {
		t.Errorf("slowest decision took %v (%s)", worst, worstWhat)
	}
}

func TestHitOrStay(t *testing.T) {
	obs := &pb.Observation{Variant: "base", Seats: 1, Unseen: deckCounts(base),
		Ruleset: &pb.Ruleset{Variant: "base", TargetScore: 200}}
	decide := func(nums ...string) pb.Move {
		obs.Players = []*pb.PlayerView{{Seat: 0, Status: pb.PlayerStatus_ACTIVE, Numbers: nums}}
		req := request(obs, pb.DecisionKind_HIT_OR_STAY, "")
		i, _, _ := Decide(req)
		return req.Options[i].GetMove()
	}
	if m := decide("3"); m != pb.Move_HIT {
		t.Errorf("a line of 3 should hit")
	}
	if m := decide("12", "11", "10"); m != pb.Move_STAY {
		t.Errorf("a line of 33 should stay")
	}
}

func TestGiveModifierNeverSelf(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 200; trial++ {
		obs := randomTable(rng, vengeance, 4)
		obs.Players[0].Status = pb.PlayerStatus_ACTIVE
		req := request(obs, pb.DecisionKind_GIVE_MODIFIER, "-6")
		i, _, _ := Decide(req)
		if req.Options[i].GetSeat() == 0 && len(req.Options) > 1 {
			t.Fatalf("gave -6 to myself with %d options", len(req.Options))
		}
	}
}

func BenchmarkFlipFour18(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	obs := randomTable(rng, vengeance, 18)
	req := request(obs, pb.DecisionKind_CHOOSE_TARGET, "FLIP_FOUR")
	for i := 0; i < b.N; i++ {
		Decide(req)
	}
}

func BenchmarkHit(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	obs := randomTable(rng, vengeance, 4)
	obs.Players[0].Status = pb.PlayerStatus_ACTIVE
	req := request(obs, pb.DecisionKind_HIT_OR_STAY, "")
	for i := 0; i < b.N; i++ {
		Decide(req)
	}
}
