package dev.crashlab.parse.evtx;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.winevent.WindowsEventTyping;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;

/**
 * Reads a binary Windows event log (.evtx) into {@link WindowsEvent} facts, one per record, plus the typed
 * facts {@link WindowsEventTyping} derives from them (application faults, WER reports, TDRs, ...).
 *
 * <p>NOTE: a fact's source line is the record's EventRecordID and its text a one-line summary of the
 * record; the reader's problems become {@link ParseProblem}s (the first {@link #MAX_PROBLEMS}, then a count).
 */
public final class EvtxParser implements ArtifactParser {

    /** The most problems reported one by one per file. */
    static final int MAX_PROBLEMS = 200;

    @Override
    public String name() {
        return "evtx";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.EVTX);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        int[] problems = {0};
        try (EvtxReader reader = EvtxReader.open(input.openBytes(), input.size(), p -> {
            if (++problems[0] <= MAX_PROBLEMS) {
                out.problem(new ParseProblem.MalformedInput(
                        new SourceRef(input.path(), Math.max(p.record(), 0), ""), p.kind() + ": " + p.message()));
            }
        })) {
            while (reader.hasNext()) {
                EvtxRecord r = reader.next();
                WindowsEvent event = event(r, input.path());
                out.fact(event);
                WindowsEventTyping.typed(event).forEach(out::fact);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (problems[0] > MAX_PROBLEMS) {
            out.problem(new ParseProblem.MalformedInput(new SourceRef(input.path(), 0, ""),
                    (problems[0] - MAX_PROBLEMS) + " more problems not listed (bin/crashlab evtx --problems lists all)"));
        }
        return out.build();
    }

    /** Turns a record into the same fact the Event Viewer text and XML parsers produce. */
    static WindowsEvent event(EvtxRecord r, String artifact) {
        return new WindowsEvent(r.provider(), r.eventId(), r.qualifiers(), r.levelName(), r.timeCreated(), r.computer(),
                r.channel(), r.recordId(), r.data(), null, List.of(new SourceRef(artifact, r.recordId(), summary(r))));
    }

    /** A one-line rendering: time, level, provider, id, then the data values. */
    static String summary(EvtxRecord r) {
        StringBuilder sb = new StringBuilder(160);
        sb.append(r.timeCreated()).append(' ').append(r.levelName()).append(' ').append(r.provider())
                .append(' ').append(r.eventId());
        int n = 0;
        for (var e : r.data().entrySet()) {
            if (sb.length() > 600) {
                sb.append(" …");
                break;
            }
            sb.append(n++ == 0 ? ": " : "; ").append(e.getKey()).append('=')
                    .append(e.getValue().replace('\n', ' ').replace('\r', ' '));
        }
        return sb.toString();
    }
}
