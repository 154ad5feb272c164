package dev.crashlab.parse.winevent;

import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.List;
import java.util.Set;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads Event Viewer XML ("Save as XML" {@code <Events>}, the XML view's lone {@code <Event>}, {@code wevtutil
 * qe /f:xml}'s root-less list) into {@code WindowsEvent}s and their typed facts, streaming.
 *
 * <p>NOTE: RenderingInfo (in any language) supplies the message and, where the System block lacks a number,
 * the level; DTDs and entities are refused (see {@link EventXmlReader}).
 */
public final class WindowsEventXmlParser implements ArtifactParser {

    static final int MAX_EVENTS = 200_000;

    @Override
    public String name() {
        return "eventlog-xml";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.EVENTLOG_XML);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        int[] count = new int[1];
        EventXmlReader reader = new EventXmlReader(input.path(), 0, (event, evidence) -> {
            if (count[0]++ < MAX_EVENTS) {
                emit(out, event, EvidenceLine.locator(input.path(), evidence));
            }
        });
        try (BufferedReader text = input.openText(); Reader rooted = EventXmlReader.rooted(text)) {
            XMLStreamReader xml = null;
            try {
                xml = EventXmlReader.hardenedFactory().createXMLStreamReader(rooted);
                reader.read(xml);
            } catch (XMLStreamException | RuntimeException e) {
                // the JDK's parser reports bad XML as runtime exceptions too: bad input is a problem, not a failure
                out.problem(broken(input, reader.line(), e));
            } finally {
                if (xml != null) {
                    try {
                        xml.close();
                    } catch (XMLStreamException ignored) {
                        // closing a reader over a broken document may fail again; the problem is already recorded
                    }
                }
            }
        }
        if (reader.events() == 0) {
            out.problem(new ParseProblem.MalformedInput(input.at(1, ""), "no <Event> element found"));
        }
        return out.build();
    }

    /** Adds an event and its typed facts. */
    static void emit(ParseResult.Builder out, WindowsEvent event, EvidenceLocator at) {
        out.fact(event);
        List.copyOf(WindowsEventTyping.typed(event, at)).forEach(out::fact);
    }

    static ParseProblem broken(ParseInput input, long line, Exception e) {
        String detail = String.valueOf(e.getMessage());
        if (detail.length() > 300) {
            detail = detail.substring(0, 300) + "…";
        }
        if (detail.contains("end of file") || detail.contains("EOF") || detail.contains("must start and end")) {
            return new ParseProblem.Truncated(input.path(), line, "XML ends early: " + detail);
        }
        return new ParseProblem.MalformedInput(input.at(line, ""), "not well-formed XML: " + detail);
    }
}
