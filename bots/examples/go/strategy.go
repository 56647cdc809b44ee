package main

// The strategy: card counting plus a short look-ahead.
//
// Every request carries the draw pile as a multiset (observation.unseen). From it the bot
// knows the chance of each next card, and with the rules model (line.go) the value of a line
// after that card. A line's value is "stop or go on, whichever is worth more", looked ahead a
// few hits (stopValue). HIT while one more card is worth more than the line now.
//
// Every other decision is scored the same way: the change it makes to each affected
// player's line value, counted for me as is and against an opponent weighted by how
// dangerous that opponent is (their game total plus line, the leader a little more).

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	pb "flip7arena/arena/v1"
)

const (
	lookahead  = 3   // voluntary hits looked ahead when valuing a line
	afterDraws = 1   // hits looked ahead after a Flip Three / Flip Four
	bustPenal  = 1e6 // "never do this to yourself" (still legal when nothing else is)
	avoidSelf  = 1e9 // never give yourself a minus card when someone else can take it
)

type odds struct {
	card Card
	p    float64
}

type seatState struct {
	view   *pb.PlayerView
	line   Line
	status pb.PlayerStatus
	total  int
	score  int // the arena's line_score
}

// table is one request's view of the game, with memoised line values.
type table struct {
	r     Rules
	me    int
	seats []seatState
	odds  []odds
	memo  map[uint64]float64
	steal []float64 // best Steal gain per seat (computed on demand)
}

func newTable(obs *pb.Observation, me int) *table {
	t := &table{me: me, memo: make(map[uint64]float64, 1024)}
	variant := obs.GetVariant()
	if rs := obs.GetRuleset(); rs != nil {
		if rs.GetVariant() != "" {
			variant = rs.GetVariant()
		}
		t.r.Brutal = rs.GetBrutal()
		t.r.Target = int(rs.GetTargetScore())
	}
	if t.r.Target <= 0 {
		t.r.Target = 200
	}
	t.r.Vengeance = variant == "vengeance"
	n := int(obs.GetSeats())
	for _, pv := range obs.GetPlayers() {
		if int(pv.GetSeat())+1 > n {
			n = int(pv.GetSeat()) + 1
		}
	}
	if me+1 > n {
		n = me + 1
	}
	t.r.Seats = n
	t.seats = make([]seatState, n)
	for i := range t.seats {
		t.seats[i].line = emptyLine()
		t.seats[i].status = pb.PlayerStatus_BUSTED // unknown seats: out of reach
	}
	for _, pv := range obs.GetPlayers() {
		s := int(pv.GetSeat())
		l := buildLine(pv.GetNumbers(), pv.GetModifiers(), t.r)
		l.SC = pv.GetSecondChances() > 0
		l.Busted = pv.GetStatus() == pb.PlayerStatus_BUSTED
		l.Flip7 = l.Flip7 || pv.GetFlip7()
		t.seats[s] = seatState{
			view:   pv,
			line:   l,
			status: pv.GetStatus(),
			total:  int(pv.GetTotal()),
			score:  int(pv.GetLineScore()),
		}
	}
	// the draw pile; when it is empty the next draw reshuffles the discard pile (X4)
	counts := obs.GetUnseen()
	if len(counts) == 0 || sumCounts(counts) == 0 {
		counts = map[string]uint32{}
		for _, lb := range obs.GetDiscard() {
			counts[lb]++
		}
	}
	labels := make([]string, 0, len(counts))
	total := 0
	for lb, c := range counts {
		if c > 0 {
			labels = append(labels, lb)
			total += int(c)
		}
	}
	sort.Strings(labels) // a fixed order: the same sums on every run
	for _, lb := range labels {
		t.odds = append(t.odds, odds{parseCard(lb), float64(counts[lb]) / float64(total)})
	}
	return t
}

func sumCounts(m map[string]uint32) int {
	n := 0
	for _, c := range m {
		n += int(c)
	}
	return n
}

func (t *table) valid(s int) bool { return s >= 0 && s < len(t.seats) }

