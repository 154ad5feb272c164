package dev.crashlab.parse.winevent;

import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WindowsEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the rows of a tabular event export into {@code WindowsEvent}s: Event Viewer's "Save as" CSV and
 * tab-delimited text (Level, Date and Time, Source, Event ID, Task Category, then an unheaded message column,
 * in the display language), and {@code Export-Csv} of {@code Get-WinEvent}/{@code Get-EventLog} (named columns).
 */
final class SavedEventTable {

    private static final Set<String> LEVEL_HEADERS = Set.of("level", "ebene", "niveau", "nivel", "级别", "级别 ");
    private static final Pattern ID = Pattern.compile("\\d{1,9}");

    private final List<String> named;

    private SavedEventTable(List<String> named) {
        this.named = named;
    }

    /** Returns the table for a header row; null when {@code fields} is no header we know. */
    static SavedEventTable ofHeader(List<String> fields) {
        if (fields.size() >= 5 && LEVEL_HEADERS.contains(fields.get(0).strip().toLowerCase(Locale.ROOT))) {
            return new SavedEventTable(null);
        }
        List<String> names = fields.stream().map(String::strip).toList();
        if (names.contains("Message") && (names.contains("Id") || names.contains("EventID") || names.contains("InstanceId"))) {
            return new SavedEventTable(names);
        }
        return null;
    }

    /** Returns the positional table of Event Viewer's "Save as", for files without a header row. */
    static SavedEventTable positional() {
        return new SavedEventTable(null);
    }

    /** Tells whether {@code fields} look like a "Save as" row: five or more columns, the fourth an event id. */
    static boolean looksLikeRow(List<String> fields) {
        return fields.size() >= 5 && ID.matcher(fields.get(3).strip()).matches() && !fields.get(0).isBlank()
                && fields.get(0).length() < 40;
    }

    /** Splits a line naively (no quotes): enough to tell a header or a row start. */
    static List<String> split(String line, char delimiter) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= line.length() && out.size() < 64; i++) {
            if (i == line.length() || line.charAt(i) == delimiter) {
                String f = line.substring(from, i);
                out.add(f.length() >= 2 && f.startsWith("\"") && f.endsWith("\"") ? f.substring(1, f.length() - 1) : f);
                from = i + 1;
            }
        }
        return out;
    }

    /** Returns the event of one row; null when the row has neither a provider nor an event id. */
    WindowsEvent event(List<String> fields, SourceRef at) {
        String provider;
        Integer id;
        String level;
        String time;
        String message;
        String computer = null;
        String channel = null;
        Long record = null;
        Integer qualifiers = null;
        if (named == null) {
            level = EventLevel.normalise(field(fields, 0));
            time = EventTime.parse(field(fields, 1));
            provider = EventValues.clean(field(fields, 2));
            id = EventValues.integer(field(fields, 3));
            message = message(field(fields, 5));
        } else {
            provider = EventValues.clean(first(column(fields, "ProviderName"), column(fields, "Source")));
            id = EventValues.integer(first(column(fields, "Id"), column(fields, "EventID")));
            level = EventLevel.normalise(first(column(fields, "LevelDisplayName"),
                    first(column(fields, "Level"), column(fields, "EntryType"))));
            time = EventTime.parse(first(column(fields, "TimeCreated"), column(fields, "TimeGenerated")));
            message = message(column(fields, "Message"));
            computer = EventValues.clean(column(fields, "MachineName"));
            channel = EventValues.clean(column(fields, "LogName"));
            record = EventValues.whole(first(column(fields, "RecordId"), column(fields, "Index")));
            qualifiers = EventValues.integer(column(fields, "Qualifiers"));
        }
        if (provider == null && id == null) {
            return null;
        }
        Map<String, String> data = new LinkedHashMap<>();
        List<String> strings = InsertionStrings.of(message);
        for (int i = 0; i < strings.size(); i++) {
            data.put("Data" + (i + 1), strings.get(i));
        }
        return new WindowsEvent(provider, id, qualifiers, level, time, computer, channel, record, data, message, List.of(at));
    }

    private static String message(String v) {
        if (v == null) {
            return null;
        }
        return EventTextRecord.trimBlankEnds(v.lines().map(String::stripTrailing).toList());
    }

    private String column(List<String> fields, String name) {
        int i = named.indexOf(name);
        return i < 0 ? null : field(fields, i);
    }

    private static String field(List<String> fields, int i) {
        return i < fields.size() ? fields.get(i) : null;
    }

    private static String first(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }
}
