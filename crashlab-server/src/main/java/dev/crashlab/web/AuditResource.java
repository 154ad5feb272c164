package dev.crashlab.web;

import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Roles;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
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
    @Operation(summary = "The audit trail, newest first; filter by actor, action (a prefix when it ends in `.`), bundle and "
            + "time range (from, to: an ISO-8601 instant, or a date in UTC; to is exclusive, a date counts whole)")
    public AuditLog.Entries list(@RestQuery @DefaultValue("0") String page, @RestQuery @DefaultValue("50") String size,
            @RestQuery String actor, @RestQuery String action, @RestQuery String bundle, @RestQuery String from,
            @RestQuery String to) {
        Long bundleId = bundle == null || bundle.isBlank() ? null
                : (long) Paging.number("bundle", bundle.strip().replaceFirst("^#", ""), 1, Integer.MAX_VALUE);
        Instant start = time("from", from, false);
        Instant end = time("to", to, true);
        if (start != null && end != null && !start.isBefore(end)) {
            throw new ProblemException(400, "bad-time-range", "Bad time range",
                    "`from` (" + start + ") must be before `to` (" + end + ")");
        }
        return audit.list(Paging.number("page", page, 0, Paging.MAX_PAGE), Paging.number("size", size, 1, AuditLog.MAX_PAGE_SIZE),
                new AuditLog.Filter(actor, action, bundleId, start, end));
    }

    @GET
    @Path("/choices")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "The actors and actions the audit trail holds, for its filter")
    public AuditLog.Choices choices() {
        return audit.choices();
    }

    // an instant, a local date-time (UTC) or a date (UTC; as the end of a range, the whole day counts)
    private static Instant time(String name, String text, boolean end) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.strip();
        try {
            if (t.length() == 10) {
                LocalDate d = LocalDate.parse(t);
                return (end ? d.plusDays(1) : d).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return java.time.OffsetDateTime.parse(t).toInstant();
            }
            return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new ProblemException(400, "bad-" + name, "Bad " + name, "`" + (t.length() > 40 ? t.substring(0, 40) + "…" : t)
                    + "` is not a time: give an ISO-8601 instant (2026-11-29T06:00:00Z) or a date (2026-11-29)");
        }
    }
}