// keeps says whether a Vengeance modifier drawn by seat s would stay in its own line:
// only when nobody else may receive it (V6: any non-busted player; any player in Brutal).
func (t *table) keeps(s int) bool {
	if !t.r.Vengeance {
		return true
	}
	for o := range t.seats {
		if o != s && (t.r.Brutal || t.seats[o].status != pb.PlayerStatus_BUSTED) {
			return false
		}
	}
	return true
}

// expect is the expected f(next line) over the next card. Draws that bust are one branch
// (a busted line is a busted line), and so are draws that leave the line as it is
// (actions, Vengeance modifiers given away): far fewer lines to look at.
func (t *table) expect(l Line, keep bool, f func(Line) float64) float64 {
	e, pBust, pSame := 0.0, 0.0, 0.0
	for _, o := range t.odds {
		c := o.card
		switch c.Kind {
		case kindNumber:
			if t.r.Vengeance && c.Label == "U7" {
				break
			}
			if l.wouldBust(c.Label, c.Value, t.r) && (t.r.Vengeance || !l.SC) {
				pBust += o.p
				continue
			}
		case kindModifier:
			if t.r.Vengeance && !keep {
				pSame += o.p
				continue
			}
		default:
			if c.Label != "SECOND_CHANCE" || t.r.Vengeance || l.SC {
				pSame += o.p
				continue
			}
		}
		e += o.p * f(l.Receive(c, t.r, keep))
	}
	if pBust > 0 {
		b := l
		b.Busted = true
		e += pBust * f(b)
	}
	if pSame > 0 {
		e += pSame * f(l)
	}
	return e
}

