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
import org.jboss.resteasy.reactive.RestQuery;

/** Full-text search over past crashes: what their files said, their likely causes, codes and libraries. */
@Path("/bundles/search")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class CrashSearchResource {

    /** The longest query read; the rest is ignored. */
    static final int MAX_QUERY = 500;

    @Inject
    CrashSearchService crashes;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Search past crashes: {\"query\",\"total\",\"offset\",\"limit\",\"hits\":[{\"bundleId\",\"name\",\"uploadedAt\","
            + "\"likelyCause\":{\"id\",\"title\"},\"score\",\"snippets\"}]}; snippets are HTML with <mark> around matches")
    public CrashSearchService.SearchPage search(@RestQuery String q, @RestQuery("offset") @DefaultValue("0") String offsetText,
                                                @RestQuery("limit") @DefaultValue("20") String limitText) {
        if (q == null || q.isBlank()) {
            throw new ProblemException(400, "missing-query", "Missing query", "pass the words to search for as ?q=");
        }
        int limit = Paging.number("limit", limitText, 1, 50);
        int offset = Paging.number("offset", offsetText, 0, 1000);
        String query = q.length() > MAX_QUERY ? q.substring(0, MAX_QUERY) : q;
        return crashes.search(query, offset, limit);
    }
}
