package dev.crashlab.parse.winevent;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WindowsEvent;
import java.io.IOException;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Streams {@code <Event>} elements (any namespace, under {@code <Events>}, alone, or several without a root as
 * {@code wevtutil qe /f:xml} writes them) into {@link WindowsEvent}s with the lines that show each field.
 *
 * <p>NOTE: the reader never loads a DTD nor expands declared or external entities; a broken document keeps
 * the events read before the break and the caller reports the exception as a problem.
 */
final class EventXmlReader {

    /** Receives each event read, with its evidence lines. */
    interface Sink {
        void accept(WindowsEvent event, List<EvidenceLine> evidence);
    }

    static final int MAX_VALUE = 16 * 1024;
    static final int MAX_MESSAGE = 64 * 1024;
    static final int MAX_DATA = 256;
    private static final int MAX_DEPTH = 64;
    private static final String ROOT = "crashlab-events";

    private final String artifact;
    private final long lineOffset;
    private final Sink sink;
    private final List<String> path = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();
    private int eventDepth = -1;
    private long line = 1;
    private int events;
    private Draft draft;

    /** Reads for {@code artifact}; line 1 of the XML is line {@code lineOffset + 1} of the artifact. */
    EventXmlReader(String artifact, long lineOffset, Sink sink) {
        this.artifact = artifact;
        this.lineOffset = lineOffset;
        this.sink = sink;
    }

