package flip7.bot;

import flip7.arena.v1.Answer;
import flip7.arena.v1.Answers;
import flip7.arena.v1.ArenaGrpc;
import flip7.arena.v1.ArenaMessage;
import flip7.arena.v1.Batch;
import flip7.arena.v1.BotMessage;
import flip7.arena.v1.DecisionRequest;
import flip7.arena.v1.GameStart;
import flip7.arena.v1.Hello;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One bot's connection to the arena: hello, then answer every request of every game on the
 * stream, until goodbye. With batches (the default) the arena sends every request that is
 * ready in one message and the bot answers them all in one message. A stream that ends
 * without goodbye, or breaks, is opened again with the same token (the arena sends pending
 * requests again); ALREADY_CONNECTED is retried too, every other error is fatal.
 */
final class ArenaClient {
    static final int PROTOCOL_VERSION = 1;
    static final String NAME = "java-ev";
    static final String VERSION = "flip7 java example 1.0 (grpc-java, card counting)";

    /** How one stream ended. */
    record Outcome(Kind kind, String why, boolean welcomed) {
        enum Kind { GOODBYE, RETRY, FATAL }
    }

    /** What chooses an option for a request: the strategy (the self-test passes others). */
    @FunctionalInterface
    interface Chooser {
        int choose(DecisionRequest req);
    }

    private final Transport transport;
    private final String token;
    private final Strategy strategy = new Strategy();
    private final long reconnectForNanos;
    private final boolean debug;
    private final boolean batches;
    /** Games in progress, by game id and seat (a bot may hold several seats of one game). */
    final Map<String, GameStart> games = new ConcurrentHashMap<>();

    ArenaClient(Transport transport, String token, long reconnectForMillis, boolean debug, boolean batches) {
        this.transport = transport;
        this.token = token;
        this.reconnectForNanos = TimeUnit.MILLISECONDS.toNanos(reconnectForMillis);
        this.debug = debug;
        this.batches = batches;
    }

    /**
     * The answer to one request: the chooser's option, or, when it throws or returns an index
     * that is not one of the options, option 0 with {@code error} saying what went wrong (the
     * arena then records the bot's own fault, BOT_ERROR, and plays the safe default).
     */
    static Answer answer(Chooser chooser, DecisionRequest req) {
        Answer.Builder a = Answer.newBuilder().setRequestId(req.getRequestId());
        int index;
        try {
            index = chooser.choose(req);
        } catch (RuntimeException | StackOverflowError e) {
            return a.setOptionIndex(0).setError(describe(e)).build();
        }
        if (index < 0 || index >= req.getOptionsCount()) {
            return a.setOptionIndex(0)
                    .setError("choose returned " + index + " for " + req.getOptionsCount() + " options")
                    .build();
        }
        return a.setOptionIndex(index).build();
    }

    /** One message answering every request of a batch, in the batch's order. */
    static BotMessage answers(Chooser chooser, Batch batch) {
        Answers.Builder all = Answers.newBuilder();
        for (DecisionRequest req : batch.getRequestsList()) all.addAnswers(answer(chooser, req));
        return BotMessage.newBuilder().setAnswers(all).build();
    }

    /**
     * "ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 3 (Table.java:69)":
     * the exception and the innermost line of the bot's own code in its stack (else of any).
     */
    static String describe(Throwable e) {
        String where = "";
        String own = ArenaClient.class.getPackageName() + ".";
        for (StackTraceElement f : e.getStackTrace()) {
            if (f.getFileName() == null || f.getLineNumber() <= 0) continue;
            boolean mine = f.getClassName().startsWith(own);
            if (mine || where.isEmpty()) where = " (" + f.getFileName() + ":" + f.getLineNumber() + ")";
            if (mine) break;
        }
        String text = e.getMessage() != null ? e.getMessage() : "(no message)";
        return e.getClass().getSimpleName() + ": " + text + where;
    }

    /** Plays until goodbye (0), a refusal (2) or an arena that stays away (1). */
    int run() throws InterruptedException {
        long giveUpAt = 0;
        boolean counting = false;
        long delay = 50;
        while (true) {
            Outcome o;
            try {
                o = session();
            } catch (RuntimeException e) {
                o = new Outcome(Outcome.Kind.RETRY, String.valueOf(e), false);
            }
            switch (o.kind()) {
                case GOODBYE:
                    Main.log("goodbye: " + o.why());
                    return 0;
                case FATAL:
                    Main.log("the arena refused this bot: " + o.why());
                    return 2;
                default:
                    break;
            }
            long now = System.nanoTime();
            if (o.welcomed()) { // that session worked: a fresh reconnect window
                counting = false;
                delay = 50;
            }
            if (!counting) {
                counting = true;
                giveUpAt = now + reconnectForNanos;
            }
            if (now - giveUpAt >= 0) {
                Main.log("lost the arena at " + transport.address + ": " + o.why());
                return 1;
            }
            Main.log("stream lost (" + o.why() + "); reconnecting in " + delay + " ms");
            Thread.sleep(delay);
            delay = Math.min(delay * 2, 1000);
        }
    }

