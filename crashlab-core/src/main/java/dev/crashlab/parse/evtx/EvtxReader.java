package dev.crashlab.parse.evtx;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * Reads the records of an EVTX file one at a time, in file order, reporting what it cannot read as
 * {@link EvtxProblem}s and going on.
 *
 * <p>NOTE: memory is bounded by one chunk (64 KiB of bytes plus its caches): chunks are read with
 * positional reads, one after another, and every chunk slot of the file is visited whatever the file
 * header's (possibly stale) counts say. Bad bytes never throw; only the disk failing does
 * ({@link java.io.UncheckedIOException} from {@link #next()}).
 */
public final class EvtxReader implements Iterator<EvtxRecord>, Closeable {

    private final EvtxBytes bytes;
    private final long fileSize;
    private final Consumer<EvtxProblem> sink;
    private final Map<EvtxProblem.Kind, Integer> problemCounts = new EnumMap<>(EvtxProblem.Kind.class);
    private EvtxFileHeader header;
    private long nextChunkOffset;
    private int chunkIndex = -1;
    private EvtxChunk chunk;
    private EvtxRecord pending;
    private boolean done;
    private int chunksRead;
    private long nearFrom = Long.MIN_VALUE;
    private long nearTo = Long.MAX_VALUE;

    private EvtxReader(EvtxBytes bytes, Consumer<EvtxProblem> problems) throws IOException {
        this.bytes = bytes;
        this.fileSize = bytes.size();
        this.sink = problems;
        readFileHeader();
    }

    /** Opens {@code file}; problems go to {@code problems} as they are found. */
    public static EvtxReader open(Path file, Consumer<EvtxProblem> problems) throws IOException {
        return open(EvtxBytes.of(file), problems);
    }

    /**
     * Reads {@code size} bytes from {@code in}, front to back (the header block is kept for a second look);
     * closing the reader closes the stream.
     */
    public static EvtxReader open(InputStream in, long size, Consumer<EvtxProblem> problems) throws IOException {
        return open(EvtxBytes.of(in, size), problems);
    }

    /**
     * Reads {@code size} bytes from {@code in} like {@link #open(InputStream, long, Consumer)}, but parses only the
     * chunks whose header says they hold records {@code from..to} (EventRecordIDs): the others are skipped after
     * their 512-byte header, so finding one record costs one or two chunks' parsing, not the file's.
     *
     * <p>NOTE: an exported log's records may carry EventRecordIDs that its chunk headers do not; a caller that finds
     * nothing here reads the file again with {@link #open(InputStream, long, Consumer)}.
     */
    public static EvtxReader openNear(InputStream in, long size, long from, long to, Consumer<EvtxProblem> problems)
            throws IOException {
        EvtxReader r = open(EvtxBytes.of(in, size), problems);
        r.nearFrom = from;
        r.nearTo = to;
        return r;
    }

    private static EvtxReader open(EvtxBytes ch, Consumer<EvtxProblem> problems) throws IOException {
        try {
            return new EvtxReader(ch, problems);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private void readFileHeader() throws IOException {
        byte[] head = read(0, (int) Math.min(EvtxFileHeader.BLOCK_SIZE, fileSize));
        ChunkBytes b = new ChunkBytes(head);
        if (b.startsWith(0, EvtxChunkHeader.MAGIC)) {
            nextChunkOffset = 0; // a bare chunk (carved or cut out of a file)
            problem(EvtxProblem.Kind.FILE_HEADER, 0, "no file header: the file starts with a chunk");
            return;
        }
        nextChunkOffset = EvtxFileHeader.BLOCK_SIZE;
        if (!b.startsWith(0, EvtxFileHeader.MAGIC)) {
            problem(EvtxProblem.Kind.FILE_HEADER, 0, "bad file signature (expected ElfFile)");
            if (fileSize <= EvtxFileHeader.BLOCK_SIZE || !startsWithChunkMagic(EvtxFileHeader.BLOCK_SIZE)) {
                done = true; // neither a file header nor a first chunk: not an EVTX file
            }
            return;
        }
        if (head.length < 128) {
            problem(EvtxProblem.Kind.FILE_HEADER, 0, "file header cut off at " + head.length + " bytes");
            done = true;
            return;
        }
        header = EvtxFileHeader.read(b);
        if (!header.checksumOk()) {
            problem(EvtxProblem.Kind.FILE_CHECKSUM, 124, "file header CRC32 is 0x" + Long.toHexString(header.storedChecksum())
                    + ", computed 0x" + Long.toHexString(header.computedChecksum()));
        }
        long slots = (fileSize - EvtxFileHeader.BLOCK_SIZE + EvtxChunkHeader.CHUNK_SIZE - 1) / EvtxChunkHeader.CHUNK_SIZE;
        if (header.chunkCount() > Math.max(slots, 0)) {
            problem(new EvtxProblem(EvtxProblem.Kind.CHUNK_LOST, -1, -1, fileSize, "the file header counts "
                    + header.chunkCount() + " chunks, but the file ends after " + Math.max(slots, 0) + " (cut off at "
                    + fileSize + " bytes)"));
        }
        if (header.majorVersion() != 3 || header.headerBlockSize() != EvtxFileHeader.BLOCK_SIZE) {
            problem(EvtxProblem.Kind.FILE_HEADER, 36, "unexpected version " + header.majorVersion() + "." + header.minorVersion()
                    + " or header block size " + header.headerBlockSize() + "; reading chunks from 0x1000 anyway");
        }
    }

    private boolean startsWithChunkMagic(long offset) throws IOException {
        byte[] m = read(offset, (int) Math.min(8, fileSize - offset));
        return new ChunkBytes(m).startsWith(0, EvtxChunkHeader.MAGIC);
    }

    /** The file header, or null when the file has none or it is unreadable. */
    public EvtxFileHeader header() {
        return header;
    }

    /** How many chunks held a readable chunk header so far. */
    public int chunksRead() {
        return chunksRead;
    }

    /** How many problems of each kind were reported so far. */
    public Map<EvtxProblem.Kind, Integer> problemCounts() {
        return Map.copyOf(problemCounts);
    }

    @Override
    public boolean hasNext() {
        if (pending != null) {
            return true;
        }
        try {
            pending = advance();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return pending != null;
    }

    @Override
    public EvtxRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        EvtxRecord r = pending;
        pending = null;
        return r;
    }

    private EvtxRecord advance() throws IOException {
        while (!done) {
            if (chunk != null) {
                EvtxRecord r = chunk.nextRecord();
                if (r != null) {
                    return r;
                }
                chunk = null;
            }
            if (nextChunkOffset >= Math.min(fileSize, bytes.end())) {
                done = true;
                break;
            }
            long at = nextChunkOffset;
            int length = (int) Math.min(EvtxChunkHeader.CHUNK_SIZE, fileSize - at);
            nextChunkOffset += EvtxChunkHeader.CHUNK_SIZE;
            chunkIndex++;
            byte[] buf = read(at, length);
            if (skipsChunk(buf)) {
                continue;
            }
            chunk = EvtxChunk.open(buf, chunkIndex, at, this::problem);
            if (chunk != null) {
                chunksRead++;
            } else if (header != null && chunkIndex < header.chunkCount() && EvtxChunk.allZero(buf, 0, buf.length)) {
                problem(new EvtxProblem(EvtxProblem.Kind.CHUNK_EMPTY, chunkIndex, -1, at, "chunk slot is all zeros, though the file header counts "
                        + header.chunkCount() + " chunks"));
            }
        }
        return null;
    }

    // A chunk whose (readable) header places all its records outside nearFrom..nearTo; unreadable headers are read
    private boolean skipsChunk(byte[] buf) {
        if (nearFrom == Long.MIN_VALUE && nearTo == Long.MAX_VALUE) {
            return false;
        }
        ChunkBytes b = new ChunkBytes(buf);
        if (buf.length < EvtxChunkHeader.SIZE || !b.startsWith(0, EvtxChunkHeader.MAGIC)) {
            return false;
        }
        EvtxChunkHeader h = EvtxChunkHeader.read(b);
        if (h.firstRecordId() > h.lastRecordId()) {
            return false;
        }
        return h.lastRecordId() < nearFrom || h.firstRecordId() > nearTo;
    }

    private byte[] read(long position, int length) throws IOException {
        byte[] buf = new byte[length];
        bytes.read(position, buf);
        return buf;
    }

    private void problem(EvtxProblem.Kind kind, long at, String detail) {
        problem(new EvtxProblem(kind, -1, -1, at, detail));
    }

    private void problem(EvtxProblem p) {
        problemCounts.merge(p.kind(), 1, Integer::sum);
        sink.accept(p);
    }

    @Override
    public void close() throws IOException {
        bytes.close();
    }
}
