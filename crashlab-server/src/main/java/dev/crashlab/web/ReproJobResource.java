package dev.crashlab.web;

import dev.crashlab.account.Caller;
import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.jobs.JobProgress;
import dev.crashlab.repro.jobs.JobTarget;
import dev.crashlab.repro.jobs.JobViews.JobPage;
import dev.crashlab.repro.jobs.JobViews.JobView;
import dev.crashlab.repro.jobs.ReproJobService;
import dev.crashlab.repro.jobs.SpecDrafts;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestStreamElementType;

/** Create, list, show, cancel and watch reproduction jobs; draft and size specs. */
@Path("/repro")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class ReproJobResource {

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    dev.crashlab.account.AuditLog audit;

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    @Inject
    ReproJobService jobs;

    @Inject
    SpecDrafts drafts;

    @Inject
    dev.crashlab.ingest.BundleIngest ingest;

    @Inject
    JobProgress progress;

    @Inject
    EventStreamLimit streams;

    /**
     * What a client sends to create a job.
     *
     * @param bundleId the bundle the job reproduces; its ConvSpec facts give the spec when none is sent
     * @param spec the (edited) spec in the reproduction JSON format; optional when a bundle is named. Kept as the
     *     request's tree until {@link SpecDrafts#check} reads it, so that a bad spec is a 422 naming every bad field
     * @param target {@code any} (default), {@code worker:<name>} or {@code gpu:<model>}
     * @param memoryCapBytes the memory to emulate (the reporter's card); null or 0 for none
     */
    public record CreateJob(Long bundleId, @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = dev.crashlab.repro.ReproSpec.class, description = "a reproduction spec, its \"format\": 1 document") JsonNode spec, String target, Long memoryCapBytes) {}

    @POST
    @Path("/jobs")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.LAB)
    @Operation(summary = "Queue a reproduction job: a bundle's extracted spec, or an edited spec")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the queued job", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = JobView.class)))
    public Response create(CreateJob request) {
        if (request == null) {
            throw badRequest("send {\"bundleId\", \"spec\", \"target\", \"memoryCapBytes\"}; at least a bundleId or a spec");
        }
        JobTarget target;
        try {
            target = JobTarget.parse(request.target());
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage());
        }
        if (request.memoryCapBytes() != null && request.memoryCapBytes() < 0) {
            throw badRequest("memoryCapBytes must be positive (or 0 / absent for no cap)");
        }
        ReproSpec spec;
        if (request.spec() == null || request.spec().isNull()) {
            if (request.bundleId() == null) {
                throw badRequest("send a spec, or a bundleId whose model facts give one");
            }
            ingest.awaitReady(request.bundleId());
            spec = drafts.draft(request.bundleId()).spec();
            if (spec == null) {
                throw new ProblemException(422, "no-spec", "No convolution to replay", "bundle " + request.bundleId()
                        + " states no convolution layers (no Keras model config, model.summary() or cuDNN repro); "
                        + "send a spec instead");
            }
        } else {
            if (request.bundleId() != null) {
                drafts.requireBundle(request.bundleId());
            }
            spec = drafts.check(request.spec()).spec();
        }
        Long cap = request.memoryCapBytes() == null || request.memoryCapBytes() == 0 ? null : request.memoryCapBytes();
        Caller caller = dev.crashlab.web.auth.Callers.of(identity);
        JobView job = jobs.create(request.bundleId(), spec, target, cap, caller.name(), clock.now());
        audit.record(caller, "job.create", "job " + job.id(),
                request.bundleId() == null ? "edited spec" : "bundle " + request.bundleId());
        return Response.created(URI.create("/api/repro/jobs/" + job.id())).entity(job).build();
    }

    @GET
    @Path("/jobs")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "List reproduction jobs, newest first (all, or one bundle's)")
    public JobPage list(@RestQuery Long bundleId, @RestQuery @DefaultValue("0") String page,
            @RestQuery @DefaultValue("20") String size) {
        return jobs.list(bundleId, Paging.number("page", page, 0, Paging.MAX_PAGE), Paging.number("size", size, 1, 100));
    }

    @GET
    @Path("/drafts/{bundleId}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The spec a bundle's facts describe, its memory estimate, and the reporter's card's memory")
    public SpecDrafts.Draft draft(@RestPath long bundleId) {
        ingest.awaitReady(bundleId);
        return drafts.draft(bundleId);
    }

    /** A spec to check and size. */
    public record SpecBody(@org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = dev.crashlab.repro.ReproSpec.class, description = "a reproduction spec, its \"format\": 1 document") JsonNode spec) {}

    @POST
    @Path("/estimate")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Check an (edited) spec and estimate its memory; 422 names each bad field")
    public SpecDrafts.Checked estimate(SpecBody body) {
        if (body == null || body.spec() == null || body.spec().isNull()) {
            throw badRequest("send {\"spec\": {...}}");
        }
        return drafts.check(body.spec());
    }

    @GET
    @Path("/jobs/{id}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Show a reproduction job with its spec and result")
    public JobView get(@RestPath long id) {
        return jobs.find(id).orElseThrow(() -> ProblemException.notFound("no reproduction job " + id));
    }

    @POST
    @Path("/jobs/{id}/cancel")
    @RolesAllowed(Roles.LAB)
    @Operation(summary = "Cancel a job: at once if queued, at its worker's next heartbeat if running")
    public JobView cancel(@RestPath long id) {
        JobView job = jobs.cancel(id, clock.now());
        audit.record(dev.crashlab.web.auth.Callers.of(identity), "job.cancel", "job " + id, null);
        return job;
    }

    @GET
    @Path("/jobs/{id}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Server-sent events: the job now and on every change, until it ends. Open streams are "
            + "capped per user and in total (429 with Retry-After past the cap)")
    public Multi<JobView> events(@RestPath long id) {
        if (jobs.find(id).isEmpty()) {
            throw ProblemException.notFound("no reproduction job " + id);
        }
        EventStreamLimit.Slot slot = streams.open(dev.crashlab.web.auth.Callers.of(identity).name());
        return progress.watch(id).onTermination().invoke(slot::close);
    }

    private static ProblemException badRequest(String detail) {
        return new ProblemException(400, "bad-repro-request", "Bad reproduction request", detail);
    }
}
