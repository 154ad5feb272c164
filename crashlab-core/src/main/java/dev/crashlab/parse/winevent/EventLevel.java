package dev.crashlab.parse.winevent;

import java.util.Locale;
import java.util.Map;

/** Normalises an event level, as a number or a word in the languages we know, to the English word. */
final class EventLevel {

    private static final Map<String, String> WORDS = Map.ofEntries(
            Map.entry("0", "Information"), // LogAlways: Event Viewer shows it as Information
            Map.entry("1", "Critical"), Map.entry("2", "Error"), Map.entry("3", "Warning"),
            Map.entry("4", "Information"), Map.entry("5", "Verbose"),
            Map.entry("critical", "Critical"), Map.entry("error", "Error"), Map.entry("warning", "Warning"),
            Map.entry("information", "Information"), Map.entry("informational", "Information"),
            Map.entry("verbose", "Verbose"),
            // German
            Map.entry("kritisch", "Critical"), Map.entry("fehler", "Error"), Map.entry("warnung", "Warning"),
            Map.entry("informationen", "Information"), Map.entry("ausführlich", "Verbose"),
            // French
            Map.entry("critique", "Critical"), Map.entry("erreur", "Error"), Map.entry("avertissement", "Warning"),
            Map.entry("informations", "Information"), Map.entry("commentaires", "Verbose"), Map.entry("détaillé", "Verbose"),
            // Spanish
            Map.entry("crítico", "Critical"), Map.entry("advertencia", "Warning"), Map.entry("información", "Information"),
            Map.entry("detallado", "Verbose"),
            // Simplified Chinese
            Map.entry("关键", "Critical"), Map.entry("严重", "Critical"), Map.entry("错误", "Error"), Map.entry("警告", "Warning"),
            Map.entry("信息", "Information"), Map.entry("详细", "Verbose"));

    private EventLevel() {}

    /** Returns the English level word for {@code v}; an unknown spelling as given; null when blank. */
    static String normalise(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        String s = v.strip();
        return WORDS.getOrDefault(s.toLowerCase(Locale.ROOT), s);
    }
}
