package dev.crashlab.web;

import dev.crashlab.account.Roles;
import dev.crashlab.crashes.service.CrashGroupService;
import dev.crashlab.web.problem.ProblemException;
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

/** Crashes per day by cause (its own class: a literal class path wins over {@code /bundles/{id}}). */
@Path("/bundles/trends")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class CrashTrendsResource {

    @Inject
    CrashGroupService groups;

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Crashes per day by likely or confirmed cause over the last `days` days (UTC), of the bundles `q` matches"
            + " (all when absent): {\"days\":[...],\"series\":[{\"causeId\",\"title\",\"counts\",\"total\"}],\"total\"}")
    public CrashGroupService.Trends trends(@RestQuery String q, @RestQuery @DefaultValue("30") int days) {
        if (days < 1 || days > 366) {
            throw new ProblemException(400, "bad-days", "Bad number of days", "days must be between 1 and 366");
        }
        if (q != null && q.length() > CrashSearchResource.MAX_QUERY) {
            throw new ProblemException(400, "bad-query", "Query not understood", "the query is longer than "
                    + CrashSearchResource.MAX_QUERY + " characters");
        }
        return groups.trends(q, dev.crashlab.web.auth.Callers.of(identity).name(), days);
    }
}
