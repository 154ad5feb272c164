package dev.crashlab.repro.jobs;

import dev.crashlab.repro.worker.JobSource;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Heartbeat;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import java.util.Optional;

/** Feeds the server's own local worker straight from the job service, without HTTP or a token. */
final class InProcessJobSource implements JobSource {

    private final ReproJobService jobs;
    private final dev.crashlab.config.DbClock clock;

    InProcessJobSource(ReproJobService jobs, dev.crashlab.config.DbClock clock) {
        this.clock = clock;
        this.jobs = jobs;
    }

    @Override
    public Optional<ClaimedJob> claim(ClaimRequest me) {
        return jobs.claim(me, clock.now());
    }

    @Override
    public HeartbeatReply heartbeat(long jobId, String worker, String progress) {
        return jobs.heartbeat(jobId, new Heartbeat(worker, progress), clock.now());
    }

    @Override
    public void complete(long jobId, Completion completion) {
        jobs.complete(jobId, completion, clock.now());
    }
}
