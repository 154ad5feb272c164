package dev.crashlab.repro.jobs;

import dev.crashlab.config.LabConfig;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.config.FirstInsert;
import dev.crashlab.repro.JobResult;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.jobs.JobViews.JobPage;
import dev.crashlab.repro.jobs.JobViews.JobSummary;
import dev.crashlab.repro.jobs.JobViews.JobView;
import dev.crashlab.repro.jobs.JobViews.SweepReport;
import dev.crashlab.repro.jobs.JobViews.WorkerView;
import dev.crashlab.repro.worker.JobState;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerMessages.Heartbeat;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import dev.crashlab.domain.DomainException;
import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Keeps the queue of reproduction jobs: creates and cancels them for users, hands them to workers under
 * a lease, takes heartbeats and results, and returns jobs whose worker went silent to the queue.
 *
 * <p>NOTE: every state change is a conditional update ({@code ... where id = ? and state = ?}), so two
 * workers claiming at once, or a heartbeat racing the lease sweep, cannot both win: on PostgreSQL and
 * H2 the second update waits for the first's row lock and then matches nothing. Specs and results are stored as
 * their wire JSON ({@link ReproJson}) and read back into their records; a stored spec that this version no longer
 * reads fails its job at the next claim instead of reaching a worker.
 */
@ApplicationScoped
@Transactional
public class ReproJobService {

    private static final int MAX_PAGE_SIZE = 100;
    /** Queued jobs a claim reads at a time while looking for one whose target admits the worker. */
    private static final int CLAIM_WINDOW = 50;

    @Inject
    Event<JobFinished> finished;

    @Inject
    CrashLabConfig config;

    private LabConfig lab() {
        return config.lab();
    }

    /** Queues a job for {@code spec} on nobody's behalf (tests, tools); the caller has validated the spec. */
    public JobView create(Long bundleId, ReproSpec spec, JobTarget target, Long memoryCapBytes, Instant now) {
        return create(bundleId, spec, target, memoryCapBytes, null, now);
    }

    /**
     * Queues a job for {@code spec}, queued by {@code createdBy} (a caller name; null: nobody's); the caller has
     * validated the spec. Refused when the queue is full, or when {@code createdBy} has
     * {@code crashlab.lab.max-queued-per-user} jobs waiting already.
     */
    public JobView create(Long bundleId, ReproSpec spec, JobTarget target, Long memoryCapBytes, String createdBy, Instant now) {
        if (createdBy != null) {
            long mine = ReproJob.count("createdBy = ?1 and state = ?2", createdBy, JobState.QUEUED);
            if (mine >= lab().maxQueuedPerUser()) {
                throw new DomainException(DomainException.Kind.TOO_MANY, "too-many-queued-jobs", "Too many of your jobs waiting",
                        "you have " + mine + " jobs waiting already, the most one user may have (crashlab.lab.max-queued-per-user); "
                                + "cancel some, or wait until workers have run them", 60);
            }
        }
        long waiting = ReproJob.count("state", JobState.QUEUED);
        if (waiting >= lab().maxQueued()) {
            throw new DomainException(DomainException.Kind.CONFLICT, "queue-full", "Job queue full", waiting
                    + " jobs are waiting already (crashlab.lab.max-queued); cancel some, or wait until workers have run them");
        }
        ReproJob j = new ReproJob();
        j.bundleId = bundleId;
        j.specJson = ReproJson.write(spec);
        if (j.specJson.length() > ReproJob.MAX_JSON) {
            throw new DomainException(DomainException.Kind.TOO_LARGE, "spec-too-large", "Spec too large", "the spec is " + j.specJson.length()
                    + " characters of JSON; at most " + ReproJob.MAX_JSON + " fit");
        }
        j.target = target.toString();
        j.memoryCapBytes = memoryCapBytes;
        j.createdBy = createdBy;
        j.state = JobState.QUEUED;
        j.attempts = 0;
        j.maxAttempts = Math.max(1, lab().maxAttempts());
        j.createdAt = now;
        j.updatedAt = now;
        j.persist();
        return view(j);
    }

    /** Returns one job in full. */
    public Optional<JobView> find(long id) {
        return ReproJob.<ReproJob>findByIdOptional(id).map(this::view);
    }