// key packs a line and the look-ahead parameters into a memo key.
func (l Line) key(a, b int, keep bool, which uint64) uint64 {
	k := uint64(l.Mask)                 // 14 bits
	k = k<<7 | uint64(l.Sum&127)        // 7
	k = k<<2 | uint64(l.N13&3)          // 2
	k = k<<4 | uint64(l.N&15)           // 4
	k = k<<6 | uint64(l.Add&63)         // 6
	k = k<<6 | uint64(l.Minus&63)       // 6
	k = k<<2 | uint64(bitsOf(l.Mult)&3) // 2
	k = k<<2 | uint64(l.Halves&3)       // 2
	k = k<<3 | uint64(l.Mods&7)         // 3
	k = k<<1 | b2u(l.L13)
	k = k<<1 | b2u(l.Zero)
	k = k<<1 | b2u(l.SC)
	k = k<<1 | b2u(l.Flip7)
	k = k<<1 | b2u(l.Busted) // 51 bits so far
	k = k<<3 | uint64(a&7)
	k = k<<3 | uint64(b&7)
	k = k<<1 | b2u(keep)
	return k<<2 | which&3 // 60 bits
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func bitsOf(mult int) int {
	n := 0
	for mult > 1 {
		mult >>= 1
		n++
	}
	return n
}

// stopValue is the line's worth when its owner may hit up to d more times and stops when
// that is better (The Zero forbids stopping, V3).
func (t *table) stopValue(l Line, d int, keep bool) float64 {
	s := float64(l.Score(t.r))
	if d <= 0 || l.Busted || l.Flip7 || len(t.odds) == 0 {
		return s
	}
	key := l.key(d, 0, keep, 1)
	if v, ok := t.memo[key]; ok {
		return v
	}
	e := t.expect(l, keep, func(n Line) float64 { return t.stopValue(n, d-1, keep) })
	v := e
	mayStop := !(t.r.Vengeance && l.Zero) && (l.N > 0 || l.Mods > 0 || l.SC)
	if mayStop && s > e {
		v = s
	}
	t.memo[key] = v
	return v
}

// forcedValue is the line's worth after k forced draws (Flip Three, Flip Four, Just One
// More!), which stop early on a bust or Flip 7; then up to cont voluntary hits.
func (t *table) forcedValue(l Line, k, cont int, keep bool) float64 {
	if k <= 0 || l.Busted || l.Flip7 || len(t.odds) == 0 {
		if cont > 0 {
			return t.stopValue(l, cont, keep)
		}
		return float64(l.Score(t.r))
	}
	key := l.key(k, cont, keep, 2)
	if v, ok := t.memo[key]; ok {
		return v
	}
	e := t.expect(l, keep, func(n Line) float64 { return t.forcedValue(n, k-1, cont, keep) })
	t.memo[key] = e
	return e
}

// value is what a (possibly hypothetical) line of seat s is worth: an active player may
// still draw, everyone else banks it.
func (t *table) value(s int, l Line, depth int) float64 {
	if t.seats[s].status == pb.PlayerStatus_ACTIVE && !l.Busted {
		return t.stopValue(l, depth, t.keeps(s))
	}
	return float64(l.Score(t.r))
}

// hitGain is the expected gain of one more card for seat s over stopping now, and the
// chance that this card busts.
func (t *table) hitGain(s int) (gain, pBust float64) {
	l := t.seats[s].line
	keep := t.keeps(s)
	e := 0.0
	for _, o := range t.odds {
		nl := l.Receive(o.card, t.r, keep)
		if nl.Busted {
			pBust += o.p
		}
		e += o.p * t.stopValue(nl, lookahead-1, keep)
		if o.card.Label == "STEAL" {
			e += o.p * t.stealGain(s)
		}
	}
	return e - float64(l.Score(t.r)), pBust
}

// stealGain is the most seat s could add to its own line with a Steal without busting.
func (t *table) stealGain(s int) float64 {
	if t.steal == nil {
		t.steal = make([]float64, len(t.seats))
		for i := range t.steal {
			t.steal[i] = -1
		}
	}
	if t.steal[s] >= 0 {
		return t.steal[s]
	}
	mine := t.seats[s].line
	cur := float64(mine.Score(t.r))
	best := 0.0
	for o, st := range t.seats {
		if o == s || st.status == pb.PlayerStatus_BUSTED || st.view == nil {
			continue
		}
		for _, lb := range append(append([]string{}, st.view.GetNumbers()...), st.view.GetModifiers()...) {
			nl := mine.Receive(parseCard(lb), t.r, true)
			if !nl.Busted && float64(nl.Score(t.r))-cur > best {
				best = float64(nl.Score(t.r)) - cur
			}
		}
	}
	t.steal[s] = best
	return best
}

// natural is what seat s can expect from its line if nobody interferes.
func (t *table) natural(s int) float64 {
	return t.value(s, t.seats[s].line, lookahead)
}

func (t *table) standing(s int) int { return t.seats[s].total + t.seats[s].score }

// weight says how much hurting seat s is worth per point: more the higher its standing,
// a little more for the leading opponent.
func (t *table) weight(s int) float64 {
	st := t.standing(s)
	w := 1.0
	if st > 0 {
		w += float64(st) / 100
	}
	lead := true
	for o := range t.seats {
		if o != t.me && o != s && t.seats[o].view != nil && t.standing(o) > st {
			lead = false
			break
		}
	}
	if lead {
		w += 0.25
	}
	return w
}

// lineWithout is seat s's line after one of its cards leaves it.
func (t *table) lineWithout(s int, label string) Line {
	st := t.seats[s]
	if st.view == nil {
		return st.line
	}
	l := withoutCard(st.view.GetNumbers(), st.view.GetModifiers(), label, t.r)
	l.SC = st.line.SC
	l.Busted = st.line.Busted
	return l
}

// ----------------------------------------------------------------------------- decisions

// Decide returns the index of the option to answer and why it was chosen. It never panics
// and never returns an index out of range: when the strategy panics, or picks an index that
// is not one of the options, Decide returns 0 and err says what went wrong and where (the
// client reports it to the arena in Answer.error).
func Decide(req *pb.DecisionRequest) (index int, why string, err error) {
	return decideWith(choose, req)
}

// decideWith is Decide with another strategy in place of choose.
func decideWith(choose func(*pb.DecisionRequest) (int, string), req *pb.DecisionRequest) (index int, why string, err error) {
	n := len(req.GetOptions())
	if n <= 1 || req.GetObservation() == nil {
		return 0, "single option", nil
	}
	defer func() {
		if rec := recover(); rec != nil {
			index, why, err = 0, "the strategy failed", fmt.Errorf("panic: %v%s", rec, panicSite())
			return
		}
		if index < 0 || index >= n {
			err = fmt.Errorf("the strategy chose %d of %d options (%s)", index, n, why)
			index, why = 0, "the strategy failed"
		}
	}()
	index, why = choose(req)
	return index, why, nil
}

// panicSite is " (file.go:123)": the innermost line of the bot's own code (this package)
// under the panic being recovered (else the first line outside the runtime), or "" when it
// is not found. Called from the deferred function that recovers the panic.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	where, own := "", ""
	for {
		f, more := frames.Next()
		if own == "" { // the first frame is panicSite itself: its package is the bot's
			own = strings.TrimSuffix(f.Function, "panicSite")
		}
		if panicking && !strings.HasPrefix(f.Function, "runtime.") {
			site := fmt.Sprintf(" (%s:%d)", filepath.Base(f.File), f.Line)
			if strings.HasPrefix(f.Function, own) {
				return site
			}
			if where == "" {
				where = site
			}
		}
		if f.Function == "runtime.gopanic" {
			panicking = true
		}
		if !more {
			return where
		}
	}
}

