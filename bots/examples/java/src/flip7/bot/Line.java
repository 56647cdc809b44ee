package flip7.bot;

import flip7.arena.v1.PlayerStatus;
import flip7.arena.v1.PlayerView;

/**
 * One player's line: number cards, modifiers, a held Second Chance, with the scoring of
 * docs/rules.md B7 (base), V6 (vengeance) and V8 (Brutal). Mutable, so that simulations can play
 * cards into a {@link #copy()}.
 *
 * <p>Card labels: numbers "0".."13", "U7" (Unlucky 7), "L13" (Lucky 13); modifiers "+2".."+10",
 * "x2", "-2".."-10", "/2"; actions "FREEZE", "FLIP_THREE", "SECOND_CHANCE", "JUST_ONE_MORE",
 * "FLIP_FOUR", "STEAL", "SWAP", "DISCARD".
 */
final class Line {
    static final int FLIP7_CARDS = 7;
    static final int FLIP7_BONUS = 15;

    final boolean vengeance;
    final boolean brutal;
    final int[] count = new int[14]; // number cards by value
    int numbers; // number cards held
    int sum; // their sum
    boolean lucky13; // the Lucky 13 is one of them
    int mult = 1; // base: x2 cards
    int plus; // base: + cards
    int halves; // vengeance: ÷2 cards
    int minus; // vengeance: minus cards
    int modifierCards;
    int secondChances;
    boolean flip7;
    boolean busted;
    boolean active; // may still draw this round

    Line(boolean vengeance, boolean brutal) {
        this.vengeance = vengeance;
        this.brutal = brutal;
    }

    static Line of(PlayerView pv, boolean vengeance, boolean brutal) {
        Line l = new Line(vengeance, brutal);
        for (String label : pv.getNumbersList()) {
            int v = value(label);
            if (v < 0) continue;
            l.count[v]++;
            l.numbers++;
            l.sum += v;
            if (label.equals("L13")) l.lucky13 = true;
        }
        for (String label : pv.getModifiersList()) l.addModifier(label);
        l.secondChances = pv.getSecondChances();
        l.flip7 = pv.getFlip7();
        l.busted = pv.getStatus() == PlayerStatus.BUSTED;
        l.active = pv.getStatus() == PlayerStatus.ACTIVE;
        return l;
    }

    Line copy() {
        Line l = new Line(vengeance, brutal);
        System.arraycopy(count, 0, l.count, 0, count.length);
        l.numbers = numbers;
        l.sum = sum;
        l.lucky13 = lucky13;
        l.mult = mult;
        l.plus = plus;
        l.halves = halves;
        l.minus = minus;
        l.modifierCards = modifierCards;
        l.secondChances = secondChances;
        l.flip7 = flip7;
        l.busted = busted;
        l.active = active;
        return l;
    }

    // ------------------------------------------------------------------ card labels
    /** The value of a number card's label, or -1 if it is not a number card. */
    static int value(String label) {
        switch (label) {
            case "U7":
                return 7;
            case "L13":
                return 13;
            default:
                break;
        }
        int n = label.length();
        if (n == 0 || n > 2) return -1;
        int v = 0;
        for (int i = 0; i < n; i++) {
            char c = label.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v <= 13 ? v : -1;
    }

    static boolean isNumber(String label) {
        return value(label) >= 0;
    }

    static boolean isModifier(String label) {
        if (label.isEmpty()) return false;
        char c = label.charAt(0);
        return c == '+' || c == '-' || c == '/' || label.equals("x2");
    }

    /** A modifier that lowers a score: "-N" or "/2". */
    static boolean isHarmfulModifier(String label) {
        return label.startsWith("-") || label.equals("/2");
    }

    static int modifierAmount(String label) {
        try {
            return Integer.parseInt(label.substring(1));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    // ------------------------------------------------------------------ state
    /** Vengeance: The Zero is held (it blocks STAY and zeroes the score without Flip 7). */
    boolean holdsZero() {
        return vengeance && count[0] > 0;
    }

    boolean isEmpty() {
        return numbers == 0 && modifierCards == 0;
    }

    /** What the line scores if the round ends now (the observation's line_score). */
    int score() {
        if (busted) return brutal ? -minus : 0;
        if (isEmpty()) return 0;
        int v;
        if (holdsZero() && !flip7) {
            v = 0;
        } else {
            v = ((sum * mult) >> halves) - minus + plus;
            if (vengeance && !brutal && v < 0) v = 0;
        }
        if (flip7) v += FLIP7_BONUS;
        return v;
    }

    /** Would receiving this number bust the line (X7, V4 Unlucky 7, V5 Lucky 13)? */
    boolean wouldBust(String label) {
        int v = value(label);
        if (v < 0 || label.equals("U7") || count[v] == 0) return false;
        if (v == 13 && count[13] == 1 && (lucky13 || label.equals("L13"))) return false;
        return true;
    }

    /** Does the line break the number rules (checked after a Swap)? */
    boolean hasDuplicate() {
        for (int v = 0; v < count.length; v++) {
            if (count[v] > 1 && !(v == 13 && count[v] == 2 && lucky13)) return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ changes
    /** Unlucky 7 (V4): every other number and modifier goes. */
    private void wipe() {
        java.util.Arrays.fill(count, 0);
        numbers = 0;
        sum = 0;
        lucky13 = false;
        mult = 1;
        plus = 0;
        halves = 0;
        minus = 0;
        modifierCards = 0;
    }

    /**
     * A number card arrives (drawn, stolen): Unlucky 7 wipes, a duplicate busts unless a held
     * Second Chance (when {@code secondChance}) absorbs it, seven numbers make Flip 7.
     */
    void receiveNumber(String label, boolean secondChance) {
        int v = value(label);
        if (label.equals("U7")) {
            wipe();
            count[7] = 1;
            numbers = 1;
            sum = 7;
            return;
        }
        if (wouldBust(label)) {
            if (secondChance && secondChances > 0) {
                secondChances--; // B5: both cards are discarded, the turn ends
                return;
            }
            busted = true;
            active = false;
            return;
        }
        putNumber(label, v);
        if (numbers >= FLIP7_CARDS) flip7 = true;
    }

    /** A number placed without any check (one half of a Swap). */
    void putNumber(String label, int v) {
        count[v]++;
        numbers++;
        sum += v;
        if (label.equals("L13")) lucky13 = true;
    }

    void addModifier(String label) {
        modifierCards++;
        if (label.equals("x2")) {
            mult *= 2;
        } else if (label.equals("/2")) {
            halves++;
        } else if (label.startsWith("+")) {
            plus += modifierAmount(label);
        } else if (label.startsWith("-")) {
            minus += modifierAmount(label);
        }
    }

    /** A face-up number or modifier leaves the line (stolen, discarded, swapped away). */
    void remove(String label) {
        int v = value(label);
        if (v >= 0) {
            if (count[v] == 0) return;
            count[v]--;
            numbers--;
            sum -= v;
            if (label.equals("L13")) lucky13 = false;
            return;
        }
        if (!isModifier(label)) return;
        modifierCards--;
        if (label.equals("x2")) {
            mult /= 2;
        } else if (label.equals("/2")) {
            halves--;
        } else if (label.startsWith("+")) {
            plus -= modifierAmount(label);
        } else if (label.startsWith("-")) {
            minus -= modifierAmount(label);
        }
    }

    /** A face-up card arrives by Steal (V7): it takes effect on arrival. */
    void arrive(String label) {
        if (isNumber(label)) {
            receiveNumber(label, false);
        } else {
            addModifier(label);
        }
    }
}
