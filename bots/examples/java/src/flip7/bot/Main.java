package flip7.bot;

/**
 * The Flip 7 Arena Java example bot.
 *
 * <p>The arena starts it with ARENA_ADDRESS ("unix:///path/arena.sock" or "host:port") and
 * ARENA_TOKEN in the environment. ARENA_LOG=DEBUG logs every decision to stderr;
 * ARENA_BATCHES=0 asks for one request per message instead of batches.
 *
 * <p>Exit codes: 0 after the arena's goodbye, 1 when the arena stays unreachable for ~10 s,
 * 2 when it refuses the bot (bad token, version, ...) or the environment is incomplete.
 */
public final class Main {
    /** Time spent warming up before connecting (the arena allows 20 s to connect). */
    static final long WARM_UP_MILLIS = 300;

    private Main() {}

    static void log(String msg) {
        System.err.println("[java-bot] " + msg);
        System.err.flush();
    }

    /** Milliseconds since the JVM process started (for logs). */
    static long sinceStart() {
        return ProcessHandle.current().info().startInstant()
                .map(t -> java.time.Duration.between(t, java.time.Instant.now()).toMillis())
                .orElse(-1L);
    }

    public static void main(String[] args) throws Exception {
        String address = System.getenv("ARENA_ADDRESS");
        String token = System.getenv("ARENA_TOKEN");
        if (address == null || address.isEmpty() || token == null) {
            log("ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them for its bots)");
            System.exit(2);
        }
        boolean debug = "DEBUG".equalsIgnoreCase(System.getenv("ARENA_LOG"));
        // load and compile the strategy before the first real request (a cold JVM answers its
        // first requests in tens of ms, and a burst of games queues behind them)
        long t0 = System.nanoTime();
        int rounds = SelfTest.warmUp(WARM_UP_MILLIS);
        if (debug) Main.log("warmed up: " + rounds + " rounds in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        int code;
        Transport transport = new Transport(address);
        try {
            boolean batches = !"0".equals(System.getenv("ARENA_BATCHES"));
            code = new ArenaClient(transport, token, 10_000, debug, batches).run();
        } finally {
            transport.close();
        }
        // gRPC's shared timer and executor threads are daemons, but say it plainly:
        System.exit(code);
    }
}