// choose is the strategy: one function per decision kind.
func choose(req *pb.DecisionRequest) (int, string) {
	t := newTable(req.GetObservation(), int(req.GetSeat()))
	switch req.GetKind() {
	case pb.DecisionKind_HIT_OR_STAY:
		return t.hitOrStay(req.GetOptions())
	case pb.DecisionKind_CHOOSE_TARGET:
		return t.chooseTarget(req.GetCard(), req.GetOptions())
	case pb.DecisionKind_GIVE_SECOND_CHANCE:
		return t.giveSecondChance(req.GetOptions())
	case pb.DecisionKind_GIVE_MODIFIER:
		return t.giveModifier(req.GetCard(), req.GetOptions())
	case pb.DecisionKind_STEAL:
		return t.steal1(req.GetOptions())
	case pb.DecisionKind_DISCARD:
		return t.discard(req.GetOptions())
	case pb.DecisionKind_SWAP:
		return t.swap(req.GetOptions())
	case pb.DecisionKind_FLIP7_BONUS:
		return t.flip7Bonus(req.GetOptions())
	}
	return 0, "unknown decision kind"
}

// argmax returns the index of the largest score (the first one on ties).
func argmax(scores []float64) int {
	best := 0
	for i, v := range scores {
		if v > scores[best] {
			best = i
		}
	}
	return best
}

func (t *table) hitOrStay(opts []*pb.Option) (int, string) {
	hit, stay := -1, -1
	for i, o := range opts {
		switch o.GetMove() {
		case pb.Move_HIT:
			hit = i
		case pb.Move_STAY:
			stay = i
		}
	}
	if stay < 0 {
		return maxInt(hit, 0), "HIT: staying is not allowed"
	}
	if hit < 0 {
		return stay, "STAY: the only move"
	}
	gain, pBust := t.hitGain(t.me)
	me := t.seats[t.me]
	// X1: a finished player who already reached the target and is ahead of me wins the
	// game if I stay now: only more cards can change that.
	mine := me.total + me.score
	for s, st := range t.seats {
		if s == t.me || st.view == nil || st.status == pb.PlayerStatus_ACTIVE {
			continue
		}
		if p := st.total + st.score; p >= t.r.Target && p > mine {
			return hit, sprintf("HIT: seat %d banks %d, ahead of my %d", s, p, mine)
		}
	}
	if gain > 0 {
		return hit, sprintf("HIT: gain %+.2f, bust %.0f%%", gain, 100*pBust)
	}
	return stay, sprintf("STAY: gain %+.2f, bust %.0f%%", gain, 100*pBust)
}

