package flip7.bot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The draw pile as a multiset (observation.unseen), with the card-counting arithmetic: bust
 * probability, expected gain of one more card, the expected result of k forced draws and the
 * value of continuing to play (a few cards of lookahead, staying whenever that is better).
 *
 * <p>Cards that cannot change the drawer's own line (actions other than Second Chance; in
 * Vengeance the modifiers, which the drawer gives away) are lumped together as "neutral": they
 * use up a draw and nothing else.
 */
final class Pile {
    /** Worth of a held Second Chance, as a fraction of the line's score. */
    static final double SECOND_CHANCE_WORTH = 0.1;

    final String[] labels; // the cards that matter to the drawer's line
    final int[] counts;
    int neutral;
    int total;
    final boolean solo;

    private Pile(String[] labels, int[] counts, int neutral, boolean solo) {
        this.labels = labels;
        this.counts = counts;
        this.neutral = neutral;
        this.solo = solo;
        int t = neutral;
        for (int c : counts) t += c;
        this.total = t;
    }

    static Pile of(Map<String, Integer> unseen, boolean vengeance, boolean solo) {
        List<String> labels = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        int neutral = 0;
        // a fixed (sorted) order, so that the same state always gives the same sums
        for (String label : new java.util.TreeMap<>(unseen).keySet()) {
            int n = unseen.get(label);
            if (n <= 0) continue;
            boolean matters =
                    Line.isNumber(label)
                            || (Line.isModifier(label) && (!vengeance || solo))
                            || label.equals("SECOND_CHANCE");
            if (matters) {
                labels.add(label);
                counts.add(n);
            } else {
                neutral += n;
            }
        }
        int[] c = new int[counts.size()];
        for (int i = 0; i < c.length; i++) c[i] = counts.get(i);
        return new Pile(labels.toArray(new String[0]), c, neutral, solo);
    }

    /** One drawn card arrives in the drawer's line (a hit, or one card of a forced draw). */
    static void draw(Line l, String label) {
        if (Line.isNumber(label)) {
            l.receiveNumber(label, true);
        } else if (Line.isModifier(label)) {
            l.addModifier(label);
        } else if (label.equals("SECOND_CHANCE")) {
            if (l.secondChances == 0) l.secondChances = 1; // else it is given away (B5)
        }
    }

    /** What a line is worth to its owner: its score, plus a little for a Second Chance. */
    static double worth(Line l) {
        int s = l.score();
        if (l.secondChances > 0 && !l.busted && s > 0) return s * (1 + SECOND_CHANCE_WORTH);
        return s;
    }

    /** Probability that the next card busts the line (a held Second Chance saves it). */
    double bustProbability(Line l) {
        if (total == 0 || l.secondChances > 0) return 0;
        int bust = 0;
        for (int i = 0; i < labels.length; i++) {
            if (Line.isNumber(labels[i]) && l.wouldBust(labels[i])) bust += counts[i];
        }
        return (double) bust / total;
    }

    /** Expected change of the line's worth from one more card. */
    double hitGain(Line l) {
        return expected(l, 1) - worth(l);
    }

    /** Largest exact enumeration (distinct cards ^ draws) before sampling takes over. */
    static final int EXACT_LIMIT = 12_000;
    /** Samples for a sampled forced draw (the same card sequences for every seat). */
    static final int SAMPLES = 1_500;

    /** A seed for sampling, fixed by the caller from the public state (reproducible). */
    long seed = 1;

    /**
     * Expected worth after k forced draws (Flip Three, Flip Four!, Just One More!), stopping
     * early on a bust or Flip 7: enumerated exactly while that is small (k &le; 3 in practice),
     * else averaged over {@value #SAMPLES} sampled draw sequences.
     */
    double expected(Line l, int k) {
        double work = Math.pow(labels.length + (neutral > 0 ? 1 : 0), k);
        return work <= EXACT_LIMIT ? exact(l, k) : sampled(l, k);
    }

    private double exact(Line l, int k) {
        if (k <= 0 || l.busted || l.flip7 || total == 0) return worth(l);
        return overNextCard(l, next -> exact(next, k - 1));
    }

    /**
     * The expectation of {@code f} over the next card: each card still in the pile (the
     * neutral ones leave the line as it is) weighted by its count. The pile is restored.
     */
    private double overNextCard(Line l, java.util.function.ToDoubleFunction<Line> f) {
        double acc = 0;
        if (neutral > 0) {
            int n = neutral;
            neutral--;
            total--;
            acc += n * f.applyAsDouble(l);
            neutral++;
            total++;
        }
        for (int i = 0; i < labels.length; i++) {
            int n = counts[i];
            if (n == 0) continue;
            Line next = l.copy();
            draw(next, labels[i]);
            counts[i]--;
            total--;
            acc += n * f.applyAsDouble(next);
            counts[i]++;
            total++;
        }
        return acc / total;
    }

    private int[] deck; // the pile as one card per slot: an index into labels, or -1 (neutral)

    private double sampled(Line l, int k) {
        if (l.busted || l.flip7 || total == 0) return worth(l);
        if (deck == null) {
            deck = new int[total];
            int j = 0;
            for (int i = 0; i < labels.length; i++) for (int c = 0; c < counts[i]; c++) deck[j++] = i;
            while (j < total) deck[j++] = -1;
        }
        int[] d = deck.clone();
        java.util.SplittableRandom rng = new java.util.SplittableRandom(seed);
        int draws = Math.min(k, d.length);
        double acc = 0;
        for (int s = 0; s < SAMPLES; s++) {
            Line x = l.copy();
            for (int i = 0; i < draws && !x.busted && !x.flip7; i++) {
                int r = i + rng.nextInt(d.length - i); // a partial Fisher-Yates shuffle
                int card = d[r];
                d[r] = d[i];
                d[i] = card;
                if (card >= 0) draw(x, labels[card]);
            }
            acc += worth(x);
        }
        return acc / SAMPLES;
    }

    /**
     * The worth of the line if its owner plays on as well as a {@code depth}-card lookahead
     * allows (stay whenever staying is worth more than the expected continuation). A line
     * holding The Zero cannot stay.
     */
    double playOn(Line l, int depth) {
        double stay = worth(l);
        if (l.busted || l.flip7 || total == 0 || depth <= 0) return stay;
        double cont = continuation(l, depth);
        if (l.holdsZero() && !l.isEmpty()) return cont; // V3: no STAY with The Zero
        return Math.max(stay, cont);
    }

    /** Expected worth of drawing one card now and then playing on (depth-1 lookahead). */
    double continuation(Line l, int depth) {
        if (total == 0) return worth(l);
        return overNextCard(l, next -> playOn(next, depth - 1));
    }
}
