package dev.crashlab.retention;

import dev.crashlab.config.RetentionConfig;
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
 * Runs the retention sweep every {@code crashlab.retention.sweep-interval} while retention is on.
 *
 * <p>NOTE: a plain scheduled thread, not the Quarkus scheduler (that extension does not resolve here).
 */
@ApplicationScoped
public class RetentionSweeper {

    private static final Logger LOG = Logger.getLogger(RetentionSweeper.class);

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    RetentionConfig config;

    @Inject
    RetentionService retention;

    private ScheduledExecutorService timer;

    void start(@Observes StartupEvent e) {
        if (config.days() <= 0) {
            return;
        }
        long every = Math.max(200, config.sweepInterval().toMillis());
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crashlab-retention-sweep");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::sweepOnce, every, every, TimeUnit.MILLISECONDS);
        LOG.infof("retention: bundles older than %d days are deleted unless pinned or confirmed (checked every %s)",
                config.days(), config.sweepInterval());
    }

    void stop(@Observes ShutdownEvent e) {
        if (timer != null) {
            // no interrupt: a sweep under way may be writing the past-crash index, whose lock an interrupt breaks
            timer.shutdown();
            try {
                timer.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void sweepOnce() {
        try {
            retention.sweep(clock.now());
        } catch (RuntimeException ex) {
            // the database may be briefly unreachable; the next sweep tries again
            LOG.warnf("retention sweep failed: %s", ex.toString());
        }
    }
}
