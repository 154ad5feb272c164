package dev.crashlab.parse.evtx;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Writes valid EVTX files for tests: a file header, 64 KiB chunks with inline names and templates (defined
 * once per chunk, referenced afterwards), template instances with typed substitution values, and correct
 * CRC32s, so tests need no real log.
 */
final class EvtxTestWriter {

    /** A typed substitution value: the BinXML value type and its bytes. */
    record Value(int type, byte[] bytes) {
        static Value string(String s) {
            return new Value(BinXmlValueType.STRING, s.getBytes(StandardCharsets.UTF_16LE));
        }

        static Value uint8(int v) {
            return new Value(BinXmlValueType.UINT8, new byte[] {(byte) v});
        }

        static Value uint16(int v) {
            return new Value(BinXmlValueType.UINT16, le(v, 2));
        }

        static Value int32(int v) {
            return new Value(BinXmlValueType.INT32, le(v, 4));
        }

        static Value uint32(long v) {
            return new Value(BinXmlValueType.UINT32, le(v, 4));
        }

        static Value uint64(long v) {
            return new Value(BinXmlValueType.UINT64, le(v, 8));
        }

        static Value hex32(long v) {
            return new Value(BinXmlValueType.HEX_INT32, le(v, 4));
        }

        static Value hex64(long v) {
            return new Value(BinXmlValueType.HEX_INT64, le(v, 8));
        }

        static Value real64(double v) {
            return new Value(BinXmlValueType.REAL64, le(Double.doubleToLongBits(v), 8));
        }

        static Value bool(boolean v) {
            return new Value(BinXmlValueType.BOOL, le(v ? 1 : 0, 4));
        }

        static Value binary(byte[] b) {
            return new Value(BinXmlValueType.BINARY, b);
        }

        static Value fileTime(long ticks) {
            return new Value(BinXmlValueType.FILETIME, le(ticks, 8));
        }

        static Value sizeT(long v) {
            return new Value(BinXmlValueType.SIZE_T, le(v, 8));
        }

        static Value guid(byte[] sixteen) {
            return new Value(BinXmlValueType.GUID, sixteen);
        }

        /** A SID from its revision, 48-bit authority and sub-authorities. */
        static Value sid(long authority, long... subs) {
            byte[] b = new byte[8 + 4 * subs.length];
            b[0] = 1;
            b[1] = (byte) subs.length;
            for (int i = 0; i < 6; i++) {
                b[2 + i] = (byte) (authority >>> (8 * (5 - i)));
            }
            for (int i = 0; i < subs.length; i++) {
                System.arraycopy(le(subs[i], 4), 0, b, 8 + 4 * i, 4);
            }
            return new Value(BinXmlValueType.SID, b);
        }

        static Value stringArray(String... items) {
            StringBuilder sb = new StringBuilder();
            for (String s : items) {
                sb.append(s).append('\0');
            }
            return new Value(BinXmlValueType.STRING | BinXmlValueType.ARRAY, sb.toString().getBytes(StandardCharsets.UTF_16LE));
        }

        static Value nul() {
            return new Value(BinXmlValueType.NULL, new byte[0]);
        }
    }

    /** One event to write; {@code data} maps Data names (in order) to values. */
    record Event(long recordId, String provider, int eventId, int level, long timeTicks, String channel,
                 String computer, Value userSid, Map<String, Value> data) {}

    private static final int CHUNK = 65536;
    private final List<byte[]> chunks = new ArrayList<>();
    private final int recordsPerChunk;
    private ChunkWriter current;
    private long fileRecordNumber = 1;

    EvtxTestWriter(int recordsPerChunk) {
        this(recordsPerChunk, 1);
    }

    /** A writer whose first record header is numbered {@code firstRecordNumber} (a log that has wrapped around). */
    EvtxTestWriter(int recordsPerChunk, long firstRecordNumber) {
        this.recordsPerChunk = recordsPerChunk;
        this.fileRecordNumber = firstRecordNumber;
    }

    EvtxTestWriter add(Event e) {
        if (current == null || current.records == recordsPerChunk || !current.fits()) {
            finishChunk();
            current = new ChunkWriter(fileRecordNumber);
        }
        current.record(e, fileRecordNumber++);
        return this;
    }

    private void finishChunk() {
        if (current != null) {
            chunks.add(current.finish());
            current = null;
        }
    }

