package dev.crashlab.repro.jobs;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.repro.jobs.JobViews.SweepReport;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Returns jobs whose worker stopped heart-beating to the queue, every {@code crashlab.lab.sweep-interval}.
 *
 * <p>NOTE: a plain scheduled thread, not the Quarkus scheduler (that extension does not resolve here).
 * Several servers on one database may sweep at once: the service's conditional updates make that safe.
 */
@ApplicationScoped
public class LeaseSweeper {

    private static final Logger LOG = Logger.getLogger(LeaseSweeper.class);

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    CrashLabConfig config;

    @Inject
    ReproJobService jobs;

    private ScheduledExecutorService timer;

    void start(@Observes StartupEvent e) {
        long every = Math.max(100, config.lab().sweepInterval().toMillis());
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crashlab-lease-sweep");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::sweepOnce, every, every, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent e) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private void sweepOnce() {
        try {
            SweepReport r = jobs.sweep(clock.now());
            if (r.requeued() + r.failed() + r.cancelled() > 0) {
                LOG.infof("lease sweep: %d job(s) queued again, %d failed, %d cancelled", r.requeued(), r.failed(), r.cancelled());
            }
        } catch (RuntimeException ex) {
            // the database may be briefly unreachable; the next sweep tries again
            LOG.warnf("lease sweep failed: %s", ex.toString());
        }
    }
}
