package flip7.bot;

import flip7.arena.v1.DecisionRequest;
import flip7.arena.v1.Observation;
import flip7.arena.v1.PlayerStatus;
import flip7.arena.v1.PlayerView;
import java.util.Map;
import java.util.TreeMap;

/** The public state of one decision, decoded once: every line, standings and the draw pile. */
final class Table {
    final DecisionRequest req;
    final Observation obs;
    final int me;
    final int seats;
    final boolean vengeance;
    final boolean brutal;
    final boolean solo;
    final int target;
    final Line[] lines;
    final PlayerView[] views;
    final Pile pile;

    Table(DecisionRequest req) {
        this.req = req;
        this.obs = req.getObservation();
        this.me = (int) req.getSeat();
        String variant = obs.getVariant().isEmpty() ? obs.getRuleset().getVariant() : obs.getVariant();
        this.vengeance = variant.equals("vengeance");
        this.brutal = obs.getRuleset().getBrutal();
        int target = obs.getRuleset().getTargetScore();
        this.target = target > 0 ? target : 200;
        int n = Math.max(obs.getPlayersCount(), (int) obs.getSeats());
        this.seats = n;
        this.solo = n == 1;
        this.lines = new Line[n];
        this.views = new PlayerView[n];
        for (PlayerView pv : obs.getPlayersList()) {
            int s = (int) pv.getSeat();
            if (s < 0 || s >= n) continue;
            views[s] = pv;
            lines[s] = Line.of(pv, vengeance, brutal);
        }
        for (int s = 0; s < n; s++) {
            if (views[s] == null) { // never happens with a well-formed observation
                views[s] = PlayerView.newBuilder().setSeat(s).setStatus(PlayerStatus.STAYED).build();
                lines[s] = new Line(vengeance, brutal);
            }
        }
        this.pile = Pile.of(drawPile(), vengeance, solo);
        // sampling is seeded from the public state: the same state gives the same choice
        this.pile.seed = obs.getRound() * 1_000_003L + obs.getDeckSize() * 7_919L
                + obs.getDiscardCount() * 31L + me;
    }

    /** The cards the next draw comes from: the draw pile, or the discard pile when the draw
     * pile is empty and would be reshuffled (X4). */
    private Map<String, Integer> drawPile() {
        Map<String, Integer> unseen = obs.getUnseenMap();
        boolean any = false;
        for (int c : unseen.values()) any |= c > 0;
        if (any) return unseen;
        Map<String, Integer> discard = new TreeMap<>();
        for (String label : obs.getDiscardList()) discard.merge(label, 1, Integer::sum);
        return discard;
    }

    Line line(int seat) {
        return lines[seat];
    }

    boolean active(int seat) {
        return views[seat].getStatus() == PlayerStatus.ACTIVE;
    }

    boolean bustedSeat(int seat) {
        return views[seat].getStatus() == PlayerStatus.BUSTED;
    }

    /** Game total plus what the line would bank now. */
    int standing(int seat) {
        return views[seat].getTotal() + views[seat].getLineScore();
    }

    /** How much hurting this seat is worth: more the higher its standing. */
    double weight(int seat) {
        return 1.0 + Math.max(0, standing(seat)) / 100.0;
    }

    /** The best standing among the other seats. */
    int bestOpponentStanding() {
        int best = Integer.MIN_VALUE;
        for (int s = 0; s < seats; s++) if (s != me) best = Math.max(best, standing(s));
        return best;
    }
}