    /** Returns the whole file: header and chunks. */
    byte[] build() {
        finishChunk();
        byte[] out = new byte[4096 + CHUNK * chunks.size()];
        System.arraycopy("ElfFile\0".getBytes(StandardCharsets.ISO_8859_1), 0, out, 0, 8);
        put(out, 8, 0, 8);
        put(out, 16, chunks.size() - 1, 8);
        put(out, 24, fileRecordNumber, 8);
        put(out, 32, 128, 4);
        put(out, 36, 1, 2);
        put(out, 38, 3, 2);
        put(out, 40, 4096, 2);
        put(out, 42, chunks.size(), 2);
        put(out, 120, 0, 4);
        CRC32 crc = new CRC32();
        crc.update(out, 0, 120);
        put(out, 124, crc.getValue(), 4);
        for (int i = 0; i < chunks.size(); i++) {
            System.arraycopy(chunks.get(i), 0, out, 4096 + CHUNK * i, CHUNK);
        }
        return out;
    }

    /** Writes one chunk: names and templates are chunk-relative, so everything is laid out in place. */
    private static final class ChunkWriter {
        final byte[] buf = new byte[CHUNK];
        int pos = 512;
        int records;
        final long firstNumber;
        long lastNumber;
        int lastRecordOffset;
        final Map<String, Integer> names = new HashMap<>();
        final Map<String, Integer> templates = new HashMap<>();

        ChunkWriter(long firstNumber) {
            this.firstNumber = firstNumber;
        }

        boolean fits() {
            return pos < CHUNK - 8192;
        }

        void record(Event e, long number) {
            int start = pos;
            lastRecordOffset = start;
            u32(0x00002a2a);
            int sizeAt = pos;
            u32(0);
            u64(number);
            u64(e.timeTicks());
            // body: fragment header, template instance, EOF
            bytes(0x0f, 1, 1, 0);
            String shape = shape(e);
            Integer def = templates.get(shape);
            bytes(0x0c, 1);
            u32(shape.hashCode());
            if (def == null) {
                def = pos + 4;
                templates.put(shape, def);
                u32(def);
                writeDefinition(e);
            } else {
                u32(def);
            }
            List<Value> values = values(e);
            u32(values.size());
            for (Value v : values) {
                u16(v.bytes().length);
                bytes(v.type(), 0);
            }
            for (Value v : values) {
                for (byte b : v.bytes()) {
                    buf[pos++] = b;
                }
            }
            bytes(0x00);
            while ((pos - start + 4) % 8 != 0) {
                buf[pos++] = 0;
            }
            int size = pos - start + 4;
            u32(size);
            put(buf, sizeAt, size, 4);
            records++;
            lastNumber = number;
        }

        static String shape(Event e) {
            StringBuilder sb = new StringBuilder();
            e.data().forEach((k, v) -> sb.append(k).append(':').append(v.type()).append(';'));
            return sb.toString();
        }

        static List<Value> values(Event e) {
            List<Value> v = new ArrayList<>();
            v.add(Value.string(e.provider()));
            v.add(Value.guid(new byte[] {0x25, (byte) 0x96, (byte) 0x84, 0x54, 0x78, 0x54, (byte) 0x94, 0x49,
                    (byte) 0xa5, (byte) 0xba, 0x3e, 0x3b, 0x03, 0x28, (byte) 0xc3, 0x0d}));
            v.add(Value.nul()); // qualifiers: optional, absent
            v.add(Value.uint16(e.eventId()));
            v.add(Value.uint8(0));
            v.add(Value.uint8(e.level()));
            v.add(Value.uint16(100));
            v.add(Value.uint8(0));
            v.add(Value.hex64(0x8000000000000000L));
            v.add(Value.fileTime(e.timeTicks()));
            v.add(Value.uint64(e.recordId()));
            v.add(Value.string(e.channel()));
            v.add(Value.string(e.computer()));
            v.add(e.userSid() == null ? Value.nul() : e.userSid());
            v.addAll(e.data().values());
            return v;
        }

