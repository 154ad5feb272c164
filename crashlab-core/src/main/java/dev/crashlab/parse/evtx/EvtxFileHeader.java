package dev.crashlab.parse.evtx;

import java.util.zip.CRC32;

/**
 * Is the EVTX file header (the first 4096 bytes; 128 used): chunk counts, the next record number, the
 * version, flags and the header's own CRC32.
 *
 * <p>NOTE: counts in a dirty or wrapped log's header can be stale; the reader scans every chunk slot
 * in the file instead of trusting them.
 */
public record EvtxFileHeader(long firstChunk, long lastChunk, long nextRecordId, int headerSize, int minorVersion,
                             int majorVersion, int headerBlockSize, int chunkCount, int flags, long storedChecksum,
                             long computedChecksum) {

    /** The signature {@code ElfFile\0}. */
    static final byte[] MAGIC = {'E', 'l', 'f', 'F', 'i', 'l', 'e', 0};
    /** Bytes of the header block, where the first chunk starts. */
    public static final int BLOCK_SIZE = 4096;
    /** Flag: the log was not closed cleanly. */
    public static final int FLAG_DIRTY = 0x1;
    /** Flag: the log is full. */
    public static final int FLAG_FULL = 0x2;

    /** Reads the header from the first 128 (or more) bytes; the caller checked the magic. */
    static EvtxFileHeader read(ChunkBytes b) {
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, 120);
        return new EvtxFileHeader(b.i64(8), b.i64(16), b.i64(24), (int) b.u32(32), b.u16(36), b.u16(38), b.u16(40),
                b.u16(42), (int) b.u32(120), b.u32(124), crc.getValue());
    }

    /** Tells whether the stored CRC32 matches the header bytes. */
    public boolean checksumOk() {
        return storedChecksum == computedChecksum;
    }

    /** Tells whether the dirty flag is set. */
    public boolean dirty() {
        return (flags & FLAG_DIRTY) != 0;
    }
}
