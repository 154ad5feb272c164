package dev.crashlab.repro.jobs;

import dev.crashlab.config.LabConfig;

import dev.crashlab.AppVersion;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.repro.worker.ChildJvm;
import dev.crashlab.repro.worker.DeviceProbe;
import dev.crashlab.repro.worker.ReproWorker;
import dev.crashlab.repro.worker.WorkerSettings;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * Runs the server's own worker when {@code crashlab.lab.local-worker} is true (the default, with the CPU
 * backend), so a one-command start can reproduce without a lab machine.
 *
 * <p>NOTE: jobs still run in child JVMs; this process only supervises them and never loads JCuda.
 */
@ApplicationScoped
public class LocalWorker {

    private static final Logger LOG = Logger.getLogger(LocalWorker.class);

    /** The local worker's name in the worker list. */
    public static final String NAME = "local";

    @Inject
    CrashLabConfig config;

    @Inject
    ReproJobService jobs;

    private volatile ReproWorker worker;
    private volatile boolean stopped;
    private Thread thread;

    void start(@Observes StartupEvent e) {
        LabConfig lab = config.lab();
        if (!lab.localWorker()) {
            LOG.info("local reproduction worker off (crashlab.lab.local-worker=false)");
            return;
        }
        WorkerSettings settings = new WorkerSettings(NAME, lab.localBackend(), lab.pollInterval(), lab.timeLimit(),
                lab.childMaxHeap(), config.dataDir().toAbsolutePath().resolve("lab"), WorkerSettings.REPLAY_MAIN,
                ChildJvm.classpathOf(System.getProperty("java.class.path")));
        thread = Thread.ofPlatform().name("crashlab-local-worker").daemon(true).start(() -> {
            // probing starts a JVM: do it here, not on the start-up path
            ReproWorker w = new ReproWorker(new InProcessJobSource(jobs), settings, DeviceProbe.probe(settings),
                    AppVersion.version(), LOG::info);
            worker = w;
            if (!stopped) {
                w.run();
            }
        });
        LOG.infof("local reproduction worker on (%s backend)", lab.localBackend());
    }

    void stop(@Observes ShutdownEvent e) {
        stopped = true;
        ReproWorker w = worker;
        if (w != null) {
            w.stop();
        }
        if (thread != null) {
            thread.interrupt();
        }
    }
}