    /** Lists jobs newest first, all of them or one bundle's. */
    public JobPage list(Long bundleId, int page, int size) {
        int s = Math.max(1, Math.min(MAX_PAGE_SIZE, size));
        int p = Math.max(0, page);
        var query = bundleId == null
                ? ReproJob.<ReproJob>findAll(Sort.descending("id"))
                : ReproJob.<ReproJob>find("bundleId", Sort.descending("id"), bundleId);
        List<JobSummary> items = query.page(Page.of(p, s)).list().stream().map(ReproJobService::summary).toList();
        return new JobPage(items, p, s, query.count());
    }

    /**
     * Cancels a job: a queued one at once; a claimed or running one at its worker's next heartbeat (or
     * at the lease sweep if the worker is gone). A finished job cannot be cancelled (409).
     */
    public JobView cancel(long id, Instant now) {
        ReproJob j = require(id);
        if (j.state == JobState.QUEUED && ReproJob.update("state = ?1, reason = ?2, finishedAt = ?3, updatedAt = ?3"
                + " where id = ?4 and state = ?5", JobState.CANCELLED, "cancelled before a worker took it", now, id,
                JobState.QUEUED) == 1) {
            return view(refreshed(j));
        }
        if (ReproJob.update("cancelRequested = true, updatedAt = ?1 where id = ?2 and state in (?3, ?4)", now, id,
                JobState.CLAIMED, JobState.RUNNING) == 1) {
            return view(refreshed(j));
        }
        j = refreshed(j);
        throw new DomainException(DomainException.Kind.CONFLICT, "job-finished", "Job already finished",
                "job " + id + " already ended as " + j.state.wire() + "; nothing to cancel");
    }

    /** Gives the oldest queued job this worker may run to it, under a fresh lease; empty if none. */
    public Optional<ClaimedJob> claim(ClaimRequest worker, Instant now) {
        checkWorkerName(worker.worker());
        RegisteredWorker w = register(worker, now);
        Instant lease = now.plus(lab().lease());
        // Pages through the whole queue, oldest first, so that jobs no worker can run (a GPU nobody has, a
        // worker that is gone) never hide a claimable one; jobs bound to other workers are skipped in SQL.
        long after = -1;
        while (true) {
            List<ReproJob> queued = ReproJob.<ReproJob>find("state = ?1 and id > ?2 and (target not like 'worker:%' or target = ?3)",
                    Sort.ascending("id"), JobState.QUEUED, after, "worker:" + worker.worker())
                    .page(Page.ofSize(CLAIM_WINDOW)).list();
            if (queued.isEmpty()) {
                break;
            }
            after = queued.getLast().id;
            Optional<ClaimedJob> won = claimFirst(queued, worker, w, lease, now);
            if (won.isPresent()) {
                return won;
            }
        }
        w.currentJob = null;
        return Optional.empty();
    }

    private Optional<ClaimedJob> claimFirst(List<ReproJob> queued, ClaimRequest worker, RegisteredWorker w, Instant lease,
            Instant now) {
        for (ReproJob j : queued) {
            if (!JobTarget.parse(j.target).admits(worker)) {
                continue;
            }
            ReproSpecJson.Read spec = ReproSpecJson.read(j.specJson);
            if (!spec.ok()) {
                ReproJob.update("state = ?1, reason = ?2, finishedAt = ?3, updatedAt = ?3 where id = ?4 and state = ?5",
                        JobState.FAILED, truncate("its stored spec no longer reads: " + spec.problems().getFirst(), 2000),
                        now, j.id, JobState.QUEUED);
                continue;
            }
            int won = ReproJob.update("state = ?1, worker = ?2, leaseExpiresAt = ?3, attempts = attempts + 1,"
                    + " cancelRequested = false, progress = null, updatedAt = ?4 where id = ?5 and state = ?6",
                    JobState.CLAIMED, worker.worker(), lease, now, j.id, JobState.QUEUED);
            if (won == 1) {
                ReproJob.getEntityManager().refresh(j);
                w.currentJob = j.id;
                return Optional.of(new ClaimedJob(j.id, spec.spec(), j.memoryCapBytes, j.attempts,
                        Math.max(1, lab().lease().toSeconds())));
            }
        }
        return Optional.empty();
    }