    /** Returns a StAX factory with DTDs and external entities off. */
    static XMLInputFactory hardenedFactory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_COALESCING, true);
        f.setXMLResolver((publicId, systemId, base, ns) -> {
            throw new XMLStreamException("external resource refused: " + systemId);
        });
        return f;
    }

    /**
     * Wraps {@code in} in a synthetic root element (after skipping an XML declaration), so several top-level
     * {@code <Event>}s read as one document; line numbers are kept.
     */
    static Reader rooted(Reader in) throws IOException {
        PushbackReader p = new PushbackReader(in, 1024);
        char[] head = new char[1024];
        int n = 0;
        while (n < head.length) {
            int r = p.read(head, n, head.length - n);
            if (r < 0) {
                break;
            }
            n += r;
        }
        String s = new String(head, 0, n);
        int start = 0;
        while (start < s.length() && (Character.isWhitespace(s.charAt(start)) || s.charAt(start) == '\uFEFF')) {
            start++;
        }
        String prefix = s.substring(0, start).replace("\uFEFF", "");
        int skip = start;
        if (s.startsWith("<?xml", start)) {
            int end = s.indexOf("?>", start);
            if (end > 0) {
                skip = end + 2;
                prefix = prefix + "\n".repeat((int) s.substring(start, skip).chars().filter(c -> c == '\n').count());
            }
        }
        if (n > skip) {
            p.unread(head, skip, n - skip);
        }
        return concat(prefix, p);
    }

    private static Reader concat(String prefix, Reader body) {
        Reader open = new StringReader(prefix + "<" + ROOT + ">");
        Reader close = new StringReader("</" + ROOT + ">");
        return new Reader() {
            private int part;

            @Override
            public int read(char[] cbuf, int off, int len) throws IOException {
                while (part < 3) {
                    Reader r = part == 0 ? open : part == 1 ? body : close;
                    int got = r.read(cbuf, off, len);
                    if (got > 0) {
                        return got;
                    }
                    part++;
                }
                return -1;
            }

            @Override
            public void close() throws IOException {
                body.close();
            }
        };
    }

    /** Returns how many events were read. */
    int events() {
        return events;
    }

    /** Returns the artifact line the reader last reached. */
    long line() {
        return line;
    }

    /** Reads events until the document ends. */
    void read(XMLStreamReader xml) throws XMLStreamException {
        int overflow = 0;
        while (xml.hasNext()) {
            int event = xml.next();
            if (xml.getLocation() != null && xml.getLocation().getLineNumber() > 0) {
                line = lineOffset + xml.getLocation().getLineNumber();
            }
            switch (event) {
                case XMLStreamConstants.START_ELEMENT -> {
                    if (path.size() >= MAX_DEPTH) {
                        overflow++;
                    } else {
                        start(xml);
                    }
                }
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                    if (overflow == 0 && draft != null && text.length() < MAX_MESSAGE) {
                        int room = MAX_MESSAGE - text.length();
                        text.append(xml.getTextCharacters(), xml.getTextStart(), Math.min(room, xml.getTextLength()));
                    }
                }
                case XMLStreamConstants.END_ELEMENT -> {
                    if (overflow > 0) {
                        overflow--;
                    } else {
                        end();
                    }
                }
                default -> { }
            }
        }
    }

    private void start(XMLStreamReader xml) {
        String name = xml.getLocalName();
        path.add(name);
        text.setLength(0);
        if (draft == null) {
            if (name.equals("Event")) {
                draft = new Draft(line);
                eventDepth = path.size();
            }
            return;
        }
        int rel = path.size() - eventDepth;
        String section = path.get(eventDepth);
        if (section.equals("System") && rel == 2) {
            switch (name) {
                case "Provider" -> {
                    draft.provider = first(attr(xml, "Name"), attr(xml, "EventSourceName"));
                    draft.evidence.add(new EvidenceLine(line, "<Provider Name=\"" + draft.provider + "\">"));
                }
                case "EventID" -> draft.qualifiers = EventValues.integer(attr(xml, "Qualifiers"));
                case "TimeCreated" -> draft.time = EventTime.systemTime(attr(xml, "SystemTime"));
                default -> { }
            }
        } else if (section.equals("EventData") && rel == 2 && name.equals("Data")) {
            draft.dataIndex++;
            draft.dataName = attr(xml, "Name");
            draft.dataLine = line;
        }
    }

    private void end() {
        if (path.isEmpty()) {
            return;
        }
        String name = path.remove(path.size() - 1);
        if (draft == null) {
            text.setLength(0);
            return;
        }
        if (path.size() + 1 == eventDepth) {
            emit();
            return;
        }
        int rel = path.size() + 1 - eventDepth;
        String section = path.size() > eventDepth ? path.get(eventDepth) : name;
        String value = text.toString();
        text.setLength(0);
        if (section.equals("System") && rel == 2) {
            String v = value.strip();
            switch (name) {
                case "EventID" -> draft.eventId = EventValues.integer(v);
                case "Level" -> draft.level = first(draft.level, EventLevel.normalise(v));
                case "EventRecordID" -> draft.recordId = EventValues.whole(v);
                case "Channel" -> draft.channel = EventValues.clean(v);
                case "Computer" -> draft.computer = EventValues.clean(v);
                default -> { }
            }
        } else if (section.equals("EventData") && rel == 2 && name.equals("Data")) {
            String key = draft.dataName == null || draft.dataName.isBlank() ? "Data" + draft.dataIndex : draft.dataName;
            put(key, value, draft.dataLine);
        } else if (section.equals("UserData") && rel >= 3 && !value.isBlank()) {
            put(name, value, line);
        } else if (section.equals("RenderingInfo") && rel == 2) {
            switch (name) {
                case "Message" -> {
                    draft.message = EventValues.clean(value);
                    if (draft.message != null) {
                        long at = line - draft.message.lines().count() + 1;
                        for (String l : draft.message.lines().limit(5000).toList()) {
                            draft.evidence.add(new EvidenceLine(at++, l));
                        }
                    }
                }
                case "Level" -> draft.renderedLevel = EventLevel.normalise(value);
                default -> { }
            }
        }
    }

    private void put(String key, String value, long at) {
        if (draft.data.size() >= MAX_DATA || draft.data.containsKey(key)) {
            return;
        }
        String v = tidy(value);
        draft.data.put(key, v);
        draft.evidence.add(new EvidenceLine(at, "<Data Name=\"" + key + "\">" + v + "</Data>"));
    }

    /** Strips each line of a value and drops blank lines at its ends (exports indent multi-line values). */
    static String tidy(String value) {
        List<String> lines = value.lines().map(String::strip).toList();
        int from = 0;
        int to = lines.size();
        while (from < to && lines.get(from).isEmpty()) {
            from++;
        }
        while (to > from && lines.get(to - 1).isEmpty()) {
            to--;
        }
        String v = String.join("\n", lines.subList(from, to));
        return v.length() > MAX_VALUE ? v.substring(0, MAX_VALUE) : v;
    }

    private void emit() {
        Draft d = draft;
        draft = null;
        eventDepth = -1;
        events++;
        WindowsEvent e = new WindowsEvent(d.provider, d.eventId, d.qualifiers, first(d.level, d.renderedLevel), d.time,
                d.computer, d.channel, d.recordId, d.data, d.message,
                List.of(new SourceRef(artifact, d.startLine, "<Event> " + summary(d))));
        sink.accept(e, d.evidence);
    }

    private static String summary(Draft d) {
        return (d.provider == null ? "?" : d.provider) + " " + (d.eventId == null ? "?" : d.eventId);
    }

    private static String attr(XMLStreamReader xml, String name) {
        for (int i = 0; i < xml.getAttributeCount(); i++) {
            if (xml.getAttributeLocalName(i).equals(name)) {
                String v = xml.getAttributeValue(i);
                return v == null ? null : v.length() > 1024 ? v.substring(0, 1024) : v;
            }
        }
        return null;
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }

    /** One event while its elements are read. */
    private static final class Draft {
        final long startLine;
        final List<EvidenceLine> evidence = new ArrayList<>();
        final Map<String, String> data = new LinkedHashMap<>();
        String provider;
        Integer eventId;
        Integer qualifiers;
        String level;
        String renderedLevel;
        String time;
        String computer;
        String channel;
        Long recordId;
        String message;
        int dataIndex;
        String dataName;
        long dataLine;

        Draft(long startLine) {
            this.startLine = startLine;
        }
    }
}
