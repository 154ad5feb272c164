package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
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
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Lists the lab's workers, and serves the worker protocol (claim, heartbeat, complete) to
 * {@code bin/crashlab worker} processes, each with its own worker token (bound to its name).
 */
@Path("/lab")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class LabResource {

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    ReproJobService jobs;

    @Inject
    CrashLabConfig config;

    @Inject
    dev.crashlab.account.TokenService tokens;

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    /**
     * The lab as the UI shows it.
     *
     * @param workers every worker heard from, most recent first
     * @param remoteWorkers whether lab machines may connect (an admin has made worker tokens)
     * @param localWorker whether the server runs its own worker
     */
    public record Lab(List<WorkerView> workers, boolean remoteWorkers, boolean localWorker) {}

    @GET
    @Path("/workers")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "List the workers and their devices")
    public Lab workers() {
        return new Lab(jobs.workers(clock.now()), !tokens.workers().isEmpty(), config.lab().localWorker());
    }

    @POST
    @Path("/claim")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(summary = "Worker protocol: claim the next job (204 when there is none)")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "the claimed job (204: none)", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = ClaimedJob.class)))
    public Response claim(ClaimRequest request) {
        if (request == null) {
            throw new ProblemException(400, "bad-claim", "Bad claim", "send {\"worker\", \"backend\", \"devices\", \"version\"}");
        }
        authorize(request.worker());
        java.util.Optional<ClaimedJob> job = jobs.claim(request, clock.now());
        return job.map(j -> Response.ok(j).build()).orElseGet(() -> Response.noContent().build());
    }

    @POST
    @Path("/jobs/{id}/heartbeat")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(summary = "Worker protocol: extend the lease on a job; the reply says whether to stop it")
    public HeartbeatReply heartbeat(@RestPath long id, Heartbeat beat) {
        if (beat == null) {
            throw new ProblemException(400, "bad-heartbeat", "Bad heartbeat", "send {\"worker\", \"progress\"}");
        }
        authorize(beat.worker());
        return jobs.heartbeat(id, beat, clock.now());
    }

    @POST
    @Path("/jobs/{id}/complete")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(summary = "Worker protocol: report how a job ended")
    public JobView complete(@RestPath long id, Completion done) {
        if (done == null) {
            throw new ProblemException(400, "bad-completion", "Bad completion", "send {\"worker\", \"state\", \"reason\", \"result\"}");
        }
        authorize(done.worker());
        return jobs.complete(id, done, clock.now());
    }

    // A worker token acts as its own worker only: the name in the body must be the token's.
    private void authorize(String worker) {
        dev.crashlab.account.Caller c = dev.crashlab.web.auth.Callers.of(identity);
        if (c.workerName() == null || !c.workerName().equals(worker)) {
            throw new ProblemException(403, "wrong-worker", "Not this worker's token",
                    "this token " + (c.workerName() == null ? "is not a worker token" : "belongs to worker `" + c.workerName() + "`")
                            + "; a worker may claim, heartbeat and complete only under its own name (an admin makes "
                            + "worker tokens on the Admin page or with POST /api/admin/worker-tokens)");
        }
    }
}
