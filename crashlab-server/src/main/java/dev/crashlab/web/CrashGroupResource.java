package dev.crashlab.web;

import dev.crashlab.account.Roles;
import dev.crashlab.crashes.service.CrashGroupService;
import dev.crashlab.diagnose.service.ResolutionService;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestQuery;

/** Crash groups (bundles with the same specific signature), what sets a group apart, confirming a group. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class CrashGroupResource {

    @Inject
    CrashGroupService groups;

    @GET
    @Path("groups")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Crash groups, largest first: [{\"key\",\"label\",\"count\",\"firstSeen\",\"lastSeen\",\"causeId\",\"causeTitle\","
            + "\"confirmed\",\"daily\":[30 counts, oldest first]}]")
    public List<CrashGroupService.Group> list(@RestQuery @DefaultValue("1") int min) {
        if (min < 1) {
            throw new ProblemException(400, "bad-min", "Bad minimum", "min must be at least 1");
        }
        return groups.groups(min);
    }

    @GET
    @Path("groups/{key}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "A crash group: the group, its newest bundles and its correlations (each setting's share in the group"
            + " against all bundles, largest differences first)")
    public CrashGroupService.GroupPage group(@PathParam("key") String key, @RestQuery @DefaultValue("50") int limit) {
        if (limit < 1 || limit > 50) {
            throw new ProblemException(400, "bad-limit", "Bad limit", "limit must be between 1 and 50");
        }
        return groups.group(key, limit);
    }

    /** How many bundles of a group were confirmed. */
    public record GroupConfirmed(String key, String articleId, int confirmed) {}

    @POST
    @Path("groups/{key}/resolution")
    @RolesAllowed(Roles.TRIAGER)
    @Operation(summary = "Confirm a cause for every bundle of a group: body {\"articleId\",\"note\"}; answers how many were confirmed")
    public GroupConfirmed confirm(@PathParam("key") String key, ResolutionResource.ConfirmRequest body) {
        if (body == null) {
            throw new ProblemException(400, "bad-resolution", "Cannot confirm that cause", "send {\"articleId\": ..., \"note\": ...}");
        }
        try {
            return new GroupConfirmed(key, body.articleId(), groups.confirm(key, body.articleId(), body.note()));
        } catch (ResolutionService.Refused e) {
            throw new ProblemException(400, "bad-resolution", "Cannot confirm that cause", e.getMessage());
        }
    }
}
