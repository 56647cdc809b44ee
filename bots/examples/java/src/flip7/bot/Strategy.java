package flip7.bot;

import flip7.arena.v1.CardRef;
import flip7.arena.v1.DecisionRequest;
import flip7.arena.v1.Move;
import flip7.arena.v1.Option;
import flip7.arena.v1.PlayerStatus;
import flip7.arena.v1.SwapPair;
import java.util.List;

/**
 * The card-counting strategy. Every decision reads only the request (observation + options):
 * the bot keeps no state between requests, so reconnects and many games at once are free.
 *
 * <ul>
 *   <li>HIT_OR_STAY: hit while drawing has a positive expected gain — one more card, or a short
 *       lookahead of {@value #LOOKAHEAD} cards in which it stays whenever that is better —
 *       counted from observation.unseen; plus two end-of-game rules (see {@link #hitOrStay}).
 *   <li>CHOOSE_TARGET: Freeze an opponent who still wants cards (or myself when I would rather
 *       stop); forced draws to the seat they hurt most (an opponent with a big line), or to me
 *       when they help me (a small line).
 *   <li>GIVE_SECOND_CHANCE: the weakest opponent. GIVE_MODIFIER: the minus / ÷2 card where it
 *       costs the most, weighted towards the leader; never myself if avoidable.
 *   <li>STEAL / DISCARD / SWAP: every option is played out on copies of the lines; my gain
 *       plus the rivals' losses (weighted by their standing); never a card that busts me.
 *   <li>FLIP7_BONUS: −15 to the leading opponent if they are ahead of me, else +15.
 * </ul>
 */
final class Strategy {
    static final int LOOKAHEAD = 3;
    private static final double NEVER = -1e9;

    /** The option index to answer; always within range. */
    int choose(DecisionRequest req) {
        int n = req.getOptionsCount();
        if (n <= 1) return 0;
        Table t = new Table(req);
        int i;
        switch (req.getKind()) {
            case HIT_OR_STAY:
                i = hitOrStay(t);
                break;
            case CHOOSE_TARGET:
                i = chooseTarget(t);
                break;
            case GIVE_SECOND_CHANCE:
                i = giveSecondChance(t);
                break;
            case GIVE_MODIFIER:
                i = giveModifier(t);
                break;
            case STEAL:
            case DISCARD:
            case SWAP:
                i = cardChoice(t);
                break;
            case FLIP7_BONUS:
                i = flip7Bonus(t);
                break;
            default:
                i = 0;
        }
        return i >= 0 && i < n ? i : 0;
    }

    // ------------------------------------------------------------------ HIT_OR_STAY
    /**
     * Hit while it pays. Two end-of-game rules come first: if staying now would leave me
     * behind a seat that has already banked at least the target score (so the game ends this
     * round and I lose), hit; if I would reach the target ahead of everybody, with nobody
     * else still playing, stay.
     */
    int hitOrStay(Table t) {
        int hit = -1;
        int stay = -1;
        List<Option> opts = t.req.getOptionsList();
        for (int i = 0; i < opts.size(); i++) {
            Move m = opts.get(i).getMove();
            if (m == Move.HIT) hit = i;
            else if (m == Move.STAY) stay = i;
        }
        if (stay < 0) return Math.max(hit, 0); // empty line or The Zero: no STAY
        if (hit < 0) return stay;
        return wantsToHit(t) ? hit : stay;
    }

    boolean wantsToHit(Table t) {
        Line mine = t.line(t.me);
        int myStanding = t.standing(t.me);
        int bankedBest = Integer.MIN_VALUE; // seats that will not draw again this round
        boolean othersActive = false;
        for (int s = 0; s < t.seats; s++) {
            if (s == t.me) continue;
            if (t.active(s)) othersActive = true;
            else bankedBest = Math.max(bankedBest, t.standing(s));
        }
        if (bankedBest >= t.target && bankedBest >= myStanding) return true; // or lose anyway
        if (myStanding >= t.target && !othersActive && myStanding > t.bestOpponentStanding()) {
            return false; // the win is banked
        }
        Pile pile = t.pile;
        if (pile.hitGain(mine) > 0) return true;
        return pile.continuation(mine, LOOKAHEAD) > Pile.worth(mine) + 1e-9;
    }

