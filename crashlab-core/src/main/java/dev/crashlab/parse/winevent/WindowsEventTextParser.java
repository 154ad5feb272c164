package dev.crashlab.parse.winevent;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads Windows event text into {@code WindowsEvent}s and their typed facts: Event Viewer "details" copies
 * (also {@code > }-quoted, indented, or inside a blog's HTML, with or without their {@code Event Xml:}),
 * {@code wevtutil qe /f:text}, {@code Get-WinEvent | Format-List} (console-wrapped lines re-joined), and bare
 * message text pasted without a header.
 *
 * <p>NOTE: a bare message's provider and event id are inferred from its first line ({@code Faulting application
 * name:} is Application Error 1000). Where a details copy carries its {@code Event Xml:}, the XML supplies the
 * header (UTC time, record id, named data) and the text the message. A file that is Event Viewer's tab-delimited
 * "Save as Text" is left to {@link WindowsEventTabParser}.
 */
public final class WindowsEventTextParser implements ArtifactParser {

    static final int MAX_LINE = 16 * 1024;
    static final int MAX_RECORD_LINES = 5000;
    static final int MAX_EVENTS = 200_000;

    private static final Pattern WEVTUTIL_START = Pattern.compile("^\\s*Event\\[\\d{1,9}\\]:?\\s*$");
    private static final Pattern PROPERTY = Pattern.compile("^([A-Za-z][A-Za-z0-9]{1,40}) +: ?(.*)$");
    private static final Pattern SEPARATOR = Pattern.compile("^\\s*-{3,}\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(?:```|~~~).*$");
    private static final Pattern LEADING_NUMBER = Pattern.compile("^\\s*(\\d{1,9})");
    private static final Set<String> FORMAT_LIST_PROPERTIES = Set.of("TimeCreated", "ProviderName", "Id", "Message",
            "Msg", "LevelDisplayName", "Level", "MachineName", "LogName", "RecordId", "ProviderId", "Keywords",
            "KeywordsDisplayNames", "Properties", "TaskDisplayName", "OpcodeDisplayName", "Version", "Qualifiers",
            "Task", "Opcode", "ProcessId", "ThreadId", "UserId", "ActivityId", "RelatedActivityId", "ContainerLog",
            "MatchedQueryIds", "Bookmark", "EventID", "EntryType", "Source", "InstanceId", "TimeGenerated",
            "TimeWritten", "UserName", "Category", "CategoryNumber", "Index", "ReplacementStrings", "Data", "Site",
            "Container");

