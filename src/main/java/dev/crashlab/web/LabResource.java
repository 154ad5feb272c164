package dev.crashlab.web;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.repro.jobs.JobViews.JobView;
import dev.crashlab.repro.jobs.JobViews.WorkerView;
import dev.crashlab.repro.jobs.ReproJobService;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Heartbeat;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Lists the lab's workers, and serves the worker protocol (claim, heartbeat, complete) to
 * {@code bin/crashlab worker} processes that present the bearer token.
 */
@Path("/lab")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class LabResource {

    @Inject
    ReproJobService jobs;

    @Inject
    CrashLabConfig config;

    /**
     * The lab as the UI shows it.
     *
     * @param workers every worker heard from, most recent first
     * @param remoteWorkers whether lab machines may connect (a token is configured)
     * @param localWorker whether the server runs its own worker
     */
    public record Lab(List<WorkerView> workers, boolean remoteWorkers, boolean localWorker) {}

    @GET
    @Path("/workers")
    @Operation(summary = "List the workers and their devices")
    public Lab workers() {
        return new Lab(jobs.workers(Instant.now()), config.lab().workerToken().filter(t -> !t.isBlank()).isPresent(),
                config.lab().localWorker());
    }

    @POST
    @Path("/claim")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Worker protocol: claim the next job (204 when there is none)")
    public Response claim(ClaimRequest request, @RestHeader("Authorization") String authorization) {
        authorize(authorization);
        if (request == null) {
            throw new ProblemException(400, "bad-claim", "Bad claim", "send {\"worker\", \"backend\", \"devices\", \"version\"}");
        }
        Optional<ClaimedJob> job = jobs.claim(request, Instant.now());
        return job.map(j -> Response.ok(j).build()).orElseGet(() -> Response.noContent().build());
    }

    @POST
    @Path("/jobs/{id}/heartbeat")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Worker protocol: extend the lease on a job; the reply says whether to stop it")
    public HeartbeatReply heartbeat(@RestPath long id, Heartbeat beat, @RestHeader("Authorization") String authorization) {
        authorize(authorization);
        if (beat == null) {
            throw new ProblemException(400, "bad-heartbeat", "Bad heartbeat", "send {\"worker\", \"progress\"}");
        }
        return jobs.heartbeat(id, beat, Instant.now());
    }

    @POST
    @Path("/jobs/{id}/complete")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Worker protocol: report how a job ended")
    public JobView complete(@RestPath long id, Completion done, @RestHeader("Authorization") String authorization) {
        authorize(authorization);
        if (done == null) {
            throw new ProblemException(400, "bad-completion", "Bad completion", "send {\"worker\", \"state\", \"reason\", \"result\"}");
        }
        return jobs.complete(id, done, Instant.now());
    }

    // Workers are off without a token; with one, the header must carry it (compared in constant time).
    private void authorize(String authorization) {
        Optional<String> token = config.lab().workerToken().filter(t -> !t.isBlank());
        if (token.isEmpty()) {
            throw new ProblemException(503, "workers-disabled", "Remote workers disabled",
                    "this server accepts no remote workers: set crashlab.lab.worker-token (environment "
                            + "CRASHLAB_LAB_WORKER_TOKEN) on the server and start the worker with the same --token");
        }
        String presented = authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                ? authorization.substring(7).strip() : "";
        if (!MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), token.get().getBytes(StandardCharsets.UTF_8))) {
            throw new ProblemException(401, "bad-worker-token", "Bad worker token",
                    "the worker protocol needs `Authorization: Bearer <crashlab.lab.worker-token>`; the token "
                            + (presented.isEmpty() ? "is missing" : "does not match"));
        }
    }
}
