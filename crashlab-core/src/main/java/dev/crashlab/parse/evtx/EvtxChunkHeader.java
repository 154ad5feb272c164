package dev.crashlab.parse.evtx;

import java.util.zip.CRC32;

/**
 * Is the 512-byte header of a 64 KiB chunk: record number ranges, the free-space offset, and the CRC32s
 * of the header and of the records.
 */
record EvtxChunkHeader(long firstRecordNumber, long lastRecordNumber, long firstRecordId, long lastRecordId,
                       int headerSize, long lastRecordOffset, long freeSpaceOffset, long recordsChecksum, int flags,
                       long headerChecksum) {

    /** The signature {@code ElfChnk\0}. */
    static final byte[] MAGIC = {'E', 'l', 'f', 'C', 'h', 'n', 'k', 0};
    /** Bytes of a chunk. */
    static final int CHUNK_SIZE = 65536;
    /** Bytes of the chunk header, where records start. */
    static final int SIZE = 512;

    /** Reads the header; the caller checked the magic and that 512 bytes are there. */
    static EvtxChunkHeader read(ChunkBytes b) {
        return new EvtxChunkHeader(b.i64(8), b.i64(16), b.i64(24), b.i64(32), (int) b.u32(40), b.u32(44), b.u32(48),
                b.u32(52), (int) b.u32(120), b.u32(124));
    }

    /** Computes the header CRC32 (bytes 0-120 and 128-512). */
    static long computeHeaderChecksum(byte[] chunk) {
        CRC32 crc = new CRC32();
        crc.update(chunk, 0, 120);
        crc.update(chunk, 128, SIZE - 128);
        return crc.getValue();
    }

    /** Computes the records CRC32 (from the header's end to {@code end}). */
    static long computeRecordsChecksum(byte[] chunk, int end) {
        CRC32 crc = new CRC32();
        crc.update(chunk, SIZE, end - SIZE);
        return crc.getValue();
    }
}
