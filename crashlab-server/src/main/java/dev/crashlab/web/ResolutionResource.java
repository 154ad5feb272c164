package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.diagnose.service.ResolutionService;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;

/** The cause someone confirmed for a bundle; confirmed crashes are evidence in the diagnosis of similar ones. */
@Path("/bundles/{id}/resolution")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class ResolutionResource {

    @Inject
    ResolutionService resolutions;

    @Inject
    dev.crashlab.account.AuditLog audit;

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    /** The body of a confirmation. */
    public record ConfirmRequest(String articleId, String note) {}

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The bundle's confirmed cause: {\"bundleId\",\"confirmed\":{\"articleId\",\"title\",\"note\",\"confirmedAt\"}|null}")
    public ResolutionService.Resolution get(@RestPath long id) {
        return resolutions.get(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.TRIAGER)
    @Operation(summary = "Confirm a KB article as the bundle's cause: body {\"articleId\",\"note\"}; replaces an earlier confirmation")
    public ResolutionService.Resolution confirm(@RestPath long id, ConfirmRequest body) {
        if (body == null) {
            throw new ProblemException(400, "missing-body", "Missing body", "send {\"articleId\": \"...\", \"note\": \"...\"} as JSON");
        }
        try {
            ResolutionService.Resolution r = resolutions.confirm(id, body.articleId(), body.note())
                    .orElseThrow(() -> ProblemException.notFound("no bundle " + id));
            audit.record(dev.crashlab.web.auth.Callers.of(identity), "cause.confirm", "bundle " + id, body.articleId());
            return r;
        } catch (ResolutionService.Refused e) {
            throw new ProblemException(400, "bad-resolution", "Cannot confirm that cause", e.getMessage());
        }
    }

    @DELETE
    @RolesAllowed(Roles.TRIAGER)
    @Operation(summary = "Take the confirmation back (204 whether or not there was one)")
    public Response clear(@RestPath long id) {
        if (!resolutions.clear(id)) {
            throw ProblemException.notFound("no bundle " + id);
        }
        audit.record(dev.crashlab.web.auth.Callers.of(identity), "cause.unconfirm", "bundle " + id, null);
        return Response.noContent().build();
    }
}