    /** Extends a worker's lease on a job, records its progress, and says whether to stop. */
    public HeartbeatReply heartbeat(long id, Heartbeat beat, Instant now) {
        checkWorkerName(beat.worker());
        ReproJob j = require(id);
        Instant lease = now.plus(lab().lease());
        String progress = beat.progress() == null ? null : truncate(beat.progress(), 512);
        int held = ReproJob.update("state = ?1, leaseExpiresAt = ?2, progress = ?3, startedAt = coalesce(startedAt, ?4),"
                + " updatedAt = ?4 where id = ?5 and worker = ?6 and state in (?7, ?8)", JobState.RUNNING, lease,
                progress, now, id, beat.worker(), JobState.CLAIMED, JobState.RUNNING);
        RegisteredWorker.<RegisteredWorker>findByIdOptional(beat.worker()).ifPresent(w -> w.lastSeen = now);
        j = refreshed(j);
        if (held == 0) {
            return new HeartbeatReply(true, "job " + id + " is no longer held by " + beat.worker() + " (it is "
                    + j.state.wire() + (j.worker == null ? "" : ", worker " + j.worker) + ")", null);
        }
        return j.cancelRequested
                ? new HeartbeatReply(true, "cancelled by a user", lease)
                : new HeartbeatReply(false, null, lease);
    }

    /** Records how a job ended, if the worker still holds it (409 otherwise). */
    public JobView complete(long id, Completion done, Instant now) {
        checkWorkerName(done.worker());
        if (done.state() == null || !done.state().isFinal()) {
            throw new DomainException(DomainException.Kind.INVALID, "bad-completion", "Not a final state",
                    "a completion needs a final state (passed, failed, crashed, timed-out, cancelled), not "
                            + (done.state() == null ? "none" : done.state().wire()));
        }
        ReproJob j = require(id);
        String result = done.result() == null ? null : ReproJson.write(done.result());
        if (result != null && result.length() > ReproJob.MAX_JSON) {
            throw new DomainException(DomainException.Kind.TOO_LARGE, "result-too-large", "Result too large", "the result is "
                    + result.length() + " characters of JSON; at most " + ReproJob.MAX_JSON + " fit");
        }
        int held = ReproJob.update("state = ?1, reason = ?2, resultJson = ?3, finishedAt = ?4, updatedAt = ?4,"
                + " leaseExpiresAt = null where id = ?5 and worker = ?6 and state in (?7, ?8)", done.state(),
                done.reason() == null ? null : truncate(done.reason(), 2000), result, now, id, done.worker(),
                JobState.CLAIMED, JobState.RUNNING);
        j = refreshed(j);
        if (held == 0) {
            throw new DomainException(DomainException.Kind.CONFLICT, "job-not-held", "Job not held by this worker", "job " + id
                    + " is " + j.state.wire() + (j.worker == null ? "" : " with worker " + j.worker)
                    + "; " + done.worker() + " no longer holds it, so its result was not recorded");
        }
        RegisteredWorker.<RegisteredWorker>findByIdOptional(done.worker()).ifPresent(w -> {
            w.lastSeen = now;
            w.currentJob = null;
        });
        if (j.bundleId != null) {
            // a replay is evidence: whoever keeps a diagnosis of the bundle reacts (it is computed again on its next read)
            finished.fire(new JobFinished(j.id, j.bundleId));
        }
        return view(j);
    }

    /**
     * Ends every lease that expired before {@code now}: the job goes back to the queue, or fails once it
     * has used its attempts, or ends cancelled if a cancel was waiting for the silent worker.
     */
    public SweepReport sweep(Instant now) {
        List<ReproJob> expired = ReproJob.list("state in (?1, ?2) and leaseExpiresAt < ?3", JobState.CLAIMED,
                JobState.RUNNING, now);
        int requeued = 0;
        int failed = 0;
        int cancelled = 0;
        for (ReproJob j : expired) {
            String lost = "worker " + j.worker + " stopped heart-beating during attempt " + j.attempts;
            String cond = " where id = ?4 and state = ?5 and leaseExpiresAt < ?3";
            if (j.cancelRequested) {
                cancelled += ReproJob.update("state = ?1, reason = ?2, finishedAt = ?3, updatedAt = ?3, leaseExpiresAt = null"
                        + cond, JobState.CANCELLED, "cancelled; " + lost, now, j.id, j.state);
            } else if (j.attempts >= j.maxAttempts) {
                failed += ReproJob.update("state = ?1, reason = ?2, finishedAt = ?3, updatedAt = ?3, leaseExpiresAt = null"
                        + cond, JobState.FAILED, lost + "; gave up after " + j.attempts + " attempts", now, j.id, j.state);
            } else {
                requeued += ReproJob.update("state = ?1, reason = ?2, updatedAt = ?3, leaseExpiresAt = null, worker = null,"
                        + " progress = null" + cond, JobState.QUEUED, lost + "; queued again", now, j.id, j.state);
            }
        }
        return new SweepReport(requeued, failed, cancelled);
    }

