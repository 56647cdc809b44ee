package flip7.bot;

import flip7.arena.v1.Answer;
import flip7.arena.v1.ArenaMessage;
import flip7.arena.v1.Batch;
import flip7.arena.v1.BotMessage;
import flip7.arena.v1.CardRef;
import flip7.arena.v1.DecisionKind;
import flip7.arena.v1.DecisionRequest;
import flip7.arena.v1.Flip7Choice;
import flip7.arena.v1.Move;
import flip7.arena.v1.Observation;
import flip7.arena.v1.Option;
import flip7.arena.v1.PlayerStatus;
import flip7.arena.v1.PlayerView;
import flip7.arena.v1.Ruleset;
import flip7.arena.v1.SwapPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Offline checks of the scoring, the strategy and the answers the client sends for lone
 * requests, batches and failures, on hand-made requests (build.sh runs them:
 * {@code java -cp ... flip7.bot.SelfTest}), and the warm-up the bot runs before it connects,
 * so that the first real requests do not pay for class loading and the interpreter.
 */
final class SelfTest {
    private final List<String> failures = new ArrayList<>();
    private int checks;

    public static void main(String[] args) {
        SelfTest t = new SelfTest();
        t.runAll();
        if (!t.failures.isEmpty()) {
            for (String f : t.failures) System.err.println("self-test FAILED: " + f);
            System.exit(1);
        }
        System.out.println("self-test: " + t.checks + " checks passed");
    }

    /**
     * Plays every decision kind of both variants for about {@code millis} ms. A strategy that
     * fails here does not keep the bot from playing: the warm-up stops, and the failures of
     * real requests are reported to the arena.
     */
    static int warmUp(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        int rounds = 0;
        SelfTest t = new SelfTest();
        do {
            try {
                t.runAll();
            } catch (RuntimeException e) {
                Main.log("warm-up stopped: the strategy failed: " + ArenaClient.describe(e));
                break;
            }
            rounds++;
        } while (System.nanoTime() < end && rounds < 40);
        return rounds;
    }

    private void check(boolean ok, String what) {
        checks++;
        if (!ok) failures.add(what);
    }

    // ------------------------------------------------------------------ builders
    static Map<String, Integer> fullDeck(boolean vengeance) {
        Map<String, Integer> d = new TreeMap<>();
        d.put("0", 1);
        if (!vengeance) {
            for (int n = 1; n <= 12; n++) d.put(String.valueOf(n), n);
            for (String m : new String[] {"+2", "+4", "+6", "+8", "+10", "x2"}) d.put(m, 1);
            d.put("FREEZE", 3);
            d.put("FLIP_THREE", 3);
            d.put("SECOND_CHANCE", 3);
        } else {
            for (int n = 1; n <= 13; n++) d.put(String.valueOf(n), n);
            d.put("7", 6);
            d.put("U7", 1);
            d.put("13", 12);
            d.put("L13", 1);
            for (String m : new String[] {"/2", "-2", "-4", "-6", "-8", "-10"}) d.put(m, 1);
            for (String a : new String[] {"JUST_ONE_MORE", "FLIP_FOUR", "STEAL", "SWAP", "DISCARD"}) d.put(a, 2);
        }
        return d;
    }

    /** One seat's line: numbers and modifiers as labels, status, game total. */
    record Seat(PlayerStatus status, int total, List<String> numbers, List<String> modifiers, int secondChances) {
        static Seat of(PlayerStatus status, int total, String... cards) {
            List<String> nums = new ArrayList<>();
            List<String> mods = new ArrayList<>();
            for (String c : cards) (Line.isNumber(c) ? nums : mods).add(c);
            return new Seat(status, total, nums, mods, 0);
        }
    }