    /** One stream, from hello to its end. */
    Outcome session() throws InterruptedException {
        ManagedChannel channel = transport.open();
        try {
            return play(channel);
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    private Outcome play(ManagedChannel channel) throws InterruptedException {
        CompletableFuture<Outcome> done = new CompletableFuture<>();
        Session s = new Session(done);
        StreamObserver<BotMessage> out = ArenaGrpc.newStub(channel).play(s);
        s.out = out;
        s.send(BotMessage.newBuilder()
                .setHello(Hello.newBuilder()
                        .setToken(token)
                        .setBotName(NAME)
                        .setProtocolVersion(PROTOCOL_VERSION)
                        .setMaxConcurrentGames(0)
                        .setBotVersion(VERSION)
                        .setBatches(batches))
                .build());
        try {
            Outcome o = done.get();
            if (o.kind() == Outcome.Kind.GOODBYE) s.close();
            return new Outcome(o.kind(), o.why(), s.welcomed);
        } catch (java.util.concurrent.ExecutionException e) {
            return new Outcome(Outcome.Kind.RETRY, String.valueOf(e.getCause()), s.welcomed);
        }
    }

    /** The arena's side of one stream. Callbacks come one at a time (gRPC serialises them). */
    private final class Session implements StreamObserver<ArenaMessage> {
        private final CompletableFuture<Outcome> done;
        volatile StreamObserver<BotMessage> out;
        volatile boolean welcomed;

        Session(CompletableFuture<Outcome> done) {
            this.done = done;
        }

        synchronized void send(BotMessage m) {
            try {
                out.onNext(m);
            } catch (RuntimeException e) { // the call is already cancelled: the end is coming
                done.complete(new Outcome(Outcome.Kind.RETRY, "send failed: " + e, welcomed));
            }
        }

        synchronized void close() {
            try {
                out.onCompleted();
            } catch (RuntimeException ignored) {
                // already closed
            }
        }

        @Override
        public void onNext(ArenaMessage msg) {
            switch (msg.getMsgCase()) {
                case BATCH: {
                    // every request that was ready: all answered, in one message
                    BotMessage reply = answers(this::choose, msg.getBatch());
                    send(reply);
                    break;
                }
                case REQUEST:
                    send(BotMessage.newBuilder().setAnswer(answer(this::choose, msg.getRequest())).build());
                    break;
                case GAME_START: {
                    GameStart gs = msg.getGameStart();
                    games.put(gs.getGameId() + "#" + gs.getSeat(), gs);
                    break;
                }
                case GAME_END:
                    games.keySet().removeIf(k -> k.startsWith(msg.getGameEnd().getGameId() + "#"));
                    break;
                case WELCOME:
                    welcomed = true;
                    if (debug) {
                        Main.log("welcome: " + msg.getWelcome().getBotName() + " session "
                                + msg.getWelcome().getSessionId() + " via " + transport.kind + ", batches "
                                + (msg.getWelcome().getBatches() ? "on" : "off") + ", "
                                + Main.sinceStart() + " ms after the process started");
                    }
                    break;
                case ERROR: {
                    var err = msg.getError();
                    String why = err.getCode() + ": " + err.getMessage();
                    boolean retry = err.getCode() == flip7.arena.v1.Error.Code.ALREADY_CONNECTED;
                    done.complete(new Outcome(retry ? Outcome.Kind.RETRY : Outcome.Kind.FATAL, why, welcomed));
                    break;
                }
                case GOODBYE:
                    done.complete(new Outcome(Outcome.Kind.GOODBYE, msg.getGoodbye().getReason(), welcomed));
                    break;
                default:
                    break; // a message from a newer protocol: ignore it
            }
        }

        /** The strategy, with the logging: a failure always, every decision under ARENA_LOG=DEBUG. */
        private int choose(DecisionRequest req) {
            long t0 = System.nanoTime();
            int index;
            try {
                index = strategy.choose(req);
            } catch (RuntimeException | StackOverflowError e) {
                Main.log("strategy failed on request " + req.getRequestId() + " (" + req.getKind() + "): "
                        + describe(e) + "; reporting it to the arena");
                throw e;
            }
            if (debug) {
                long us = (System.nanoTime() - t0) / 1000;
                Main.log(req.getKind() + " " + req.getCard() + " -> " + index + " in " + us + " us | "
                        + Strategy.describe(req));
            }
            return index;
        }

        @Override
        public void onError(Throwable t) {
            Status st = Status.fromThrowable(t);
            String why = st.getCode() + (st.getDescription() != null ? " " + st.getDescription() : "");
            done.complete(new Outcome(Outcome.Kind.RETRY, why, welcomed));
        }

        @Override
        public void onCompleted() {
            done.complete(new Outcome(Outcome.Kind.RETRY, "the stream ended without a goodbye", welcomed));
        }
    }
}
