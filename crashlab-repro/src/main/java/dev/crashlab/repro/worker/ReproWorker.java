package dev.crashlab.repro.worker;

import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReplayResult;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Claims reproduction jobs one at a time and runs each in a child JVM under a wall-clock limit,
 * heart-beating while it runs, and reports how it ended: the replay's result, or how the child died.
 *
 * <p>NOTE: the completion's result is a {@link JobResult}: the child's {@link ReplayResult} (read back from its result
 * file; null when it wrote none that reads), how the child ended, the worker and the backend. A child that
 * exits 0 with a result file ended as its replay says ({@code unavailable} becomes {@code failed}); any
 * other exit is {@code crashed}. When the worker itself stops mid-job it kills the child and reports
 * nothing: the lease runs out and the server gives the job to another worker.
 */
public final class ReproWorker implements Runnable {

    private static final Duration SLICE = Duration.ofMillis(100);

    private final JobSource source;
    private final WorkerSettings settings;
    private final List<Device> devices;
    private final String version;
    private final Consumer<String> log;
    private volatile boolean stopping;
    private volatile ChildRun current;
    private volatile Thread thread;
    private final StartupCache startupCache;

    /**
     * Creates a worker for {@code source}; {@code log} receives one line per event (claims, ends, errors).
     */
    public ReproWorker(JobSource source, WorkerSettings settings, List<Device> devices, String version,
            Consumer<String> log) {
        this.source = source;
        this.settings = settings;
        this.devices = List.copyOf(devices);
        this.version = version;
        this.log = log;
        this.startupCache = StartupCache.forThisJvm(settings.scratch().resolve("startup-cache"), log);
    }

    /** What this worker tells the server when it claims. */
    public ClaimRequest claimRequest() {
        return new ClaimRequest(settings.name(), settings.backend(), devices, version);
    }

