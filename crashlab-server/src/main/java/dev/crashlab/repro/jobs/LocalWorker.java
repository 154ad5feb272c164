package dev.crashlab.repro.jobs;

import dev.crashlab.config.LabConfig;
import dev.crashlab.AppVersion;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.repro.worker.ChildJvm;
import dev.crashlab.repro.worker.DeviceProbe;
import dev.crashlab.repro.worker.JobSource;
import dev.crashlab.repro.worker.ReproWorker;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import dev.crashlab.repro.worker.WorkerSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Runs the server's own worker when {@code crashlab.lab.local-worker} is true (the default, with the CPU
 * backend), so a one-command start can reproduce without a lab machine, and supervises its thread: a thread
 * that dies (an {@link OutOfMemoryError} in it, say) is logged at ERROR, counted, shown in {@code /q/health}
 * ({@link LocalWorkerHealth}) and {@code /q/metrics} ({@code crashlab_local_worker_deaths_total},
 * {@code crashlab_local_worker_alive}), and started again after a pause that doubles per death in a row (1 s up to
 * a minute). A job it held when it died is given to a worker again when its lease runs out.
 *
 * <p>NOTE: jobs still run in child JVMs; this process only supervises them and never loads JCuda.
 */
@ApplicationScoped
public class LocalWorker {

    private static final Logger LOG = Logger.getLogger(LocalWorker.class);

    /** The local worker's name in the worker list. */
    public static final String NAME = "local";

    private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
    private static final Duration MAX_PAUSE = Duration.ofMinutes(1);
    /** A thread that ran this long before dying starts its successor after the first pause again. */
    private static final Duration STABLE = Duration.ofMinutes(5);

    /** What the supervisor knows, for health and metrics. */
    public record State(boolean enabled, boolean alive, int deaths, Instant lastDeathAt, String lastDeath) {}

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    CrashLabConfig config;

    @Inject
    ReproJobService jobs;

    @Inject
    MeterRegistry metrics;

    private volatile ReproWorker worker;
    private volatile boolean stopped;
    private volatile boolean enabled;
    private volatile Thread thread;
    private volatile List<Device> devices;
    private final AtomicInteger deaths = new AtomicInteger();
    private volatile Instant lastDeathAt;
    private volatile String lastDeath;
    /** A failure the next claim throws inside the worker thread (tests: a death as an out-of-memory error causes it). */
    private final AtomicReference<Error> injected = new AtomicReference<>();
    private int deathsInARow;

    void start(@Observes StartupEvent e) {
        metrics.gauge("crashlab.local.worker.alive", this, w -> w.state().alive() ? 1 : 0);
        metrics.more().counter("crashlab.local.worker.deaths", List.of(), deaths);
        LabConfig lab = config.lab();
        if (!lab.localWorker()) {
            LOG.info("local reproduction worker off (crashlab.lab.local-worker=false)");
            return;
        }
        enabled = true;
        WorkerSettings settings = new WorkerSettings(NAME, lab.localBackend(), lab.pollInterval(), lab.timeLimit(),
                lab.childMaxHeap(), config.dataDir().toAbsolutePath().resolve("lab"), WorkerSettings.REPLAY_MAIN,
                ChildJvm.classpathOf(System.getProperty("java.class.path")));
        launch(settings, Duration.ZERO);
        LOG.infof("local reproduction worker on (%s backend)", lab.localBackend());
    }

    private synchronized void launch(WorkerSettings settings, Duration pause) {
        if (stopped) {
            return;
        }
        Instant started = Instant.now();
        Thread t = Thread.ofPlatform().name("crashlab-local-worker").daemon(true).unstarted(() -> {
            try {
                if (!pause.isZero()) {
                    Thread.sleep(pause);
                }
                if (devices == null) {
                    devices = DeviceProbe.probe(settings); // probing starts a JVM: here, not on the start-up path
                }
                ReproWorker w = new ReproWorker(new Supervised(new InProcessJobSource(jobs, clock)), settings, devices,
                        AppVersion.version(), LOG::info);
                worker = w;
                if (!stopped) {
                    w.run();
                }
                if (!stopped) {
                    died(settings, started, "its loop returned without being stopped");
                }
            } catch (InterruptedException ie) {
                if (!stopped) {
                    died(settings, started, "interrupted");
                }
            } catch (Throwable death) {
                worker = null;
                if (!stopped) {
                    died(settings, started, death.toString());
                }
                if (death instanceof VirtualMachineError && !(death instanceof OutOfMemoryError)) {
                    throw death; // an internal JVM error: nothing to recover, let it show
                }
            }
        });
        thread = t;
        t.start();
    }

    private void died(WorkerSettings settings, Instant started, String why) {
        Duration pause;
        synchronized (this) {
            deathsInARow = Duration.between(started, Instant.now()).compareTo(STABLE) > 0 ? 1 : deathsInARow + 1;
            long millis = FIRST_PAUSE.toMillis() << Math.min(deathsInARow - 1, 16);
            pause = Duration.ofMillis(Math.min(millis, MAX_PAUSE.toMillis()));
        }
        int n = deaths.incrementAndGet();
        lastDeathAt = Instant.now();
        lastDeath = why;
        LOG.errorf("local reproduction worker died (%s); death %d, restarting it in %d ms", why, n, pause.toMillis());
        launch(settings, pause);
    }

    /** What the supervisor knows now. */
    public State state() {
        Thread t = thread;
        return new State(enabled, enabled && t != null && t.isAlive() && !stopped, deaths.get(), lastDeathAt, lastDeath);
    }

    /**
     * Makes the worker thread's next claim throw {@code failure}, as an out-of-memory error in the worker loop
     * would. For tests of the supervision; no endpoint reaches it.
     */
    void failNextClaim(Error failure) {
        injected.set(failure);
    }

    void stop(@Observes ShutdownEvent e) {
        stopped = true;
        ReproWorker w = worker;
        if (w != null) {
            w.stop();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** The job source with the injected failure (if any) thrown at the next claim. */
    private final class Supervised implements JobSource {
        private final JobSource inner;

        Supervised(JobSource inner) {
            this.inner = inner;
        }

        @Override
        public Optional<ClaimedJob> claim(ClaimRequest me) throws IOException, InterruptedException {
            Error failure = injected.getAndSet(null);
            if (failure != null) {
                throw failure;
            }
            return inner.claim(me);
        }

        @Override
        public HeartbeatReply heartbeat(long jobId, String worker, String progress) throws IOException, InterruptedException {
            return inner.heartbeat(jobId, worker, progress);
        }

        @Override
        public void complete(long jobId, Completion completion) throws IOException, InterruptedException {
            inner.complete(jobId, completion);
        }
    }
}