// chooseTarget: Freeze ends a player's round; Flip Three / Flip Four! / Just One More!
// force draws. Each is scored by the change it makes to the target's expected line.
func (t *table) chooseTarget(card string, opts []*pb.Option) (int, string) {
	k, cont := 0, afterDraws
	switch card {
	case "FREEZE":
		k = 0
	case "FLIP_THREE":
		k = 3
	case "FLIP_FOUR":
		k = 4
	case "JUST_ONE_MORE":
		k, cont = 1, 0 // then the target must stay
	default:
		k, cont = 0, 0
	}
	scores := make([]float64, len(opts))
	for i, o := range opts {
		s := int(o.GetSeat())
		if !t.valid(s) {
			scores[i] = -avoidSelf
			continue
		}
		st := t.seats[s]
		nat := t.natural(s)
		var forced float64
		if k == 0 {
			forced = float64(st.line.Score(t.r)) // frozen: banks the line now
		} else {
			c := 0
			if st.status == pb.PlayerStatus_ACTIVE {
				c = cont
			}
			forced = t.forcedValue(st.line, k, c, t.keeps(s))
		}
		delta := forced - nat
		if s == t.me {
			scores[i] = delta
		} else {
			scores[i] = -delta*t.weight(s) + 1e-6*t.weight(s) // ties: an opponent, the leader
		}
	}
	i := argmax(scores)
	return i, sprintf("%s -> seat %d (score %.2f)", card, opts[i].GetSeat(), scores[i])
}

// giveSecondChance: to the weakest opponent (it helps them least).
func (t *table) giveSecondChance(opts []*pb.Option) (int, string) {
	scores := make([]float64, len(opts))
	for i, o := range opts {
		s := int(o.GetSeat())
		if !t.valid(s) {
			scores[i] = -avoidSelf
			continue
		}
		scores[i] = -float64(t.standing(s)) - 0.01*t.natural(s)
	}
	i := argmax(scores)
	return i, sprintf("SECOND_CHANCE -> seat %d", opts[i].GetSeat())
}

// giveModifier: a minus / ÷2 card where it costs the most, weighted towards the leader;
// never to myself when anyone else can take it.
func (t *table) giveModifier(card string, opts []*pb.Option) (int, string) {
	harmful := card == "/2" || strings.HasPrefix(card, "-")
	scores := make([]float64, len(opts))
	for i, o := range opts {
		s := int(o.GetSeat())
		if !t.valid(s) {
			scores[i] = -avoidSelf * 2
			continue
		}
		st := t.seats[s]
		after := st.line.addModifier(card)
		delta := t.value(s, after, lookahead) - t.value(s, st.line, lookahead)
		if s == t.me {
			scores[i] = delta
			if harmful {
				scores[i] -= avoidSelf
			}
		} else {
			scores[i] = -delta*t.weight(s) + 1e-6*t.weight(s)
		}
	}
	i := argmax(scores)
	return i, sprintf("%s -> seat %d (score %.2f)", card, opts[i].GetSeat(), scores[i])
}

// depthFor keeps decisions with very many options cheap.
func depthFor(options int) int {
	if options > 64 {
		return 1
	}
	return lookahead
}

// steal1: the card worth most to me plus what its loss costs its owner; never one that
// busts me if another exists.
func (t *table) steal1(opts []*pb.Option) (int, string) {
	d := depthFor(len(opts))
	me := t.seats[t.me]
	before := t.value(t.me, me.line, d)
	scores := make([]float64, len(opts))
	for i, o := range opts {
		cr := o.GetCard()
		s := int(cr.GetSeat())
		if cr == nil || !t.valid(s) {
			scores[i] = -avoidSelf
			continue
		}
		mine := me.line.Receive(parseCard(cr.GetLabel()), t.r, true)
		v := t.value(t.me, mine, d) - before
		if mine.Busted && !me.line.Busted {
			v -= bustPenal
		}
		if s != t.me {
			lost := t.value(s, t.seats[s].line, d) - t.value(s, t.lineWithout(s, cr.GetLabel()), d)
			v += lost * t.weight(s)
		}
		scores[i] = v
	}
	i := argmax(scores)
	c := opts[i].GetCard()
	return i, sprintf("STEAL %s from seat %d (score %.2f)", c.GetLabel(), c.GetSeat(), scores[i])
}