    /** Claims and runs jobs until {@link #stop()}; a failing server is retried after the poll interval. */
    @Override
    public void run() {
        thread = Thread.currentThread();
        while (!stopping) {
            try {
                if (!runOne()) {
                    Thread.sleep(settings.pollInterval());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException | RuntimeException e) {
                log.accept("worker " + settings.name() + ": " + e.getMessage());
                try {
                    Thread.sleep(settings.pollInterval());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Stops the loop; a running child is killed and its job left to the lease sweep. */
    public void stop() {
        stopping = true;
        ChildRun run = current;
        if (run != null) {
            run.kill(ChildExit.Ending.CANCELLED);
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Claims one job and runs it to the end; returns false when there was none to claim. */
    public boolean runOne() throws IOException, InterruptedException {
        Optional<ClaimedJob> claimed = source.claim(claimRequest());
        if (claimed.isEmpty()) {
            return false;
        }
        ClaimedJob job = claimed.get();
        log.accept("worker " + settings.name() + ": job " + job.id() + " claimed (attempt " + job.attempt() + ")");
        Optional<Completion> done = execute(job);
        if (done.isPresent()) {
            source.complete(job.id(), done.get());
            log.accept("worker " + settings.name() + ": job " + job.id() + " " + done.get().state().wire() + ": "
                    + done.get().reason());
        }
        return true;
    }

    /** Runs one claimed job in a child JVM; empty when the worker stopped before it ended. */
    Optional<Completion> execute(ClaimedJob job) throws IOException, InterruptedException {
        // a first heartbeat before the child starts: a JVM start on a loaded machine can take a good part of a lease
        HeartbeatReply first = source.heartbeat(job.id(), settings.name(), "starting the replay process");
        if (first.cancel()) {
            log.accept("worker " + settings.name() + ": job " + job.id() + " stopped before it started: " + first.reason());
            return Optional.empty();
        }
        Path dir = Files.createDirectories(settings.scratch()).resolve("job-" + job.id() + "-" + job.attempt());
        Files.createDirectories(dir);
        try {
            Path spec = Files.writeString(dir.resolve("spec.json"), ReproSpecJson.write(job.spec()));
            Path result = dir.resolve("result.json");
            List<String> args = new ArrayList<>(List.of(ChildProtocol.SPEC, spec.toString(),
                    ChildProtocol.RESULT, result.toString(), ChildProtocol.BACKEND, settings.backend()));
            if (job.memoryCapBytes() != null && job.memoryCapBytes() > 0) {
                args.add(ChildProtocol.MEMORY_CAP);
                args.add(Long.toString(job.memoryCapBytes()));
            }
            ChildRun run;
            ChildJvm child = settings.child(args);
            try {
                run = child.start(dir.resolve("child.log"), startupCache.flags(child, settings.backend()));
            } catch (IOException e) {
                ChildExit never = new ChildExit(ChildExit.Ending.NOT_STARTED, null, null, 0, e.getMessage());
                return Optional.of(completion(JobState.FAILED, never.describe() + ": " + e.getMessage(), null, never));
            }
            current = run;
            try {
                supervise(job, run);
            } finally {
                current = null;
            }
            ChildExit exit = run.exit();
            if (stopping && exit.ending() == ChildExit.Ending.CANCELLED) {
                return Optional.empty();
            }
            return Optional.of(judge(exit, result));
        } finally {
            deleteTree(dir);
        }
    }

    // Waits for the child in short slices: kills it at its limit, heartbeats, and kills it when told to.
    private void supervise(ClaimedJob job, ChildRun run) throws InterruptedException {
        Duration beat = Duration.ofMillis(Math.max(200, job.leaseSeconds() * 1000 / 3));
        long nextBeat = System.nanoTime() + beat.toNanos();
        while (!run.waitFor(SLICE)) {
            if (stopping) {
                run.kill(ChildExit.Ending.CANCELLED);
                return;
            }
            if (run.elapsed().compareTo(settings.timeLimit()) >= 0) {
                run.kill(ChildExit.Ending.TIMED_OUT);
                return;
            }
            long now = System.nanoTime();
            if (now - nextBeat >= 0) {
                nextBeat = now + beat.toNanos();
                try {
                    HeartbeatReply reply = source.heartbeat(job.id(), settings.name(), LogTail.lastProgress(run.logTail()));
                    if (reply.cancel()) {
                        log.accept("worker " + settings.name() + ": job " + job.id() + " stopped: " + reply.reason());
                        run.kill(ChildExit.Ending.CANCELLED);
                        return;
                    }
                } catch (IOException e) {
                    // the server may be restarting; the child goes on, and a lease that runs out requeues the job
                    log.accept("worker " + settings.name() + ": heartbeat for job " + job.id() + " failed: " + e.getMessage());
                }
            }
        }
    }

    // How the job ended, from how the child ended and what it wrote.
    private Completion judge(ChildExit exit, Path resultFile) {
        ReplayResult replay = null;
        if (exit.ending() == ChildExit.Ending.EXITED && Files.isRegularFile(resultFile)) {
            try {
                replay = ReproJson.mapper().readValue(resultFile.toFile(), ReplayResult.class);
            } catch (IOException e) {
                replay = null; // judged below as a child that wrote no result
            }
        }
        return switch (exit.ending()) {
            case TIMED_OUT -> completion(JobState.TIMED_OUT, exit.describe() + " (limit "
                    + settings.timeLimit().toSeconds() + " s)", replay, exit);
            case CANCELLED -> completion(JobState.CANCELLED, exit.describe(), replay, exit);
            case NOT_STARTED -> completion(JobState.FAILED, exit.describe(), replay, exit);
            case EXITED -> {
                if (exit.exitCode() != 0 || replay == null || replay.status() == null) {
                    String why = exit.exitCode() == 0 ? exit.describe() + " but wrote no result" : exit.describe();
                    yield completion(JobState.CRASHED, why, replay, exit);
                }
                ReplayResult.Status status = replay.status();
                String reason = replay.reason() != null ? replay.reason() : "the replay " + status.label();
                JobState state = switch (status) {
                    case PASSED -> JobState.PASSED;
                    case CRASHED -> JobState.CRASHED;
                    case TIMED_OUT -> JobState.TIMED_OUT;
                    case FAILED, UNAVAILABLE -> JobState.FAILED;
                };
                if (status == ReplayResult.Status.UNAVAILABLE) {
                    reason = "backend unavailable on " + settings.name() + ": " + reason;
                }
                yield completion(state, reason, replay, exit);
            }
        };
    }

    private Completion completion(JobState state, String reason, ReplayResult replay, ChildExit exit) {
        return new Completion(settings.name(), state, reason,
                new JobResult(replay, exit.wire(), settings.name(), settings.backend()));
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // scratch left behind is harmless; the next job uses another folder
        }
    }
}
