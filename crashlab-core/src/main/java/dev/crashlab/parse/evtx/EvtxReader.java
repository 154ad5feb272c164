package dev.crashlab.parse.evtx;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Reads the records of an EVTX file one at a time, in file order, reporting what it cannot read as
 * {@link EvtxProblem}s and going on.
 *
 * <p>NOTE: memory is bounded by one chunk (64 KiB of bytes plus its caches): chunks are read with
 * positional reads, one after another, and every chunk slot of the file is visited whatever the file
 * header's (possibly stale) counts say. Bad bytes never throw; only the disk failing does
 * ({@link java.io.UncheckedIOException} from {@link #next()}). A reader from {@link #openReadingAhead} decodes every
 * other chunk on a second thread, one chunk ahead (three chunks' records in memory at most); what it returns and
 * reports, and in which order, is the same.
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
    private boolean readAhead;
    private ExecutorService helper;
    private Ahead ahead;
    private ArrayDeque<Object> replay;

    /** A chunk decoded on the helper thread: what reading it produced (records and problems), in order. */
    private record Decoded(byte[] buf, boolean opened, List<Object> events) {}

    private record Ahead(int index, long at, Future<Decoded> result) {}

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
     * Opens {@code file} like {@link #open(Path, Consumer)}, but decodes every other chunk on a second thread while
     * this one decodes the chunk before it: on a cold JVM (one {@code crashlab evtx} run) both threads interpret and
     * run freshly compiled code at once. Records, problems and their order are the same.
     */
    public static EvtxReader openReadingAhead(Path file, Consumer<EvtxProblem> problems) throws IOException {
        EvtxReader r = open(EvtxBytes.of(file), problems);
        r.readAhead = true;
        return r;
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
            if (replay != null) {
                // a chunk the helper decoded: its problems are reported here, each before the record it came before
                for (Object e; (e = replay.poll()) != null; ) {
                    if (e instanceof EvtxRecord r) {
                        return r;
                    }
                    problem((EvtxProblem) e);
                }
                replay = null;
            }
            if (ahead != null) {
                Ahead a = ahead;
                ahead = null;
                Decoded d = take(a.result());
                nextChunkOffset += EvtxChunkHeader.CHUNK_SIZE;
                chunkIndex = a.index();
                replay = new ArrayDeque<>(d.events());
                opened(d.opened(), d.buf(), a.at());
                continue;
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
            if (readAhead) {
                decodeNextAhead();
            }
            chunk = EvtxChunk.open(buf, chunkIndex, at, this::problem);
            opened(chunk != null, buf, at);
        }
        return null;
    }

    // after a chunk slot was opened (or not): count it, or report an unused slot the file header counts
    private void opened(boolean opened, byte[] buf, long at) {
        if (opened) {
            chunksRead++;
        } else if (header != null && chunkIndex < header.chunkCount() && EvtxChunk.allZero(buf, 0, buf.length)) {
            problem(new EvtxProblem(EvtxProblem.Kind.CHUNK_EMPTY, chunkIndex, -1, at, "chunk slot is all zeros, though the file header counts "
                    + header.chunkCount() + " chunks"));
        }
    }

    // hands the chunk after the current one to the helper thread (its bytes are read here, in file order)
    private void decodeNextAhead() throws IOException {
        long at = nextChunkOffset;
        if (at >= Math.min(fileSize, bytes.end())) {
            return;
        }
        byte[] buf = read(at, (int) Math.min(EvtxChunkHeader.CHUNK_SIZE, fileSize - at));
        int index = chunkIndex + 1;
        if (helper == null) {
            helper = Executors.newSingleThreadExecutor(task -> {
                Thread t = new Thread(task, "evtx-read-ahead");
                t.setDaemon(true);
                return t;
            });
        }
        ahead = new Ahead(index, at, helper.submit(() -> decode(buf, index, at)));
    }

    private static Decoded decode(byte[] buf, int index, long at) {
        List<Object> events = new ArrayList<>();
        EvtxChunk c = EvtxChunk.open(buf, index, at, events::add);
        if (c != null) {
            for (EvtxRecord r; (r = c.nextRecord()) != null; ) {
                events.add(r);
            }
        }
        return new Decoded(buf, c != null, events);
    }

    private static Decoded take(Future<Decoded> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading ahead");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
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
        if (helper != null) {
            helper.shutdownNow();
        }
        bytes.close();
    }
}
