package dev.crashlab.web;

import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Roles;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestQuery;

/** The audit trail: who uploaded, deleted, confirmed, ran or cancelled what, and when (admins only). */
@Path("/audit")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class AuditResource {

    @Inject
    AuditLog audit;

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "The audit trail, newest first; filter by actor or action")
    public AuditLog.Entries list(@RestQuery @DefaultValue("0") int page, @RestQuery @DefaultValue("50") int size,
            @RestQuery String actor, @RestQuery String action) {
        return audit.list(page, size, actor, action);
    }
}
