package dev.crashlab.repro.worker;

import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import java.io.IOException;
import java.util.Optional;

/**
 * Hands jobs to a worker and takes back their heartbeats and results: the server over HTTP for a lab
 * machine, or the job service directly for the server's own local worker.
 */
public interface JobSource {

    /** Claims the next job this worker can run, if any. */
    Optional<ClaimedJob> claim(ClaimRequest me) throws IOException, InterruptedException;

    /** Extends the lease on a job; the reply says whether to stop it. */
    HeartbeatReply heartbeat(long jobId, String worker, String progress) throws IOException, InterruptedException;

    /** Reports how a job ended. */
    void complete(long jobId, Completion completion) throws IOException, InterruptedException;
}
