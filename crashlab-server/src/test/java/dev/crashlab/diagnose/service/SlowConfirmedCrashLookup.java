package dev.crashlab.diagnose.service;

import dev.crashlab.fact.Fact;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test bean that makes computing one bundle's diagnosis slow: as a {@link ConfirmedCrashLookup} it is asked in the
 * middle of every diagnosis, and for the bundle {@link #arm} names it waits before answering (nothing); idle
 * otherwise, so that the other tests of the app see no difference.
 */
@ApplicationScoped
public class SlowConfirmedCrashLookup implements ConfirmedCrashLookup {

    private volatile String armedName;
    private volatile Duration delay = Duration.ZERO;
    private final AtomicInteger slowed = new AtomicInteger();

    void arm(String bundleName, Duration d) {
        delay = d;
        armedName = bundleName;
    }

    void disarm() {
        armedName = null;
    }

    /** How many diagnoses it has slowed down so far. */
    int slowed() {
        return slowed.get();
    }

    @Override
    public List<Fact> confirmedLike(long bundleId, String bundleName, List<String> paths, List<Fact> facts) {
        if (bundleName.equals(armedName)) {
            slowed.incrementAndGet();
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return List.of();
    }
}
