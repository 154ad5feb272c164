package dev.crashlab.web;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.domain.DomainException;
import dev.crashlab.domain.DomainException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Caps open server-sent event streams: each holds a connection and a polling task for as long as the
 * browser keeps it, so a caller (or all of them) could otherwise pile them up without end.
 * {@code crashlab.http.max-event-streams} (total) and {@code crashlab.http.max-event-streams-per-user}.
 */
@ApplicationScoped
public class EventStreamLimit {

    /** Seconds a refused caller is told to wait (streams end when their job ends or a tab closes). */
    static final long RETRY_AFTER_SECONDS = 10;

    @Inject
    CrashLabConfig config;

    private final Map<String, Integer> perCaller = new HashMap<>();
    private int total;

    /** One open stream; {@link #close()} gives it back (more than once is harmless). */
    public final class Slot implements AutoCloseable {
        private final String caller;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Slot(String caller) {
            this.caller = caller;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                release(caller);
            }
        }
    }

    /** Takes a slot for {@code caller}, or refuses (429) when the caller or the server is at its cap. */
    public synchronized Slot open(String caller) {
        int mine = perCaller.getOrDefault(caller, 0);
        if (mine >= config.http().maxEventStreamsPerUser()) {
            throw new DomainException(Kind.TOO_MANY, "too-many-streams", "Too many live views open",
                    "you have " + mine + " live job views open already, the most one user may have "
                            + "(crashlab.http.max-event-streams-per-user); close some browser tabs and reload",
                    RETRY_AFTER_SECONDS);
        }
        if (total >= config.http().maxEventStreams()) {
            throw new DomainException(Kind.TOO_MANY, "too-many-streams", "Too many live views open",
                    "the server has " + total + " live job views open, its limit (crashlab.http.max-event-streams); "
                            + "try again shortly", RETRY_AFTER_SECONDS);
        }
        perCaller.put(caller, mine + 1);
        total++;
        return new Slot(caller);
    }

    /** Streams open now (for tests and the log). */
    public synchronized int open() {
        return total;
    }

    private synchronized void release(String caller) {
        perCaller.computeIfPresent(caller, (k, n) -> n <= 1 ? null : n - 1);
        total = Math.max(0, total - 1);
    }
}
