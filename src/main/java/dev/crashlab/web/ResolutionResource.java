package dev.crashlab.web;

import dev.crashlab.diagnosis.ResolutionService;
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

    /** The body of a confirmation. */
    public record ConfirmRequest(String articleId, String note) {}

    @GET
    @Operation(summary = "The bundle's confirmed cause: {\"bundleId\",\"confirmed\":{\"articleId\",\"title\",\"note\",\"confirmedAt\"}|null}")
    public ResolutionService.Resolution get(@RestPath long id) {
        return resolutions.get(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Confirm a KB article as the bundle's cause: body {\"articleId\",\"note\"}; replaces an earlier confirmation")
    public ResolutionService.Resolution confirm(@RestPath long id, ConfirmRequest body) {
        if (body == null) {
            throw new ProblemException(400, "missing-body", "Missing body", "send {\"articleId\": \"...\", \"note\": \"...\"} as JSON");
        }
        try {
            return resolutions.confirm(id, body.articleId(), body.note())
                    .orElseThrow(() -> ProblemException.notFound("no bundle " + id));
        } catch (ResolutionService.Refused e) {
            throw new ProblemException(400, "bad-resolution", "Cannot confirm that cause", e.getMessage());
        }
    }

    @DELETE
    @Operation(summary = "Take the confirmation back (204 whether or not there was one)")
    public Response clear(@RestPath long id) {
        if (!resolutions.clear(id)) {
            throw ProblemException.notFound("no bundle " + id);
        }
        return Response.noContent().build();
    }
}
