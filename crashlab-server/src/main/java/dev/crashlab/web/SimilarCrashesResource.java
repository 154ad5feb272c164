package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.crashes.service.CrashSearchService;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/** The past crashes most like a bundle, with what each shares with it. */
@Path("/bundles/{id}/similar")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class SimilarCrashesResource {

    @Inject
    CrashSearchService crashes;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Similar past crashes: {\"bundleId\",\"signature\":[{\"key\",\"label\",\"specific\"}],\"similar\":[{\"bundleId\",\"name\","
            + "\"uploadedAt\",\"likelyCause\",\"similarity\",\"shared\":[{\"key\",\"label\",\"specific\"}]}]}; only crashes sharing a specific "
            + "term (a code, a library, a module, an event, the likely cause) are listed")
    public CrashSearchService.SimilarCrashes similar(@RestPath long id, @RestQuery("limit") @DefaultValue("5") String limitText) {
        int limit = Paging.number("limit", limitText, 1, 50);
        return crashes.similar(id, limit).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
    }
}
