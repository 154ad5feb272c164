package dev.crashlab.fact;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Windows event as an Event Viewer export, {@code wevtutil}, {@code Get-WinEvent} or an {@code .evtx}
 * file rendered it: the System header, the named event data, and the message text.
 *
 * <p>NOTE: every export, text or binary, produces this same record; the typed facts ({@link ApplicationFault},
 * {@link WerReport}, {@link DisplayDriverEvent}...) are derived from it by
 * {@code dev.crashlab.parse.winevent.WindowsEventTyping}.
 *
 * @param provider the event source ({@code Application Error}, {@code nvlddmkm}); null when the export lost it
 * @param eventId the event id ({@code 1000}); null when not shown
 * @param qualifiers the {@code Qualifiers} attribute of a classic event's id; null when absent
 * @param level {@code Critical}, {@code Error}, {@code Warning}, {@code Information} or {@code Verbose}, normalised
 *     from numbers and other languages; an unknown spelling is kept as shown; null when not shown
 * @param time ISO-8601: UTC with {@code Z} where the source gives an offset or an XML {@code SystemTime}, else local
 *     time without a zone; null when absent or unreadable
 * @param computer the computer name; null when not shown
 * @param channel the log ({@code Application}, {@code System}); null when not shown
 * @param recordId the event record id; null when not shown
 * @param data the EventData/UserData values in document order (unnamed {@code <Data>} as {@code Data1},
 *     {@code Data2}...; a message's insertion strings when only those survived); empty when none
 * @param message the rendered message text (re-joined where a console wrapped it); null when absent
 */
public record WindowsEvent(String provider, Integer eventId, Integer qualifiers, String level, String time,
        String computer, String channel, Long recordId, Map<String, String> data, String message,
        List<SourceRef> sources) implements WindowsFact {

    public WindowsEvent {
        data = Collections.unmodifiableMap(new LinkedHashMap<>(data));
        sources = List.copyOf(sources);
    }

    @Override
    public WindowsEvent withSources(List<SourceRef> s) {
        return new WindowsEvent(provider, eventId, qualifiers, level, time, computer, channel, recordId, data, message, s);
    }
}
