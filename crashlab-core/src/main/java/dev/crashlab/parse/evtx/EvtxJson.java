package dev.crashlab.parse.evtx;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.util.Map;

/**
 * Writes records as JSON lines: one object per record with {@code record_id}, {@code time} (ISO-8601 UTC),
 * {@code provider}, {@code event_id}, {@code level} (as Event Viewer names it) and {@code data}, plus the
 * other System fields.
 */
public final class EvtxJson {

    private static final JsonFactory FACTORY = new JsonFactory();
    private final JsonGenerator gen;

    /** Writes to {@code out}; the caller closes {@code out}. */
    public EvtxJson(Writer out) throws IOException {
        this.gen = FACTORY.createGenerator(out);
        gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        gen.setRootValueSeparator(null);
    }

    /** Writes one record and a newline. */
    public void write(EvtxRecord r) throws IOException {
        write(r, null);
    }

    /** Writes one record and a newline, with a {@code file} field first when {@code file} is not null. */
    public void write(EvtxRecord r, String file) throws IOException {
        gen.writeStartObject();
        if (file != null) {
            gen.writeStringField("file", file);
        }
        gen.writeNumberField("record_id", r.recordId());
        gen.writeStringField("time", r.timeCreated() != null ? r.timeCreated() : r.writtenTime());
        gen.writeStringField("provider", r.provider());
        if (r.providerGuid() != null) {
            gen.writeStringField("provider_guid", r.providerGuid());
        }
        number(gen, "event_id", r.eventId());
        number(gen, "qualifiers", r.qualifiers());
        number(gen, "version", r.version());
        gen.writeStringField("level", r.levelName());
        number(gen, "level_value", r.level());
        number(gen, "task", r.task());
        number(gen, "opcode", r.opcode());
        if (r.keywords() != null) {
            gen.writeStringField("keywords", r.keywords());
        }
        gen.writeStringField("channel", r.channel());
        gen.writeStringField("computer", r.computer());
        if (r.userSid() != null) {
            gen.writeStringField("user_sid", r.userSid());
        }
        gen.writeNumberField("file_record_number", r.fileRecordNumber());
        gen.writeFieldName("data");
        gen.writeStartObject();
        for (Map.Entry<String, String> e : r.data().entrySet()) {
            gen.writeStringField(e.getKey(), e.getValue());
        }
        gen.writeEndObject();
        gen.writeEndObject();
        gen.writeRaw('\n');
    }

    /** Flushes what was written. */
    public void flush() throws IOException {
        gen.flush();
    }

    private static void number(JsonGenerator gen, String name, Integer v) throws IOException {
        if (v == null) {
            gen.writeNullField(name);
        } else {
            gen.writeNumberField(name, v);
        }
    }
}