    /** Lists the workers the server has heard from, most recently seen first. */
    public List<WorkerView> workers(Instant now) {
        Instant offline = now.minus(lab().workerOffline());
        return RegisteredWorker.<RegisteredWorker>listAll(Sort.descending("lastSeen")).stream()
                .map(w -> new WorkerView(w.name, w.backend, devices(w.devicesJson), w.version, w.firstSeen, w.lastSeen,
                        w.lastSeen.isAfter(offline), w.currentJob))
                .toList();
    }

    /**
     * The worker's row, made at its first claim and updated at each. A worker behind a load balancer (or the local
     * worker of several servers, all named {@code local}) may make its first claims on two servers at once: both find
     * no row, so the row is made in a transaction of its own ({@link FirstInsert}), and the loser of the race on the
     * name updates the winner's row, in this transaction.
     */
    private RegisteredWorker register(ClaimRequest req, Instant now) {
        RegisteredWorker w = RegisteredWorker.findById(req.worker());
        if (w == null) {
            FirstInsert.ifAbsent(() -> {
                RegisteredWorker fresh = new RegisteredWorker();
                fresh.name = req.worker();
                fresh.firstSeen = now;
                seen(fresh, req, now).persistAndFlush();
            });
            w = RegisteredWorker.findById(req.worker());
            if (w == null) {
                throw new IllegalStateException("worker " + req.worker() + " was registered, yet its row is not there");
            }
        }
        return seen(w, req, now);
    }

    private static RegisteredWorker seen(RegisteredWorker w, ClaimRequest req, Instant now) {
        w.backend = truncate(req.backend() == null ? "unknown" : req.backend(), 32);
        String devices = ReproJson.write(req.devices());
        w.devicesJson = devices.length() > 8000 ? "[]" : devices;
        w.version = req.version() == null ? null : truncate(req.version(), 64);
        w.lastSeen = now;
        return w;
    }

    private static void checkWorkerName(String name) {
        if (name == null || name.isBlank() || name.length() > 128 || !name.matches("[A-Za-z0-9._:@-]+")) {
            throw new DomainException(DomainException.Kind.INVALID, "bad-worker-name", "Bad worker name",
                    "a worker name is 1 to 128 letters, digits and . _ : @ - (got `" + truncate(String.valueOf(name), 140) + "`)");
        }
    }

    private ReproJob require(long id) {
        return ReproJob.<ReproJob>findByIdOptional(id)
                .orElseThrow(() -> DomainException.notFound("no reproduction job " + id));
    }

    // Re-reads a row after a bulk update, which bypasses the persistence context.
    private static ReproJob refreshed(ReproJob j) {
        ReproJob.getEntityManager().refresh(j);
        return j;
    }

    private JobView view(ReproJob j) {
        return new JobView(j.id, j.bundleId, j.state, j.target, j.memoryCapBytes, j.worker, j.attempts, j.maxAttempts,
                j.cancelRequested, j.progress, j.reason, j.leaseExpiresAt, j.createdAt, j.startedAt, j.finishedAt,
                ReproSpecJson.read(j.specJson).spec(), result(j));
    }

    private static JobSummary summary(ReproJob j) {
        return new JobSummary(j.id, j.bundleId, j.state, j.target, j.memoryCapBytes, j.worker, j.attempts, j.progress,
                j.reason, j.createdAt, j.finishedAt);
    }

    private static List<Device> devices(String text) {
        try {
            return ReproJson.mapper().readValue(text, new TypeReference<List<Device>>() {});
        } catch (JsonProcessingException e) {
            return List.of();
        }
    }

    // Every stored result was written by ReproJson (see ReproJson.readJobResult); one that does not read shows as none.
    private static JobResult result(ReproJob j) {
        if (j.resultJson == null) {
            return null;
        }
        try {
            return ReproJson.readJobResult(j.resultJson);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
