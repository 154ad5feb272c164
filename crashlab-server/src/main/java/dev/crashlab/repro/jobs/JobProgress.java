package dev.crashlab.repro.jobs;

import dev.crashlab.repro.jobs.JobViews.JobView;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Streams a job's changes to the browser: the job as it is now, then each time it changes, until it
 * reaches a final state.
 *
 * <p>NOTE: it polls the database (every {@link #POLL}) instead of listening to in-process events,
 * because the worker that changes a job may report to another server process on the same database.
 */
@ApplicationScoped
public class JobProgress {

    /** How often a watched job is re-read. */
    static final Duration POLL = Duration.ofMillis(300);

    @Inject
    ReproJobService jobs;

    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "crashlab-job-progress");
        t.setDaemon(true);
        return t;
    });

    /** Emits the job now and on every change; completes after its final state, or if it disappears. */
    public Multi<JobView> watch(long id) {
        return Multi.createFrom().emitter(em -> {
            AtomicReference<JobView> last = new AtomicReference<>();
            AtomicBoolean over = new AtomicBoolean();
            em.onTermination(() -> over.set(true));
            timer.scheduleWithFixedDelay(() -> {
                if (over.get()) {
                    throw new CancellationException("stream over"); // ends this periodic task
                }
                try {
                    Optional<JobView> now = jobs.find(id);
                    if (now.isEmpty()) {
                        em.complete();
                        return;
                    }
                    JobView v = now.get();
                    if (!v.equals(last.get())) {
                        last.set(v);
                        em.emit(v);
                    }
                    if (v.state().isFinal()) {
                        em.complete();
                    }
                } catch (RuntimeException e) {
                    em.fail(e);
                }
            }, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        });
    }

    void stop(@Observes ShutdownEvent e) {
        timer.shutdownNow();
    }
}
