package dev.crashlab.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Times what the server waits for rather than computes (a bundle's row lock, the blob guard, the reading queue), as
 * the {@code crashlab.wait} timer tagged with what was waited for and the route that waited, so that a slow request
 * on {@code /q/metrics} says whether it queued or worked.
 *
 * <p>NOTE: the route is a per-thread tag that the web layer sets for the duration of a request; a wait on a thread
 * with no request (the reading pool, start-up) is tagged {@code background}.
 */
@ApplicationScoped
public class Waits {

    /** The timer's name on {@code /q/metrics} ({@code crashlab_wait_seconds_*}). */
    public static final String METER = "crashlab.wait";

    /** What a thread waits for. */
    public enum What {
        /** A bundle's row lock ({@code select ... for update}): writers of its facts or diagnosis, and deletes. */
        BUNDLE_ROW_LOCK("bundle-row-lock"),
        /** A blob stripe row ({@code blob_stripe}, V48): held for a moment while an upload claims its hashes, or while one unused blob is deleted. */
        BLOB_GUARD("blob-guard"),
        /** A stored bundle's time in line before a reading worker takes it. */
        INGEST_QUEUE("ingest-queue"),
        /** A request that waits for a bundle to be read (a reproduction draft). */
        BUNDLE_READY("bundle-ready"),
        /** An upload's time in line for one of the upload threads ({@code crashlab.upload.concurrency}). */
        UPLOAD_SLOT("upload-slot");

        private final String tag;

        What(String tag) {
            this.tag = tag;
        }

        /** The {@code what} tag's value. */
        public String tag() {
            return tag;
        }
    }

    private static final ThreadLocal<String> ROUTE = new ThreadLocal<>();

    @Inject
    MeterRegistry registry;

    /** Tags the waits of the current thread with {@code route} until {@link #leaveRoute}. */
    public static void enterRoute(String route) {
        ROUTE.set(route);
    }

    /** The current thread's route, or null on a thread with no request. */
    public static String route() {
        return ROUTE.get();
    }

    /** Ends the current thread's route (waits after this are {@code background}). */
    public static void leaveRoute() {
        ROUTE.remove();
    }

    /** Runs {@code body}, timing it as a wait for {@code what}. */
    public <T> T time(What what, Supplier<T> body) {
        long t0 = System.nanoTime();
        try {
            return body.get();
        } finally {
            record(what, System.nanoTime() - t0);
        }
    }

    /** Records a wait of {@code nanos} for {@code what} on the current thread's route. */
    public void record(What what, long nanos) {
        record(what, nanos, ROUTE.get());
    }

    /** Records a wait of {@code nanos} for {@code what} on {@code route} (null: {@code background}). */
    public void record(What what, long nanos, String route) {
        Timer.builder(METER)
                .description("Time spent waiting (locks, queues), not computing")
                .tag("what", what.tag())
                .tag("route", route == null ? "background" : route)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }
}