// discard: hurt the strongest opponent, or drop my own bad card (a minus card, ÷2, The Zero).
func (t *table) discard(opts []*pb.Option) (int, string) {
	d := depthFor(len(opts))
	scores := make([]float64, len(opts))
	for i, o := range opts {
		cr := o.GetCard()
		s := int(cr.GetSeat())
		if cr == nil || !t.valid(s) {
			scores[i] = -avoidSelf
			continue
		}
		delta := t.value(s, t.lineWithout(s, cr.GetLabel()), d) - t.value(s, t.seats[s].line, d)
		if s == t.me {
			scores[i] = delta
		} else {
			scores[i] = -delta*t.weight(s) + 1e-6*t.weight(s)
		}
	}
	i := argmax(scores)
	c := opts[i].GetCard()
	return i, sprintf("DISCARD %s of seat %d (score %.2f)", c.GetLabel(), c.GetSeat(), scores[i])
}

// swap: improve my line or hurt the strongest opponents; never bust myself.
func (t *table) swap(opts []*pb.Option) (int, string) {
	d := depthFor(len(opts))
	base := make(map[int]float64)
	cur := func(s int) float64 {
		v, ok := base[s]
		if !ok {
			v = t.value(s, t.seats[s].line, d)
			base[s] = v
		}
		return v
	}
	scores := make([]float64, len(opts))
	for i, o := range opts {
		sp := o.GetSwap()
		a, b := int(sp.GetFirst().GetSeat()), int(sp.GetSecond().GetSeat())
		if sp == nil || !t.valid(a) || !t.valid(b) || t.seats[a].view == nil || t.seats[b].view == nil {
			scores[i] = -avoidSelf
			continue
		}
		la, lb := sp.GetFirst().GetLabel(), sp.GetSecond().GetLabel()
		v := 0.0
		for _, side := range [2]struct {
			seat      int
			give, get string
		}{{a, la, lb}, {b, lb, la}} {
			st := t.seats[side.seat]
			nl := swapArrive(st.view.GetNumbers(), st.view.GetModifiers(), side.give, side.get, t.r)
			delta := t.value(side.seat, nl, d) - cur(side.seat)
			if side.seat == t.me {
				v += delta
				if nl.Busted {
					v -= bustPenal
				}
			} else {
				v -= delta * t.weight(side.seat)
			}
		}
		scores[i] = v
	}
	i := argmax(scores)
	sp := opts[i].GetSwap()
	return i, sprintf("SWAP seat %d %s <-> seat %d %s (score %.2f)", sp.GetFirst().GetSeat(),
		sp.GetFirst().GetLabel(), sp.GetSecond().GetSeat(), sp.GetSecond().GetLabel(), scores[i])
}

// flip7Bonus (Brutal): -15 to the leading opponent when they are ahead of me, else +15.
func (t *table) flip7Bonus(opts []*pb.Option) (int, string) {
	self, best, bestProj := -1, -1, 0
	for i, o := range opts {
		f := o.GetFlip7()
		if f == nil {
			continue
		}
		if f.GetBonusToSelf() {
			self = i
			continue
		}
		s := int(f.GetPenaltySeat())
		if !t.valid(s) || s == t.me {
			continue
		}
		if p := t.standing(s); best < 0 || p > bestProj {
			best, bestProj = i, p
		}
	}
	mine := t.standing(t.me)
	if best >= 0 && (self < 0 || bestProj > mine) {
		return best, sprintf("FLIP7: -15 to seat %d (%d ahead of my %d)",
			opts[best].GetFlip7().GetPenaltySeat(), bestProj, mine)
	}
	if self < 0 {
		return 0, "FLIP7: option 0"
	}
	return self, "FLIP7: +15 to myself"
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

var sprintf = fmt.Sprintf

// checkScores compares the rules model with the arena's line_score of every player (a
// self-test, logged with ARENA_LOG=debug).
func checkScores(obs *pb.Observation) []string {
	if obs == nil {
		return nil
	}
	t := newTable(obs, int(obs.GetSeat()))
	var out []string
	for s, st := range t.seats {
		if st.view == nil {
			continue
		}
		if got := st.line.Score(t.r); got != st.score {
			out = append(out, sprintf("seat %d %v %v %v: model %d, arena %d", s,
				st.view.GetNumbers(), st.view.GetModifiers(), st.status, got, st.score))
		}
	}
	return out
}