    static DecisionRequest request(
            boolean vengeance, boolean brutal, int me, Seat[] seats, DecisionKind kind, String card, List<Option> options) {
        Map<String, Integer> unseen = fullDeck(vengeance);
        Observation.Builder ob = Observation.newBuilder()
                .setVariant(vengeance ? "vengeance" : "base")
                .setRuleset(Ruleset.newBuilder()
                        .setVariant(vengeance ? "vengeance" : "base")
                        .setBrutal(brutal)
                        .setTargetScore(200)
                        .setDeckSize(vengeance ? 108 : 94))
                .setSeat(me)
                .setSeats(seats.length)
                .setRound(3);
        for (int s = 0; s < seats.length; s++) {
            Seat st = seats[s];
            Line l = new Line(vengeance, brutal);
            for (String c : st.numbers()) {
                unseen.merge(c, -1, Integer::sum);
                l.putNumber(c, Line.value(c));
            }
            for (String c : st.modifiers()) {
                unseen.merge(c, -1, Integer::sum);
                l.addModifier(c);
            }
            l.busted = st.status() == PlayerStatus.BUSTED;
            l.flip7 = l.numbers >= Line.FLIP7_CARDS;
            ob.addOrder(s).addPlayers(PlayerView.newBuilder()
                    .setSeat(s)
                    .setStatus(st.status())
                    .addAllNumbers(st.numbers())
                    .addAllModifiers(st.modifiers())
                    .setSecondChances(st.secondChances())
                    .setTotal(st.total())
                    .setLineScore(l.score())
                    .setFlip7(l.flip7));
        }
        if (card != null && !card.isEmpty()) unseen.merge(card, -1, Integer::sum);
        int left = 0;
        for (Map.Entry<String, Integer> e : unseen.entrySet()) {
            if (e.getValue() > 0) {
                ob.putUnseen(e.getKey(), e.getValue());
                left += e.getValue();
            }
        }
        ob.setDeckSize(left);
        return DecisionRequest.newBuilder()
                .setRequestId(1)
                .setGameId("self-test")
                .setSeat(me)
                .setKind(kind)
                .setCard(card == null ? "" : card)
                .setObservation(ob)
                .addAllOptions(options)
                .setDeadlineMs(1000)
                .build();
    }

    static List<Option> moves(boolean stay) {
        List<Option> o = new ArrayList<>();
        o.add(Option.newBuilder().setMove(Move.HIT).build());
        if (stay) o.add(Option.newBuilder().setMove(Move.STAY).build());
        return o;
    }

    static List<Option> seats(int... seats) {
        List<Option> o = new ArrayList<>();
        for (int s : seats) o.add(Option.newBuilder().setSeat(s).build());
        return o;
    }

    static Option card(int seat, String label) {
        return Option.newBuilder().setCard(CardRef.newBuilder().setSeat(seat).setLabel(label)).build();
    }

    static Option swap(int a, String la, int b, String lb) {
        return Option.newBuilder()
                .setSwap(SwapPair.newBuilder()
                        .setFirst(CardRef.newBuilder().setSeat(a).setLabel(la))
                        .setSecond(CardRef.newBuilder().setSeat(b).setLabel(lb)))
                .build();
    }

