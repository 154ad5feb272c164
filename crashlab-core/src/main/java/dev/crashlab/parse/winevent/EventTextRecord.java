package dev.crashlab.parse.winevent;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One event's lines in a text export while they are collected: its header or properties, message and XML. */
final class EventTextRecord {

    /** How the event was rendered. */
    enum Kind {
        /** Event Viewer "details" copy or {@code wevtutil qe /f:text}: a labelled header, then the description. */
        DETAILS,
        /** {@code Get-WinEvent | Format-List}: {@code Property : value} lines. */
        FORMAT_LIST,
        /** A message without any header. */
        BARE
    }

    final Kind kind;
    final TextLine start;
    final int indent;
    final BareMessageStart bare;
    final Map<MessageField, String> header = new EnumMap<>(MessageField.class);
    final Map<String, String> properties = new LinkedHashMap<>();
    final List<TextLine> message = new ArrayList<>();
    final List<TextLine> xml = new ArrayList<>();
    final List<EvidenceLine> evidence = new ArrayList<>();
    String messageProperty;
    int valueColumn;
    boolean inMessage;
    boolean inXml;
    boolean skippingXml;
    boolean overflow;

    EventTextRecord(Kind kind, TextLine start, BareMessageStart bare) {
        this.kind = kind;
        this.start = start;
        this.indent = start.indent();
        this.bare = bare;
    }

    /** Remembers a line as evidence (what typed facts cite). */
    void saw(TextLine l) {
        if (evidence.size() < WindowsEventTextParser.MAX_RECORD_LINES) {
            evidence.add(new EvidenceLine(l.number(), l.text()));
        } else {
            overflow = true;
        }
    }

    /** Adds a message line, unless the record is full. */
    void messageLine(TextLine l) {
        if (message.size() < WindowsEventTextParser.MAX_RECORD_LINES) {
            message.add(l);
        } else {
            overflow = true;
        }
    }

    /** Returns the message lines as text: the common indentation removed, blank lines at the ends dropped. */
    String messageText() {
        List<String> lines = new ArrayList<>();
        int common = Integer.MAX_VALUE;
        for (TextLine l : message) {
            if (!l.blank()) {
                common = Math.min(common, l.indent());
            }
        }
        for (TextLine l : message) {
            lines.add(l.blank() ? "" : ConsoleWrap.dedent(l.text(), common).stripTrailing());
        }
        return trimBlankEnds(lines);
    }

    static String trimBlankEnds(List<String> lines) {
        int from = 0;
        int to = lines.size();
        while (from < to && lines.get(from).isBlank()) {
            from++;
        }
        while (to > from && lines.get(to - 1).isBlank()) {
            to--;
        }
        if (from >= to) {
            return null;
        }
        String s = String.join("\n", lines.subList(from, to));
        return s.length() > EventXmlReader.MAX_MESSAGE ? s.substring(0, EventXmlReader.MAX_MESSAGE) : s;
    }
}
