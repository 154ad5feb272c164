package dev.crashlab.parse.evtx;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Is one event read from an EVTX file: the System fields, the EventData/UserData values by name, where it
 * was found, and its event XML.
 *
 * @param recordId the {@code <EventRecordID>} (the record header's number when the XML has none)
 * @param fileRecordNumber the number in the record header (differs from {@code recordId} in exported logs)
 * @param chunk the 0-based chunk index in the file
 * @param fileOffset where the record starts in the file
 * @param writtenTime the record header's written time, ISO-8601 UTC
 * @param timeCreated {@code TimeCreated/@SystemTime}, ISO-8601 UTC, or null
 * @param provider {@code Provider/@Name} (or {@code @EventSourceName}), or null
 * @param providerGuid {@code Provider/@Guid}, or null
 * @param eventId {@code EventID}, or null
 * @param qualifiers {@code EventID/@Qualifiers}, or null
 * @param version {@code Version}, or null
 * @param level {@code Level} (0..5), or null
 * @param task {@code Task}, or null
 * @param opcode {@code Opcode}, or null
 * @param keywords {@code Keywords} as written ({@code 0x...}), or null
 * @param channel {@code Channel}, or null
 * @param computer {@code Computer}, or null
 * @param userSid {@code Security/@UserID}, or null
 * @param data EventData values by {@code Name} (unnamed ones as {@code Data1}, {@code Data2}, ...), or
 *             UserData leaf elements by element name, in document order
 * @param event the {@code <Event>} element
 */
public record EvtxRecord(long recordId, long fileRecordNumber, int chunk, long fileOffset, String writtenTime,
                         String timeCreated, String provider, String providerGuid, Integer eventId, Integer qualifiers,
                         Integer version, Integer level, Integer task, Integer opcode, String keywords, String channel,
                         String computer, String userSid, Map<String, String> data, EvtxElement event) {

    /** Returns the level as Event Viewer names it (Critical, Error, Warning, Information, Verbose). */
    public String levelName() {
        if (level == null) {
            return null;
        }
        return switch (level) {
            case 1 -> "Critical";
            case 2 -> "Error";
            case 3 -> "Warning";
            case 0, 4 -> "Information";
            case 5 -> "Verbose";
            default -> "Level " + level;
        };
    }

    /** Renders the event as XML on one line ({@code <Event xmlns=...>...</Event>}). */
    public String xml() {
        return event.toXml();
    }

    /** Reads the fields of an expanded {@code <Event>} element. */
    static EvtxRecord of(EvtxElement event, long fileRecordNumber, int chunk, long fileOffset, String writtenTime) {
        EvtxElement system = event.element("System");
        String provider = null;
        String providerGuid = null;
        Integer eventId = null;
        Integer qualifiers = null;
        Integer version = null;
        Integer level = null;
        Integer task = null;
        Integer opcode = null;
        String keywords = null;
        String timeCreated = null;
        Long recordId = null;
        String channel = null;
        String computer = null;
        String userSid = null;
        if (system != null) {
            for (EvtxElement e : system.elements()) {
                switch (e.name()) {
                    case "Provider" -> {
                        provider = e.attribute("Name");
                        if (provider == null) {
                            provider = e.attribute("EventSourceName");
                        }
                        providerGuid = e.attribute("Guid");
                    }
                    case "EventID" -> {
                        eventId = integer(e.text());
                        qualifiers = integer(e.attribute("Qualifiers"));
                    }
                    case "Version" -> version = integer(e.text());
                    case "Level" -> level = integer(e.text());
                    case "Task" -> task = integer(e.text());
                    case "Opcode" -> opcode = integer(e.text());
                    case "Keywords" -> keywords = e.text();
                    case "TimeCreated" -> timeCreated = e.attribute("SystemTime");
                    case "EventRecordID" -> recordId = number(e.text());
                    case "Channel" -> channel = e.text();
                    case "Computer" -> computer = e.text();
                    case "Security" -> userSid = e.attribute("UserID");
                    default -> { }
                }
            }
        }
        return new EvtxRecord(recordId != null ? recordId : fileRecordNumber, fileRecordNumber, chunk, fileOffset, writtenTime,
                timeCreated, provider, providerGuid, eventId, qualifiers, version, level, task, opcode, keywords,
                channel, computer, userSid, Collections.unmodifiableMap(data(event)), event);
    }

    private static Map<String, String> data(EvtxElement event) {
        Map<String, String> out = new LinkedHashMap<>();
        EvtxElement eventData = event.element("EventData");
        if (eventData != null) {
            int unnamed = 0;
            for (EvtxElement d : eventData.elements()) {
                String name = d.attribute("Name");
                if (name == null || name.isEmpty()) {
                    name = d.name().equals("Data") ? "Data" + (++unnamed) : d.name();
                }
                put(out, name, d.text());
            }
        }
        EvtxElement userData = event.element("UserData");
        if (userData != null) {
            for (EvtxElement top : userData.elements()) {
                leaves(top, out);
            }
        }
        return out;
    }

    // UserData holds one provider-defined element; its leaves are the values
    private static void leaves(EvtxElement e, Map<String, String> out) {
        java.util.List<EvtxElement> children = e.elements();
        if (children.isEmpty()) {
            put(out, e.name(), e.text());
            return;
        }
        for (EvtxElement c : children) {
            if (c.elements().isEmpty()) {
                put(out, c.name(), c.text());
            } else {
                leaves(c, out);
            }
        }
    }

    private static void put(Map<String, String> out, String name, String value) {
        if (!out.containsKey(name)) {
            out.put(name, value);
            return;
        }
        for (int i = 2; ; i++) {
            if (!out.containsKey(name + i)) {
                out.put(name + i, value);
                return;
            }
        }
    }

    private static Integer integer(String s) {
        Long v = number(s);
        return v == null || v > 0xffffffffL || v < Integer.MIN_VALUE ? null : (int) (long) v;
    }

    private static Long number(String s) {
        if (s == null || s.isEmpty() || s.length() > 20) {
            return null;
        }
        try {
            return s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