        void writeDefinition(Event e) {
            u32(0); // next template offset
            for (int i = 0; i < 16; i++) {
                buf[pos++] = (byte) (i * 17);
            }
            int sizeAt = pos;
            u32(0);
            int bodyStart = pos;
            bytes(0x0f, 1, 1, 0);
            open("Event", true);
            attribute("xmlns", false);
            text("http://schemas.microsoft.com/win/2004/08/events/event");
            bytes(0x02);
            open("System", false);
            bytes(0x02);
            open("Provider", true);
            attribute("Name", true);
            sub(0, BinXmlValueType.STRING, true);
            attribute("Guid", false);
            sub(1, BinXmlValueType.GUID, true);
            bytes(0x03);
            open("EventID", true);
            attribute("Qualifiers", false);
            sub(2, BinXmlValueType.UINT16, true);
            bytes(0x02);
            sub(3, BinXmlValueType.UINT16, false);
            bytes(0x04);
            simple("Version", 4, BinXmlValueType.UINT8);
            simple("Level", 5, BinXmlValueType.UINT8);
            simple("Task", 6, BinXmlValueType.UINT16);
            simple("Opcode", 7, BinXmlValueType.UINT8);
            simple("Keywords", 8, BinXmlValueType.HEX_INT64);
            open("TimeCreated", true);
            attribute("SystemTime", false);
            sub(9, BinXmlValueType.FILETIME, true);
            bytes(0x03);
            simple("EventRecordID", 10, BinXmlValueType.UINT64);
            simple("Channel", 11, BinXmlValueType.STRING);
            simple("Computer", 12, BinXmlValueType.STRING);
            open("Security", true);
            attribute("UserID", false);
            sub(13, BinXmlValueType.SID, true);
            bytes(0x03);
            bytes(0x04); // </System>
            open("EventData", false);
            bytes(0x02);
            int i = 14;
            for (Map.Entry<String, Value> d : e.data().entrySet()) {
                open("Data", true);
                attribute("Name", false);
                text(d.getKey());
                bytes(0x02);
                sub(i++, d.getValue().type(), true);
                bytes(0x04);
            }
            bytes(0x04); // </EventData>
            bytes(0x04); // </Event>
            bytes(0x00);
            put(buf, sizeAt, pos - bodyStart, 4);
        }

        void simple(String name, int index, int type) {
            open(name, false);
            bytes(0x02);
            sub(index, type, true);
            bytes(0x04);
        }

        void open(String name, boolean attributes) {
            bytes(attributes ? 0x41 : 0x01);
            u16(0xffff);
            u32(0); // data size: not used by readers
            name(name);
            if (attributes) {
                u32(0); // attribute list size: not used by readers
            }
        }

        void attribute(String name, boolean more) {
            bytes(more ? 0x46 : 0x06);
            name(name);
        }

        void text(String s) {
            bytes(0x05, 1);
            u16(s.length());
            for (byte b : s.getBytes(StandardCharsets.UTF_16LE)) {
                buf[pos++] = b;
            }
        }

        void sub(int index, int type, boolean optional) {
            bytes(optional ? 0x0e : 0x0d);
            u16(index);
            bytes(type);
        }

        void name(String name) {
            Integer at = names.get(name);
            if (at != null) {
                u32(at);
                return;
            }
            at = pos + 4;
            names.put(name, at);
            u32(at);
            u32(0);
            u16(name.hashCode() & 0xffff);
            u16(name.length());
            for (byte b : name.getBytes(StandardCharsets.UTF_16LE)) {
                buf[pos++] = b;
            }
            u16(0);
        }

        byte[] finish() {
            System.arraycopy("ElfChnk\0".getBytes(StandardCharsets.ISO_8859_1), 0, buf, 0, 8);
            put(buf, 8, firstNumber, 8);
            put(buf, 16, lastNumber, 8);
            put(buf, 24, firstNumber, 8);
            put(buf, 32, lastNumber, 8);
            put(buf, 40, 128, 4);
            put(buf, 44, lastRecordOffset, 4);
            put(buf, 48, pos, 4);
            CRC32 records = new CRC32();
            records.update(buf, 512, pos - 512);
            put(buf, 52, records.getValue(), 4);
            put(buf, 124, EvtxChunkHeader.computeHeaderChecksum(buf), 4);
            return buf;
        }

        void bytes(int... bs) {
            for (int b : bs) {
                buf[pos++] = (byte) b;
            }
        }

        void u16(int v) {
            put(buf, pos, v, 2);
            pos += 2;
        }

        void u32(long v) {
            put(buf, pos, v, 4);
            pos += 4;
        }

        void u64(long v) {
            put(buf, pos, v, 8);
            pos += 8;
        }
    }

    static byte[] le(long v, int n) {
        byte[] b = new byte[n];
        put(b, 0, v, n);
        return b;
    }

    static void put(byte[] b, int at, long v, int n) {
        for (int i = 0; i < n; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
