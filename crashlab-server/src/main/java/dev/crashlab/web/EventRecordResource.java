package dev.crashlab.web;

import dev.crashlab.account.Roles;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.BundleViews.ArtifactContent;
import dev.crashlab.parse.evtx.EvtxReader;
import dev.crashlab.parse.evtx.EvtxRecord;
import dev.crashlab.parse.evtx.EvtxRecordWindow;
import dev.crashlab.sniff.ArtifactType;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * One event of a stored Windows event log (.evtx), by its record number, with its neighbours: what an evidence
 * link such as {@code System.evtx:62782} opens, so that the page never downloads or parses the whole binary file.
 */
@Path("/bundles/{id}/artifacts/{artifactId}/events")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class EventRecordResource {

    /** Neighbours on each side at most. */
    static final int MAX_NEIGHBOURS = 10;

    @Inject
    BundleService bundles;

    /**
     * One event as the page shows it: Event Viewer's fields, the event's data by name, and its XML (as text).
     *
     * @param recordId the EventRecordID
     * @param time when it was created (the record's written time when the XML has none), ISO-8601 UTC
     * @param level Critical, Error, Warning, Information or Verbose; null when the event has no level
     * @param data EventData values by name, or UserData leaves, in document order
     */
    public record EventView(long recordId, String time, String level, String provider, Integer eventId, String channel,
            String computer, Map<String, String> data, String xml) {

        static EventView of(EvtxRecord r) {
            return new EventView(r.recordId(), r.timeCreated() != null ? r.timeCreated() : r.writtenTime(), r.levelName(),
                    r.provider(), r.eventId(), r.channel(), r.computer(), r.data(), r.xml());
        }
    }

    /** The event asked for, and its neighbours in file order (oldest first). */
    public record EventWindow(String artifact, EventView event, List<EventView> before, List<EventView> after) {}

    @GET
    @Path("/{recordId}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "One event of a stored .evtx artifact by its EventRecordID, with up to `neighbours` (0-10, "
            + "default 3) events before and after it: {\"artifact\", \"event\", \"before\", \"after\"}; each event "
            + "{\"recordId\", \"time\", \"level\", \"provider\", \"eventId\", \"channel\", \"computer\", \"data\", \"xml\"}")
    public EventWindow event(@RestPath long id, @RestPath long artifactId, @RestPath String recordId,
            @RestQuery @DefaultValue("3") int neighbours) throws IOException {
        long record = parseRecord(recordId);
        if (neighbours < 0 || neighbours > MAX_NEIGHBOURS) {
            throw new ProblemException(400, "bad-neighbours", "Bad neighbours",
                    "neighbours must be 0 to " + MAX_NEIGHBOURS + ", not " + neighbours);
        }
        ArtifactContent a = bundles.artifact(id, artifactId)
                .orElseThrow(() -> ProblemException.notFound("bundle " + id + " has no artifact " + artifactId));
        if (!ArtifactType.EVTX.name().equals(a.type())) {
            throw new ProblemException(400, "not-an-event-log", "Not an event log",
                    a.path() + " is not a Windows event log (.evtx); open it as a file instead");
        }
        // the chunks whose headers hold the record first; an exported log's headers may not, so then the whole file
        Optional<EvtxRecordWindow> found;
        try (InputStream in = bundles.blobs().open(a.sha256());
                EvtxReader near = EvtxReader.openNear(in, a.size(), record - neighbours, record + neighbours, p -> {})) {
            found = EvtxRecordWindow.find(near, record, neighbours);
        }
        if (found.isEmpty()) {
            try (InputStream in = bundles.blobs().open(a.sha256()); EvtxReader all = EvtxReader.open(in, a.size(), p -> {})) {
                found = EvtxRecordWindow.find(all, record, neighbours);
            }
        }
        EvtxRecordWindow w = found.orElseThrow(() -> ProblemException.notFound(
                a.path() + " has no readable event with record number " + record));
        return new EventWindow(a.path(), EventView.of(w.record()), w.before().stream().map(EventView::of).toList(),
                w.after().stream().map(EventView::of).toList());
    }

    private static long parseRecord(String text) {
        try {
            long n = Long.parseLong(text);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new ProblemException(400, "bad-record-number", "Bad record number",
                "a record number is a whole number of 0 or more, not " + (text.length() > 40 ? text.substring(0, 40) + "..." : text));
    }
}
