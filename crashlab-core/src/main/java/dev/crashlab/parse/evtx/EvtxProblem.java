package dev.crashlab.parse.evtx;

/**
 * Is something the reader could not read, or read with a reservation: what, where (chunk, record, file
 * offset) and why.
 *
 * @param kind what kind of problem, and whether data was lost
 * @param chunk the 0-based chunk index, or -1 for the file header
 * @param record the record header's number, or -1 when no record is concerned (or its header is unreadable)
 * @param fileOffset the file offset of the structure (or of the bad bytes, when known)
 * @param detail why, naming the field that was being read
 */
public record EvtxProblem(Kind kind, int chunk, long record, long fileOffset, String detail) {

    /** The kinds of problem; {@link #lost()} tells which cost records. */
    public enum Kind {
        /** The file header is damaged (magic, size); chunks are still read. */
        FILE_HEADER(false),
        /** The file header's CRC32 does not match. */
        FILE_CHECKSUM(false),
        /** A chunk's header is unreadable (bad magic, truncated): all its records are lost. */
        CHUNK_LOST(true),
        /** A chunk slot the file header counts as in use is all zeros (wiped, or never flushed). */
        CHUNK_EMPTY(false),
        /** A chunk's header or records CRC32 does not match; its records are still read, each checked. */
        CHUNK_CHECKSUM(false),
        /** One record could not be read (bad size, bad BinXML, incomplete template, ...). */
        RECORD_LOST(true),
        /** A record was read but part of it was damaged (unpaired surrogates, a malformed value). */
        RECORD_DAMAGED(false);

        private final boolean lost;

        Kind(boolean lost) {
            this.lost = lost;
        }

        /** Tells whether this kind of problem cost records. */
        public boolean lost() {
            return lost;
        }
    }

    /** Says what went wrong and where, for a person. */
    public String message() {
        StringBuilder sb = new StringBuilder();
        if (chunk < 0) {
            sb.append("file header");
        } else {
            sb.append("chunk ").append(chunk);
            if (record >= 0) {
                sb.append(", record ").append(record);
            }
        }
        sb.append(" (file offset 0x").append(Long.toHexString(fileOffset)).append("): ").append(detail);
        return sb.toString();
    }
}
