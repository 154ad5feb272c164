package dev.crashlab.crashes.service;

import dev.crashlab.diagnose.service.DiagnosisStored;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test bean that makes storing one bundle's diagnosis fail after every other observer of {@link DiagnosisStored}
 * has run (a later priority), so that the storing transaction rolls back; idle until {@link #arm} names a bundle.
 */
@ApplicationScoped
public class FailingDiagnosisStore {

    private volatile long armed = -1;
    private final AtomicInteger failed = new AtomicInteger();

    void arm(long bundleId) {
        armed = bundleId;
    }

    void disarm() {
        armed = -1;
    }

    int failed() {
        return failed.get();
    }

    void onStored(@Observes @Priority(Interceptor.Priority.APPLICATION + 900) DiagnosisStored d) {
        if (d.bundleId() == armed) {
            failed.incrementAndGet();
            throw new IllegalStateException("test: storing the diagnosis of bundle " + d.bundleId() + " fails");
        }
    }
}
