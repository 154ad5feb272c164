package dev.crashlab.web;

import dev.crashlab.crashes.CrashQuery;
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
    @Operation(summary = "Search past crashes with the query language (fields such as cause:, exit:, gpu:\"RTX 3090\", driver:<470,"
            + " cuda:11.*, tensorflow:>=2.10, os:, xid:, lib:, confirmed:yes, uploaded:>2026-11-01; free words; -, OR, parentheses):"
            + " {\"query\",\"total\",\"offset\",\"limit\",\"hits\":[{\"bundleId\",\"name\",\"uploadedAt\","
            + "\"likelyCause\":{\"id\",\"title\",\"confirmed\"},\"score\",\"snippets\",\"group\",\"gpu\",\"framework\"}],"
            + "\"facets\":{dim:[{\"value\",\"count\",\"filter\"}]},\"notes\"}; snippets are HTML with <mark> around matches;"
            + " a query that does not parse is a 400 problem saying at which character")
    public CrashSearchService.SearchPage search(@RestQuery String q, @RestQuery @DefaultValue("0") int offset,
                                                @RestQuery @DefaultValue("20") int limit) {
        if (q == null || q.isBlank()) {
            throw new ProblemException(400, "missing-query", "Missing query", "pass the words to search for as ?q=");
        }
        if (limit < 1 || limit > 50) {
            throw new ProblemException(400, "bad-limit", "Bad limit", "limit must be between 1 and 50");
        }
        if (offset < 0 || offset > 1000) {
            throw new ProblemException(400, "bad-offset", "Bad offset", "offset must be between 0 and 1000");
        }
        if (q.length() > MAX_QUERY) {
            throw new ProblemException(400, "bad-query", "Query not understood",
                    "the query is longer than " + MAX_QUERY + " characters (at character " + (MAX_QUERY + 1) + ")");
        }
        return crashes.search(q, offset, limit);
    }

    /** A field of the query language, for the search box's completion. */
    public record FieldHelp(String name, String example) {}

    @GET
    @Path("/fields")
    @Operation(summary = "The query language's fields with an example each: [{\"name\",\"example\"}]")
    public java.util.List<FieldHelp> fields() {
        return CrashQuery.FIELDS.values().stream().map(f -> new FieldHelp(f.name(), f.example())).toList();
    }
}
