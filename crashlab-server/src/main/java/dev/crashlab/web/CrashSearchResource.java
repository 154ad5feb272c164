package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
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

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    // the caller's name as bundle ownership records it (uploader:me)
    private String caller() {
        return dev.crashlab.web.auth.Callers.of(identity).name();
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Search past crashes with the query language (fields such as cause:, exit:, gpu:\"RTX 3090\", driver:<470,"
            + " cuda:11.*, tensorflow:>=2.10, os:, xid:, lib:, confirmed:yes, uploaded:>2026-11-01, uploader:me; free words; -, OR, parentheses):"
            + " {\"query\",\"total\",\"offset\",\"limit\",\"hits\":[{\"bundleId\",\"name\",\"uploadedAt\","
            + "\"likelyCause\":{\"id\",\"title\",\"confirmed\"},\"score\",\"snippets\",\"group\",\"gpu\",\"framework\"}],"
            + "\"facets\":{dim:[{\"value\",\"count\",\"filter\"}]},\"notes\"}; snippets are HTML with <mark> around matches;"
            + " a query that does not parse is a 400 problem saying at which character")
    public CrashSearchService.SearchPage search(@RestQuery String q, @RestQuery("offset") @DefaultValue("0") String offsetText,
                                                @RestQuery("limit") @DefaultValue("20") String limitText) {
        if (q == null || q.isBlank()) {
            throw new ProblemException(400, "missing-query", "Missing query", "pass the words to search for as ?q=");
        }
        int limit = Paging.number("limit", limitText, 1, 50);
        int offset = Paging.number("offset", offsetText, 0, 1000);
        if (q.length() > MAX_QUERY) {
            throw new ProblemException(400, "bad-query", "Query not understood",
                    "the query is longer than " + MAX_QUERY + " characters (at character " + (MAX_QUERY + 1) + ")");
        }
        return crashes.search(q, caller(), offset, limit);
    }

    @GET
    @Path("/export")
    @Produces({"text/csv", MediaType.APPLICATION_JSON})
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Every hit of a search (at most 10,000) as a download: format=csv (default) or json; columns bundleId, name,"
            + " uploadedAt, causeId, cause, confirmed, group, gpu, framework, driver, cuda, os, exitCode")
    public jakarta.ws.rs.core.Response export(@RestQuery String q, @RestQuery @DefaultValue("csv") String format) {
        if (q == null || q.isBlank()) {
            throw new ProblemException(400, "missing-query", "Missing query", "pass the search to export as ?q=");
        }
        if (q.length() > MAX_QUERY) {
            throw new ProblemException(400, "bad-query", "Query not understood", "the query is longer than " + MAX_QUERY + " characters");
        }
        if (!format.equals("csv") && !format.equals("json")) {
            throw new ProblemException(400, "bad-format", "Bad format", "format is csv or json");
        }
        java.util.List<CrashSearchService.ExportRow> rows = crashes.export(q, caller(), CrashSearchService.MAX_EXPORT);
        String name = "crashes." + format;
        if (format.equals("json")) {
            return jakarta.ws.rs.core.Response.ok(rows, MediaType.APPLICATION_JSON)
                    .header("Content-Disposition", ContentDisposition.header("attachment", name)).build();
        }
        StringBuilder csv = new StringBuilder("bundleId,name,uploadedAt,causeId,cause,confirmed,group,gpu,framework,driver,cuda,os,exitCode\r\n");
        for (CrashSearchService.ExportRow r : rows) {
            csv.append(r.bundleId()).append(',').append(cell(r.name())).append(',').append(r.uploadedAt()).append(',')
                    .append(cell(r.causeId())).append(',').append(cell(r.cause())).append(',').append(r.confirmed() ? "yes" : "no").append(',')
                    .append(cell(r.group())).append(',').append(cell(r.gpu())).append(',').append(cell(r.framework())).append(',')
                    .append(cell(r.driver())).append(',').append(cell(r.cuda())).append(',').append(cell(r.os())).append(',')
                    .append(cell(r.exitCode())).append("\r\n");
        }
        return jakarta.ws.rs.core.Response.ok(csv.toString(), "text/csv; charset=utf-8")
                .header("Content-Disposition", ContentDisposition.header("attachment", name)).build();
    }

    // RFC 4180 quoting; a cell a spreadsheet would run as a formula starts with a quote mark
    static String cell(String v) {
        if (v == null) {
            return "";
        }
        String s = !v.isEmpty() && "=+-@\t\r".indexOf(v.charAt(0)) >= 0 ? "'" + v : v;
        return s.matches("[^,\"\r\n]*") ? s : "\"" + s.replace("\"", "\"\"") + "\"";
    }

    /** A field of the query language, for the search box's completion. */
    public record FieldHelp(String name, String example) {}

    @GET
    @Path("/fields")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The query language's fields with an example each: [{\"name\",\"example\"}]")
    public java.util.List<FieldHelp> fields() {
        return CrashQuery.FIELDS.values().stream().map(f -> new FieldHelp(f.name(), f.example())).toList();
    }
}