    // ------------------------------------------------------------------ CHOOSE_TARGET
    int chooseTarget(Table t) {
        String card = t.req.getCard();
        List<Option> opts = t.req.getOptionsList();
        int best = 0;
        double bestV = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < opts.size(); i++) {
            int seat = (int) opts.get(i).getSeat();
            if (seat < 0 || seat >= t.seats) continue;
            double v = targetValue(t, card, seat);
            if (v > bestV + 1e-9) {
                best = i;
                bestV = v;
            }
        }
        return best;
    }

    /** How good it is for me that {@code seat} receives this action card. */
    double targetValue(Table t, String card, int seat) {
        Line line = t.line(seat);
        Pile pile = t.pile;
        double now = Pile.worth(line);
        boolean mine = seat == t.me;
        switch (card) {
            case "FREEZE": {
                // Freezing banks the line now: it costs the seat what playing on is worth.
                double wants = line.active ? pile.playOn(line, LOOKAHEAD) - now : 0;
                if (mine) {
                    // staying stays possible on my turn anyway; being frozen only shields me
                    // from forced draws, so it is the choice when I would rather stop
                    return pile.hitGain(line) <= 0 ? 0.5 - wants : -wants - 0.5;
                }
                return wants * t.weight(seat);
            }
            case "FLIP_THREE":
            case "FLIP_FOUR":
            case "JUST_ONE_MORE": {
                int k = card.equals("FLIP_THREE") ? 3 : card.equals("FLIP_FOUR") ? 4 : 1;
                double gain = pile.expected(line, k) - now;
                if (card.equals("JUST_ONE_MORE") && line.active) {
                    // then the seat must stay: it loses the rest of its round
                    gain -= Math.max(0, pile.playOn(line, LOOKAHEAD) - Math.max(now, pile.expected(line, 1)));
                }
                return mine ? gain : -gain * t.weight(seat);
            }
            default:
                // an unknown action: keep it away from myself, give it to the leader
                return mine ? -1 : t.weight(seat);
        }
    }

    // ------------------------------------------------------------------ GIVE_SECOND_CHANCE
    /** The weakest opponent gains least from it. */
    int giveSecondChance(Table t) {
        List<Option> opts = t.req.getOptionsList();
        int best = 0;
        double bestV = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < opts.size(); i++) {
            int seat = (int) opts.get(i).getSeat();
            if (seat < 0 || seat >= t.seats) continue;
            double v = seat == t.me ? NEVER : -t.standing(seat) - 0.01 * t.line(seat).sum;
            if (v > bestV) {
                best = i;
                bestV = v;
            }
        }
        return best;
    }

    // ------------------------------------------------------------------ GIVE_MODIFIER
    int giveModifier(Table t) {
        String label = t.req.getCard();
        boolean harmful = Line.isHarmfulModifier(label) || !Line.isModifier(label);
        List<Option> opts = t.req.getOptionsList();
        int best = 0;
        double bestV = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < opts.size(); i++) {
            int seat = (int) opts.get(i).getSeat();
            if (seat < 0 || seat >= t.seats) continue;
            double v;
            if (harmful) {
                v = seat == t.me ? NEVER - damage(t, seat, label) : damage(t, seat, label) * t.weight(seat);
            } else {
                v = seat == t.me ? -NEVER : -t.standing(seat);
            }
            if (v > bestV) {
                best = i;
                bestV = v;
            }
        }
        return best;
    }

    /** Points the modifier takes from the seat: exactly on its line now, and for a line still
     * growing half of what it may take later. */
    double damage(Table t, int seat, String label) {
        Line line = t.line(seat);
        Line after = line.copy();
        after.addModifier(label);
        double now = line.score() - after.score();
        if (!line.active) return now;
        double nominal = label.equals("/2") ? Math.max(now, 8) : Line.modifierAmount(label);
        return now + 0.5 * Math.max(0, nominal - now);
    }

    // ------------------------------------------------------------------ STEAL / DISCARD / SWAP
    int cardChoice(Table t) {
        List<Option> opts = t.req.getOptionsList();
        int best = 0;
        double bestV = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < opts.size(); i++) {
            Option o = opts.get(i);
            double v;
            switch (t.req.getKind()) {
                case STEAL:
                    v = stealValue(t, o.getCard());
                    break;
                case DISCARD:
                    v = discardValue(t, o.getCard());
                    break;
                default:
                    v = swapValue(t, o.getSwap());
            }
            if (v > bestV) {
                best = i;
                bestV = v;
            }
        }
        return best;
    }

    /** My change plus the others' changes (theirs count against me, by standing). */
    private double judge(Table t, int seat, Line before, Line after) {
        double delta = Pile.worth(after) - Pile.worth(before);
        if (seat == t.me) return after.busted && !before.busted ? NEVER + delta : delta;
        return -delta * t.weight(seat);
    }

    double stealValue(Table t, CardRef ref) {
        int victim = (int) ref.getSeat();
        String label = ref.getLabel();
        if (victim < 0 || victim >= t.seats) return NEVER * 2;
        Line mine = t.line(t.me);
        Line mineAfter = mine.copy();
        mineAfter.arrive(label);
        Line theirs = t.line(victim);
        Line theirsAfter = theirs.copy();
        theirsAfter.remove(label);
        return judge(t, t.me, mine, mineAfter) + (victim == t.me ? 0 : judge(t, victim, theirs, theirsAfter));
    }

    double discardValue(Table t, CardRef ref) {
        int seat = (int) ref.getSeat();
        if (seat < 0 || seat >= t.seats) return NEVER * 2;
        Line before = t.line(seat);
        Line after = before.copy();
        after.remove(ref.getLabel());
        return judge(t, seat, before, after);
    }

    /** V7 Swap: both cards arrive at once (an Unlucky 7 wipes its receiver), then busts, then
     * Flip 7. */
    double swapValue(Table t, SwapPair pair) {
        int a = (int) pair.getFirst().getSeat();
        int b = (int) pair.getSecond().getSeat();
        String la = pair.getFirst().getLabel();
        String lb = pair.getSecond().getLabel();
        if (a < 0 || a >= t.seats || b < 0 || b >= t.seats || a == b) return NEVER * 2;
        Line beforeA = t.line(a);
        Line beforeB = t.line(b);
        Line afterA = beforeA.copy();
        Line afterB = beforeB.copy();
        afterA.remove(la);
        afterB.remove(lb);
        swapIn(afterA, lb);
        swapIn(afterB, la);
        for (Line l : new Line[] {afterA, afterB}) {
            if (l.hasDuplicate()) {
                l.busted = true;
                l.active = false;
            }
        }
        for (Line l : new Line[] {afterA, afterB}) {
            if (!l.busted && l.numbers >= Line.FLIP7_CARDS) l.flip7 = true;
        }
        return judge(t, a, beforeA, afterA) + judge(t, b, beforeB, afterB);
    }

    private static void swapIn(Line l, String label) {
        if (label.equals("U7")) {
            l.receiveNumber("U7", false); // wipes the line down to this 7
        } else if (Line.isNumber(label)) {
            l.putNumber(label, Line.value(label));
        } else {
            l.addModifier(label);
        }
    }

    // ------------------------------------------------------------------ FLIP7_BONUS
    /** −15 to the leading opponent when they are ahead of me, else +15 for myself. */
    int flip7Bonus(Table t) {
        List<Option> opts = t.req.getOptionsList();
        int self = -1;
        int target = -1;
        int targetStanding = Integer.MIN_VALUE;
        for (int i = 0; i < opts.size(); i++) {
            var f = opts.get(i).getFlip7();
            if (f.getBonusToSelf()) {
                self = i;
                continue;
            }
            int seat = (int) f.getPenaltySeat();
            if (seat < 0 || seat >= t.seats || seat == t.me) continue;
            if (t.standing(seat) > targetStanding) {
                target = i;
                targetStanding = t.standing(seat);
            }
        }
        if (self < 0) return Math.max(target, 0);
        if (target >= 0 && targetStanding > t.standing(t.me)) return target;
        return self;
    }

    /** For logs and the self-test: bust probability and expected gain of one more card. */
    static String describe(DecisionRequest req) {
        Table t = new Table(req);
        Line mine = t.line(t.me);
        return String.format(
                "seat %d line %d (sum %d, %d numbers) bust %.3f gain %+.2f status %s",
                t.me, mine.score(), mine.sum, mine.numbers, t.pile.bustProbability(mine),
                t.pile.hitGain(mine), t.views[t.me].getStatus() == PlayerStatus.ACTIVE ? "active" : "done");
    }
}
