package dev.crashlab.parse.evtx;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Is one 64 KiB chunk: its header, its name and template caches, and its records, read one at a time in
 * file order.
 *
 * <p>NOTE: records are found by walking from the header's end to the free-space offset; a damaged record
 * costs itself only: the walk resynchronises on the next record signature whose size and trailing size
 * copy agree.
 */
final class EvtxChunk {

    /** Record signature {@code **\0\0}. */
    private static final int RECORD_MAGIC = 0x00002a2a;
    private static final int RECORD_HEADER_SIZE = 24;
    /** The smallest record: header, an EOF token's worth of BinXML rounded, the size copy. */
    private static final int MIN_RECORD_SIZE = 28;

    private final ChunkBytes bytes;
    private final int index;
    private final long fileOffset;
    private final Consumer<EvtxProblem> problems;
    private final EvtxNameCache names;
    private final EvtxTemplateCache templates = new EvtxTemplateCache();
    private EvtxChunkHeader header;
    private int next;
    private int end;
    private int recordsLost;

    private EvtxChunk(byte[] buf, int index, long fileOffset, Consumer<EvtxProblem> problems) {
        this.bytes = new ChunkBytes(buf);
        this.index = index;
        this.fileOffset = fileOffset;
        this.problems = problems;
        this.names = new EvtxNameCache(bytes);
    }

    /**
     * Opens the chunk in {@code buf} (64 KiB, or less when the file is cut off); returns null, after
     * reporting why, when it holds no readable chunk header. An all-zero slot is unused and not a problem.
     */
    static EvtxChunk open(byte[] buf, int index, long fileOffset, Consumer<EvtxProblem> problems) {
        EvtxChunk c = new EvtxChunk(buf, index, fileOffset, problems);
        return c.readHeader() ? c : null;
    }

    private boolean readHeader() {
        byte[] buf = bytes.array();
        if (!bytes.startsWith(0, EvtxChunkHeader.MAGIC)) {
            if (!allZero(buf, 0, buf.length)) {
                problem(EvtxProblem.Kind.CHUNK_LOST, -1, fileOffset, "bad chunk signature (expected ElfChnk), "
                        + buf.length + " bytes skipped");
            }
            return false;
        }
        if (buf.length < EvtxChunkHeader.SIZE) {
            problem(EvtxProblem.Kind.CHUNK_LOST, -1, fileOffset, "chunk header cut off: need " + EvtxChunkHeader.SIZE
                    + " bytes, have " + buf.length);
            return false;
        }
        header = EvtxChunkHeader.read(bytes);
        if (buf.length < EvtxChunkHeader.CHUNK_SIZE) {
            problem(EvtxProblem.Kind.RECORD_LOST, -1, fileOffset, "chunk cut off at " + buf.length + " of "
                    + EvtxChunkHeader.CHUNK_SIZE + " bytes; records past the end are lost");
        }
        long free = header.freeSpaceOffset();
        boolean freeOk = free >= EvtxChunkHeader.SIZE && free <= EvtxChunkHeader.CHUNK_SIZE;
        end = freeOk ? (int) Math.min(free, buf.length) : buf.length;
        if (!freeOk) {
            problem(EvtxProblem.Kind.CHUNK_CHECKSUM, -1, fileOffset + 48, "free-space offset 0x" + Long.toHexString(free)
                    + " is outside the chunk; scanning the whole chunk for records");
        }
        long storedHeader = header.headerChecksum();
        long storedRecords = header.recordsChecksum();
        if (storedHeader == 0 && storedRecords == 0) {
            problem(EvtxProblem.Kind.CHUNK_CHECKSUM, -1, fileOffset + 52, "chunk has no checksums (both CRC32 fields are 0)");
        } else {
            long computedHeader = EvtxChunkHeader.computeHeaderChecksum(buf);
            if (computedHeader != storedHeader) {
                problem(EvtxProblem.Kind.CHUNK_CHECKSUM, -1, fileOffset + 124, "header CRC32 is 0x" + Long.toHexString(storedHeader)
                        + ", computed 0x" + Long.toHexString(computedHeader) + "; records are read and checked one by one");
            }
            if (freeOk && free <= buf.length) {
                long computedRecords = EvtxChunkHeader.computeRecordsChecksum(buf, (int) free);
                if (computedRecords != storedRecords) {
                    problem(EvtxProblem.Kind.CHUNK_CHECKSUM, -1, fileOffset + 52, "records CRC32 is 0x" + Long.toHexString(storedRecords)
                            + ", computed 0x" + Long.toHexString(computedRecords) + "; records are read and checked one by one");
                }
            }
        }
        next = EvtxChunkHeader.SIZE;
        return true;
    }