    @Override
    public String name() {
        return "eventlog-text";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.EVENTLOG_TEXT);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        Run run = new Run(input);
        try (BufferedReader text = input.openText()) {
            BoundedLineReader lines = new BoundedLineReader(text, MAX_LINE);
            PastedTextCleaner cleaner = new PastedTextCleaner();
            boolean reportedLong = false;
            boolean first = true;
            String raw;
            while ((raw = lines.readLine()) != null) {
                if (lines.truncated() && !reportedLong) {
                    reportedLong = true;
                    run.out.problem(new ParseProblem.MalformedInput(input.at(lines.lineNumber(), raw),
                            "line longer than " + MAX_LINE + " characters; the rest was skipped"));
                }
                if (first && !raw.isBlank()) {
                    first = false;
                    if (WindowsEventTabParser.isHeader(raw)) {
                        return ParseResult.empty(); // Event Viewer's tab-delimited export: WindowsEventTabParser reads it
                    }
                }
                run.accept(cleaner.clean(lines.lineNumber(), raw));
            }
            run.finish();
            if (run.events == 0 && lines.lineNumber() > 0) {
                run.out.problem(new ParseProblem.MalformedInput(input.at(1, ""),
                        "no event recognised (no details header, wevtutil or Format-List record, nor a known message)"));
            }
            if (lines.replacements() > 0) {
                run.out.problem(new ParseProblem.UnreadableText(input.path(),
                        lines.replacements() + " undecodable bytes replaced"));
            }
        }
        return run.out.build();
    }

    /** The state of one parse: the record being collected. */
    private static final class Run {
        final ParseInput input;
        final ParseResult.Builder out = new ParseResult.Builder();
        EventTextRecord current;
        int events;
        boolean reportedOverflow;

        Run(ParseInput input) {
            this.input = input;
        }

        void accept(TextLine l) {
            EventTextRecord r = current;
            if (r != null && r.inXml) {
                xmlLine(r, l);
                return;
            }
            if (r != null && endsRecord(r, l)) {
                finishRecord();
                r = null;
            }
            if (startsRecord(l)) {
                return;
            }
            if (r == null) {
                return; // prose, prompts and markdown around the events
            }
            r.saw(l);
            switch (r.kind) {
                case DETAILS -> detailsLine(r, l);
                case FORMAT_LIST -> formatListLine(r, l);
                case BARE -> r.messageLine(l);
            }
        }

        /** Tells whether {@code l} ends the current record (without belonging to it). */
        private boolean endsRecord(EventTextRecord r, TextLine l) {
            if (r.start.quoted() && !l.quoted()) {
                return true;
            }
            if (SEPARATOR.matcher(l.text()).matches() || FENCE.matcher(l.text()).matches()) {
                return true;
            }
            return r.kind != EventTextRecord.Kind.FORMAT_LIST && !l.blank() && l.indent() < r.indent;
        }

        /** Starts a record at {@code l} when it begins one; returns whether it did. */
        private boolean startsRecord(TextLine l) {
            EventTextRecord r = current;
            String text = l.text();
            if (SEPARATOR.matcher(text).matches() || FENCE.matcher(text).matches()) {
                return true;
            }
            Matcher p = PROPERTY.matcher(text);
            if (p.matches() && FORMAT_LIST_PROPERTIES.contains(p.group(1))
                    && (r == null || r.kind != EventTextRecord.Kind.FORMAT_LIST || r.properties.containsKey(p.group(1)))) {
                begin(new EventTextRecord(EventTextRecord.Kind.FORMAT_LIST, l, null), l);
                formatListLine(current, l);
                return true;
            }
            if (WEVTUTIL_START.matcher(text).matches()
                    || MessageField.match(text, Set.of(MessageField.LOG_NAME)) != null && (r == null || r.inMessage
                            || r.kind != EventTextRecord.Kind.DETAILS || r.header.containsKey(MessageField.LOG_NAME))) {
                begin(new EventTextRecord(EventTextRecord.Kind.DETAILS, l, null), l);
                if (!WEVTUTIL_START.matcher(text).matches()) {
                    detailsLine(current, l);
                }
                return true;
            }
            if (r == null || r.kind == EventTextRecord.Kind.BARE) {
                BareMessageStart s = BareMessageStart.of(text);
                if (s != null && (r == null || !r.bare.continuedBy(s))) {
                    begin(new EventTextRecord(EventTextRecord.Kind.BARE, l, s), l);
                    current.messageLine(l);
                    return true;
                }
            }
            return false;
        }

        private void begin(EventTextRecord r, TextLine l) {
            finishRecord();
            current = r;
            r.saw(l);
        }

        private void detailsLine(EventTextRecord r, TextLine l) {
            if (r.inMessage) {
                if (l.text().strip().equalsIgnoreCase("Event Xml:")) {
                    r.inXml = true;
                    return;
                }
                r.messageLine(l);
                return;
            }
            MessageField.Labelled h = MessageField.match(l.text(), MessageField.HEADER);
            if (h == null) {
                if (!l.blank()) {
                    r.inMessage = true; // a header without "Description:": the text that follows is the message
                    r.messageLine(l);
                }
                return;
            }
            if (h.field() == MessageField.DESCRIPTION) {
                r.inMessage = true;
                if (!h.value().isEmpty()) {
                    r.messageLine(new TextLine(l.number(), h.value(), l.quoted()));
                }
                return;
            }
            r.header.putIfAbsent(h.field(), h.value());
        }

        private void xmlLine(EventTextRecord r, TextLine l) {
            r.saw(l);
            if (r.skippingXml) {
                if (!l.blank() && (r.start.quoted() && !l.quoted() || l.indent() < r.indent)) {
                    finishRecord();
                    accept(l);
                } else if (MessageField.match(l.text(), Set.of(MessageField.LOG_NAME)) != null) {
                    finishRecord();
                    accept(l);
                }
                return;
            }
            if (r.xml.isEmpty() && l.blank()) {
                return;
            }
            if (r.xml.isEmpty() && !l.text().contains("<")) {
                r.skippingXml = true; // the paste lost the tags: only the values are left, and the message has them
                return;
            }
            if (r.xml.size() >= MAX_RECORD_LINES) {
                r.overflow = true;
                finishRecord();
                return;
            }
            r.xml.add(l);
            if (l.text().contains("</Event>") || l.text().matches("^\\s*<Event\\b[^>]*/>\\s*$")) {
                finishRecord();
            }
        }

        private void formatListLine(EventTextRecord r, TextLine l) {
            Matcher p = PROPERTY.matcher(l.text());
            if (p.matches() && FORMAT_LIST_PROPERTIES.contains(p.group(1)) && !r.properties.containsKey(p.group(1))) {
                r.properties.put(p.group(1), p.group(2).strip());
                if (p.group(1).equals("Message") || p.group(1).equals("Msg")) {
                    r.messageProperty = p.group(1);
                    r.valueColumn = p.start(2);
                    r.message.clear();
                    r.messageLine(l);
                    r.inMessage = true;
                } else {
                    r.inMessage = false;
                }
                return;
            }
            if (r.inMessage) {
                r.messageLine(l);
            }
        }

        void finish() {
            finishRecord();
        }

        private void finishRecord() {
            EventTextRecord r = current;
            current = null;
            if (r == null) {
                return;
            }
            if (r.overflow && !reportedOverflow) {
                reportedOverflow = true;
                out.problem(new ParseProblem.MalformedInput(input.at(r.start.number(), r.start.text()),
                        "event longer than " + MAX_RECORD_LINES + " lines; the rest was skipped"));
            }
            WindowsEvent e = switch (r.kind) {
                case DETAILS -> details(r);
                case FORMAT_LIST -> formatList(r);
                case BARE -> bare(r);
            };
            if (e == null || events >= MAX_EVENTS) {
                return;
            }
            events++;
            WindowsEventXmlParser.emit(out, e, EvidenceLine.locator(input.path(), r.evidence));
        }

        private SourceRef startRef(EventTextRecord r) {
            return input.at(r.start.number(), r.start.text().strip());
        }

        private WindowsEvent details(EventTextRecord r) {
            String message = r.messageText();
            Map<String, String> data = insertionData(message);
            Integer id = number(r.header.get(MessageField.EVENT_ID));
            WindowsEvent fromText = new WindowsEvent(EventValues.clean(r.header.get(MessageField.SOURCE)), id, null,
                    EventLevel.normalise(r.header.get(MessageField.LEVEL)), EventTime.parse(r.header.get(MessageField.DATE)),
                    EventValues.clean(r.header.get(MessageField.COMPUTER)), EventValues.clean(r.header.get(MessageField.LOG_NAME)),
                    null, data, message, List.of(startRef(r)));
            if (r.xml.isEmpty()) {
                return fromText.provider() == null && fromText.eventId() == null && message == null ? null : fromText;
            }
            WindowsEvent x = embeddedXml(r);
            if (x == null) {
                return fromText;
            }
            return new WindowsEvent(first(x.provider(), fromText.provider()), x.eventId() != null ? x.eventId() : id,
                    x.qualifiers(), first(x.level(), fromText.level()), first(x.time(), fromText.time()),
                    first(x.computer(), fromText.computer()), first(x.channel(), fromText.channel()), x.recordId(),
                    x.data().isEmpty() ? data : x.data(), message != null ? message : x.message(), List.of(startRef(r)));
        }

        private WindowsEvent embeddedXml(EventTextRecord r) {
            StringBuilder xml = new StringBuilder();
            long firstLine = r.xml.get(0).number();
            long expected = firstLine;
            for (TextLine l : r.xml) {
                while (expected < l.number()) {
                    xml.append('\n');
                    expected++;
                }
                xml.append(ConsoleWrap.dedent(l.text(), r.indent)).append('\n');
                expected++;
            }
            List<WindowsEvent> found = new ArrayList<>();
            EventXmlReader reader = new EventXmlReader(input.path(), firstLine - 1, (event, evidence) -> {
                if (found.isEmpty()) {
                    found.add(event);
                    r.evidence.addAll(evidence);
                }
            });
            XMLStreamReader stax = null;
            try {
                stax = EventXmlReader.hardenedFactory().createXMLStreamReader(EventXmlReader.rooted(new StringReader(xml.toString())));
                reader.read(stax);
            } catch (XMLStreamException | IOException | RuntimeException e) {
                // a pasted XML block cut short still gave us its header, if the reader got that far
                out.problem(WindowsEventXmlParser.broken(input, reader.line(), e));
            } finally {
                if (stax != null) {
                    try {
                        stax.close();
                    } catch (XMLStreamException ignored) {
                        // the problem is already recorded
                    }
                }
            }
            return found.isEmpty() ? null : found.get(0);
        }

        private WindowsEvent formatList(EventTextRecord r) {
            Map<String, String> p = r.properties;
            String message = null;
            if (r.messageProperty != null && !r.message.isEmpty()) {
                List<String> raw = r.message.stream().map(TextLine::text).toList();
                message = EventTextRecord.trimBlankEnds(ConsoleWrap.rejoin(raw, r.valueColumn).lines()
                        .map(String::stripTrailing).toList());
            }
            String provider = EventValues.clean(first(p.get("ProviderName"), p.get("Source")));
            Integer id = number(first(p.get("Id"), first(p.get("EventID"), p.get("InstanceId"))));
            if (message != null && (provider == null || id == null)) {
                BareMessageStart s = BareMessageStart.of(message.lines().findFirst().orElse(""));
                if (s != null && (provider == null || provider.equalsIgnoreCase(s.provider()))) {
                    provider = s.provider();
                    id = id != null ? id : s.eventId();
                }
            }
            String level = EventLevel.normalise(first(p.get("LevelDisplayName"), first(p.get("Level"), p.get("EntryType"))));
            return new WindowsEvent(provider, id, number(p.get("Qualifiers")), level,
                    EventTime.parse(first(p.get("TimeCreated"), p.get("TimeGenerated"))),
                    EventValues.clean(p.get("MachineName")), EventValues.clean(p.get("LogName")),
                    EventValues.whole(first(p.get("RecordId"), p.get("Index"))), insertionData(message), message,
                    List.of(startRef(r)));
        }

        private WindowsEvent bare(EventTextRecord r) {
            String message = r.messageText();
            return new WindowsEvent(r.bare.provider(), r.bare.eventId(), null, null, null, null, null, null,
                    insertionData(message), message, List.of(startRef(r)));
        }

        private static Map<String, String> insertionData(String message) {
            Map<String, String> data = new LinkedHashMap<>();
            List<String> strings = InsertionStrings.of(message);
            for (int i = 0; i < strings.size(); i++) {
                data.put("Data" + (i + 1), strings.get(i));
            }
            return data;
        }
    }

    private static Integer number(String v) {
        if (v == null) {
            return null;
        }
        Matcher m = LEADING_NUMBER.matcher(v);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }
}
