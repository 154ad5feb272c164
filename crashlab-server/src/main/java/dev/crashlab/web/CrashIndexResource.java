package dev.crashlab.web;

import dev.crashlab.account.Roles;
import dev.crashlab.crashes.service.CrashSearchService;
import dev.crashlab.crashes.service.CrashSearchService.IndexDrift;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** Admin only: this server's past-crash index compared with the database (drift detection, issue 24). */
@Path("/admin/crash-index")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
@RolesAllowed(Roles.ADMIN)
public class CrashIndexResource {

    @Inject
    CrashSearchService search;

    @POST
    @Path("/verify")
    @Operation(summary = "Compare this server's past-crash index with the database; repair=true (the default) indexes again what differs")
    public IndexDrift verify(@QueryParam("repair") Boolean repair) {
        return search.verifyIndex(repair == null || repair);
    }
}
