package dev.crashlab.web;

import dev.crashlab.account.Roles;
import dev.crashlab.retention.RetentionService;
import dev.crashlab.web.auth.Callers;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** The retention settings and the caller's storage use. */
@Path("/retention")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class RetentionResource {

    @Inject
    RetentionService retention;

    @Inject
    SecurityIdentity identity;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "How long bundles are kept and the caller's storage use: {\"retentionDays\" (0: kept forever),"
            + " \"quotaBytes\" (null: no limit), \"usedBytes\", \"bundles\"}")
    public RetentionService.Usage usage() {
        return retention.usage(Callers.of(identity).name());
    }
}