    private int choose(DecisionRequest req) {
        // through the wire format once, as the arena sends it
        try {
            ArenaMessage m = ArenaMessage.parseFrom(ArenaMessage.newBuilder().setRequest(req).build().toByteArray());
            return new Strategy().choose(m.getRequest());
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ checks
    void runAll() {
        scoring();
        hitOrStay();
        targets();
        modifiersAndCards();
        flip7Bonus();
        answers();
    }

    private void scoring() {
        Line b = new Line(false, false);
        for (String c : new String[] {"5", "7"}) b.receiveNumber(c, true);
        b.addModifier("x2");
        b.addModifier("+4");
        check(b.score() == 28, "base: 5 7 x2 +4 scores 28, got " + b.score());
        Line v = new Line(true, false);
        for (String c : new String[] {"10", "9"}) v.receiveNumber(c, true);
        v.addModifier("/2");
        v.addModifier("-2");
        check(v.score() == 7, "vengeance: 10 9 /2 -2 scores 7, got " + v.score());
        v.addModifier("-10");
        check(v.score() == 0, "vengeance: never below 0 outside Brutal, got " + v.score());
        Line z = new Line(true, false);
        z.receiveNumber("0", true);
        z.receiveNumber("12", true);
        check(z.score() == 0 && z.holdsZero(), "vengeance: The Zero scores 0");
        Line l13 = new Line(true, false);
        l13.receiveNumber("13", true);
        l13.receiveNumber("L13", true);
        check(!l13.busted && l13.score() == 26, "vengeance: Lucky 13 allows a second 13");
        l13.receiveNumber("13", true);
        check(l13.busted, "vengeance: a third 13 busts");
        Line u7 = new Line(true, false);
        u7.receiveNumber("7", true);
        u7.receiveNumber("9", true);
        u7.addModifier("-4");
        u7.receiveNumber("U7", true);
        check(!u7.busted && u7.score() == 7 && u7.numbers == 1, "vengeance: Unlucky 7 wipes the line");
        Line br = new Line(true, true);
        br.receiveNumber("5", true);
        br.addModifier("-4");
        br.receiveNumber("5", true);
        check(br.busted && br.score() == -4, "brutal: a bust scores the minus cards, got " + br.score());
        Line sc = new Line(false, false);
        sc.receiveNumber("5", true);
        sc.secondChances = 1;
        sc.receiveNumber("5", true);
        check(!sc.busted && sc.secondChances == 0 && sc.score() == 5, "base: Second Chance absorbs a duplicate");
        Line f7 = new Line(false, false);
        for (String c : new String[] {"0", "1", "2", "3", "4", "5", "6"}) f7.receiveNumber(c, true);
        check(f7.flip7 && f7.score() == 36, "base: Flip 7 adds 15, got " + f7.score());
    }

    private void hitOrStay() {
        PlayerStatus A = PlayerStatus.ACTIVE;
        Seat[] small = {Seat.of(A, 50, "3"), Seat.of(A, 60, "8")};
        check(choose(request(false, false, 0, small, DecisionKind.HIT_OR_STAY, "", moves(true))) == 0,
                "base: hits on a line of 3");
        Seat[] big = {Seat.of(A, 50, "12", "11", "10", "9", "8"), Seat.of(A, 60, "8")};
        check(choose(request(false, false, 0, big, DecisionKind.HIT_OR_STAY, "", moves(true))) == 1,
                "base: stays on 12 11 10 9 8");
        Seat[] zero = {Seat.of(A, 50, "0", "12", "11"), Seat.of(A, 60, "8")};
        check(choose(request(true, false, 0, zero, DecisionKind.HIT_OR_STAY, "", moves(false))) == 0,
                "vengeance: HIT is the only option with The Zero");
        Seat[] behind = {Seat.of(A, 150, "12", "11", "10"), Seat.of(PlayerStatus.STAYED, 190, "9", "8")};
        check(choose(request(false, false, 0, behind, DecisionKind.HIT_OR_STAY, "", moves(true))) == 0,
                "base: hits when staying loses the game");
        Seat[] ahead = {Seat.of(A, 180, "12", "11"), Seat.of(PlayerStatus.STAYED, 150, "9", "8")};
        check(choose(request(false, false, 0, ahead, DecisionKind.HIT_OR_STAY, "", moves(true))) == 1,
                "base: stays when the win is banked");
    }

    private void targets() {
        PlayerStatus A = PlayerStatus.ACTIVE;
        // Freeze: an opponent with an empty line still wants cards; I am happy to go on
        Seat[] f = {Seat.of(A, 50, "4"), Seat.of(A, 60), Seat.of(A, 40, "12", "11", "10", "9")};
        check(choose(request(false, false, 0, f, DecisionKind.CHOOSE_TARGET, "FREEZE", seats(0, 1, 2))) == 1,
                "base: Freeze the opponent with an empty line");
        Seat[] stop = {Seat.of(A, 50, "12", "11", "10", "9", "8"), Seat.of(A, 60, "12", "11", "10", "9", "7")};
        check(choose(request(false, false, 0, stop, DecisionKind.CHOOSE_TARGET, "FREEZE", seats(0, 1))) == 0,
                "base: Freeze myself when I would rather stop");
        // Flip Three: the opponent with a big line, not my big line
        Seat[] f3 = {Seat.of(A, 50, "12", "11", "10"), Seat.of(A, 60, "12", "11", "10", "9", "8"), Seat.of(A, 60, "2")};
        check(choose(request(false, false, 0, f3, DecisionKind.CHOOSE_TARGET, "FLIP_THREE", seats(0, 1, 2))) == 1,
                "base: Flip Three to the opponent with the biggest line");
        Seat[] mine = {Seat.of(A, 50), Seat.of(A, 60, "1"), Seat.of(A, 60, "2")};
        check(choose(request(false, false, 0, mine, DecisionKind.CHOOSE_TARGET, "FLIP_THREE", seats(0, 1, 2))) == 0,
                "base: Flip Three to myself on an empty line");
        Seat[] f4 = {Seat.of(A, 50, "3"), Seat.of(PlayerStatus.STAYED, 120, "13", "12", "11", "10", "9"), Seat.of(A, 60, "2")};
        check(choose(request(true, false, 0, f4, DecisionKind.CHOOSE_TARGET, "FLIP_FOUR", seats(0, 1, 2))) == 1,
                "vengeance: Flip Four to the stayed opponent with a big line");
        check(choose(request(true, false, 0, f4, DecisionKind.CHOOSE_TARGET, "JUST_ONE_MORE", seats(0, 1, 2))) == 1,
                "vengeance: Just One More! to the stayed opponent with a big line");
        Seat[] sc = {Seat.of(A, 50, "3"), Seat.of(A, 150, "5"), Seat.of(A, 20, "6")};
        check(choose(request(false, false, 0, sc, DecisionKind.GIVE_SECOND_CHANCE, "SECOND_CHANCE", seats(1, 2))) == 1,
                "base: Second Chance to the weakest opponent");
    }

    private void modifiersAndCards() {
        PlayerStatus A = PlayerStatus.ACTIVE;
        PlayerStatus S = PlayerStatus.STAYED;
        Seat[] m = {Seat.of(A, 50, "3"), Seat.of(S, 150, "12", "10"), Seat.of(S, 40, "11", "9")};
        check(choose(request(true, false, 0, m, DecisionKind.GIVE_MODIFIER, "-6", seats(0, 1, 2))) == 1,
                "vengeance: -6 to the leader");
        check(choose(request(true, false, 0, m, DecisionKind.GIVE_MODIFIER, "/2", seats(0, 1, 2))) == 1,
                "vengeance: /2 to the leader");
        Seat[] onlyMe = {Seat.of(A, 50, "3"), Seat.of(S, 150), Seat.of(S, 40)};
        check(choose(request(true, false, 0, onlyMe, DecisionKind.GIVE_MODIFIER, "-6", seats(0, 1, 2))) != 0,
                "vengeance: never -6 to myself when someone else can take it");
        // Steal: not the 12 that would bust me; the 11 is worth more than the 2
        Seat[] st = {Seat.of(A, 50, "12", "3"), Seat.of(S, 100, "12", "11", "2")};
        List<Option> so = List.of(card(1, "12"), card(1, "2"), card(1, "11"));
        check(choose(request(true, false, 0, st, DecisionKind.STEAL, "STEAL", so)) == 2,
                "vengeance: steal the 11 (the 12 busts me)");
        Seat[] zero = {Seat.of(S, 50, "12", "0"), Seat.of(S, 60, "5", "4")};
        List<Option> zo = List.of(card(1, "5"), card(0, "0"), card(1, "4"), card(0, "12"));
        check(choose(request(true, false, 0, zero, DecisionKind.DISCARD, "DISCARD", zo)) == 1,
                "vengeance: discard my own Zero");
        Seat[] sw = {Seat.of(A, 50, "9", "3"), Seat.of(S, 150, "9", "11", "-2"), Seat.of(S, 30, "4")};
        List<Option> swo = List.of(swap(0, "3", 1, "9"), swap(0, "3", 1, "11"), swap(0, "9", 2, "4"), swap(0, "3", 1, "-2"));
        int sw1 = choose(request(true, false, 0, sw, DecisionKind.SWAP, "SWAP", swo));
        check(sw1 == 1, "vengeance: swap my 3 for the leader's 11 (the 9 busts me), got " + sw1);
        Seat[] u = {Seat.of(A, 50, "9", "3"), Seat.of(S, 100, "12", "11", "10", "U7")};
        List<Option> uo = List.of(swap(0, "9", 1, "U7"), swap(0, "3", 1, "12"));
        check(choose(request(true, false, 0, u, DecisionKind.SWAP, "SWAP", uo)) == 1,
                "vengeance: never swap the Unlucky 7 into my line");
    }

    private void flip7Bonus() {
        PlayerStatus A = PlayerStatus.ACTIVE;
        List<Option> o = List.of(
                Option.newBuilder().setFlip7(Flip7Choice.newBuilder().setBonusToSelf(true)).build(),
                Option.newBuilder().setFlip7(Flip7Choice.newBuilder().setPenaltySeat(1)).build(),
                Option.newBuilder().setFlip7(Flip7Choice.newBuilder().setPenaltySeat(2)).build());
        Seat[] lead = {Seat.of(A, 20, "0", "1", "2", "3", "4", "5", "6"), Seat.of(A, 180, "8"), Seat.of(A, 30)};
        check(choose(request(false, true, 0, lead, DecisionKind.FLIP7_BONUS, "", o)) == 1,
                "brutal: -15 to the leader ahead of me");
        Seat[] ahead = {Seat.of(A, 120, "0", "1", "2", "3", "4", "5", "6"), Seat.of(A, 80, "8"), Seat.of(A, 30)};
        check(choose(request(false, true, 0, ahead, DecisionKind.FLIP7_BONUS, "", o)) == 0,
                "brutal: +15 when I lead");
    }

    private static DecisionRequest withId(DecisionRequest req, long id, String game) {
        return req.toBuilder().setRequestId(id).setGameId(game).build();
    }

    /** What the client sends: one answer per request, a batch in one message, failures reported. */
    private void answers() {
        PlayerStatus A = PlayerStatus.ACTIVE;
        Seat[] small = {Seat.of(A, 50, "3"), Seat.of(A, 60, "8")};
        Seat[] big = {Seat.of(A, 50, "12", "11", "10", "9", "8"), Seat.of(A, 60, "8")};
        DecisionRequest hit = withId(request(false, false, 0, small, DecisionKind.HIT_OR_STAY, "", moves(true)), 7, "g1");
        DecisionRequest stay = withId(request(false, false, 0, big, DecisionKind.HIT_OR_STAY, "", moves(true)), 9, "g2");
        ArenaClient.Chooser strategy = this::choose;

        BotMessage reply = ArenaClient.answers(strategy, Batch.newBuilder().addRequests(hit).addRequests(stay).build());
        List<Answer> got = reply.getAnswers().getAnswersList();
        check(reply.getMsgCase() == BotMessage.MsgCase.ANSWERS && got.size() == 2
                        && got.get(0).getRequestId() == 7 && got.get(0).getOptionIndex() == 0
                        && got.get(1).getRequestId() == 9 && got.get(1).getOptionIndex() == 1
                        && got.get(0).getError().isEmpty() && got.get(1).getError().isEmpty(),
                "a batch of two is answered in one message (HIT for 7, STAY for 9), got " + reply);
        Answer lone = ArenaClient.answer(strategy, stay);
        check(lone.getRequestId() == 9 && lone.getOptionIndex() == 1 && lone.getError().isEmpty(),
                "a lone request gets its answer, got " + lone);

        ArenaClient.Chooser failsOnG1 = req -> {
            if (req.getGameId().equals("g1")) throw new IllegalStateException("no line for seat 0");
            return 1;
        };
        got = ArenaClient.answers(failsOnG1, Batch.newBuilder().addRequests(hit).addRequests(stay).build())
                .getAnswers().getAnswersList();
        String error = got.get(0).getError();
        check(got.get(0).getOptionIndex() == 0
                        && error.matches("IllegalStateException: no line for seat 0 \\(SelfTest\\.java:\\d+\\)"),
                "an exception is reported in Answer.error with where it was thrown, got " + got.get(0));
        check(got.get(1).getOptionIndex() == 1 && got.get(1).getError().isEmpty(),
                "the other answers of the batch are unharmed, got " + got.get(1));
        Answer deep = ArenaClient.answer(req -> List.of(1, 2).get(req.getSeat() + 5), hit);
        check(deep.getError().matches("IndexOutOfBoundsException: .* \\(SelfTest\\.java:\\d+\\)"),
                "an exception thrown inside the JDK names the bot's own line, got " + deep);
        Answer outside = ArenaClient.answer(req -> 2, hit);
        check(outside.getOptionIndex() == 0 && outside.getError().equals("choose returned 2 for 2 options"),
                "an index outside the options is reported, got " + outside);
    }
}