    EvtxChunkHeader header() {
        return header;
    }

    int recordsLost() {
        return recordsLost;
    }

    /** Returns the next readable record of the chunk, or null at its end; bad records are reported and skipped. */
    EvtxRecord nextRecord() {
        byte[] buf = bytes.array();
        while (next >= 0 && next + RECORD_HEADER_SIZE <= end) {
            int off = next;
            if (bytes.i32(off) != RECORD_MAGIC) {
                if (allZero(buf, off, end)) {
                    break;
                }
                recordsLost++;
                problem(EvtxProblem.Kind.RECORD_LOST, -1, fileOffset + off, "no record signature at chunk offset 0x"
                        + Integer.toHexString(off) + "; skipping to the next record");
                next = resync(off + 1);
                continue;
            }
            long size = bytes.u32(off + 4);
            long number = bytes.i64(off + 8);
            if (size < MIN_RECORD_SIZE || off + size > buf.length) {
                recordsLost++;
                problem(EvtxProblem.Kind.RECORD_LOST, number, fileOffset + off, "record size " + size + " at chunk offset 0x"
                        + Integer.toHexString(off) + " is " + (size < MIN_RECORD_SIZE ? "below the minimum " + MIN_RECORD_SIZE
                        : "past the chunk end") + "; skipping to the next record");
                next = resync(off + 4);
                continue;
            }
            int n = (int) size;
            long copy = bytes.u32(off + n - 4);
            if (copy != size) {
                // the trailing copy is damaged but the record may not be: try it, and report either way
                List<EvtxProblem> held = new ArrayList<>(1);
                EvtxRecord r = read(off, n, number, held::add);
                next = resync(off + 4);
                if (r != null) {
                    problem(EvtxProblem.Kind.RECORD_DAMAGED, number, fileOffset + off, "record size " + size
                            + " does not match its trailing copy " + copy + "; the record itself reads");
                    held.forEach(problems);
                    return r;
                }
                recordsLost++;
                problem(EvtxProblem.Kind.RECORD_LOST, number, fileOffset + off, "record size " + size
                        + " does not match its trailing copy " + copy + ", and " + held.getLast().detail());
                continue;
            }
            next = off + n;
            EvtxRecord r = read(off, n, number, problems);
            if (r != null) {
                return r;
            }
            recordsLost++;
        }
        return null;
    }

    // The next offset holding a record signature whose size and trailing size copy agree, or -1.
    private int resync(int from) {
        byte[] buf = bytes.array();
        for (int p = Math.max(from, EvtxChunkHeader.SIZE); p + RECORD_HEADER_SIZE <= end; p++) {
            if (buf[p] == 0x2a && buf[p + 1] == 0x2a && buf[p + 2] == 0 && buf[p + 3] == 0) {
                long size = bytes.u32(p + 4);
                if (size >= MIN_RECORD_SIZE && p + size <= buf.length && bytes.u32(p + (int) size - 4) == size) {
                    return p;
                }
            }
        }
        return -1;
    }

    private EvtxRecord read(int off, int size, long number, Consumer<EvtxProblem> sink) {
        List<String> notes = new ArrayList<>(0);
        BinXmlParser parser = new BinXmlParser(bytes, names, templates, notes);
        try {
            List<BinXmlNode> nodes = parser.document(off + RECORD_HEADER_SIZE, off + size - 4);
            EvtxElement document = new EvtxElement("#document");
            new BinXmlExpander(notes).expand(nodes, List.of(), document, 0);
            EvtxElement event = document.element("Event");
            if (event == null) {
                List<EvtxElement> top = document.elements();
                if (top.isEmpty()) {
                    throw new EvtxFormatException(off, "record holds no XML element");
                }
                event = top.getFirst();
            }
            String written = WindowsTime.fileTime(bytes.i64(off + 16));
            if (parser.badTextCount() > 0 && notes.stream().noneMatch(s -> s.contains("surrogate"))) {
                notes.add(parser.badTextCount() + " unpaired UTF-16 surrogate(s) replaced with U+FFFD");
            }
            for (String note : notes) {
                sink.accept(new EvtxProblem(EvtxProblem.Kind.RECORD_DAMAGED, index, number, fileOffset + off, note));
            }
            return EvtxRecord.of(event, number, index, fileOffset + off, written);
        } catch (EvtxFormatException e) {
            sink.accept(new EvtxProblem(EvtxProblem.Kind.RECORD_LOST, index, number, fileOffset + off, e.getMessage()));
            return null;
        }
    }

    private void problem(EvtxProblem.Kind kind, long record, long at, String detail) {
        problems.accept(new EvtxProblem(kind, index, record, at, detail));
    }

    static boolean allZero(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buf[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
