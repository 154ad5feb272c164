package dev.crashlab.parse.evtx;

/**
 * Signals bytes that do not follow the EVTX format inside one structure; the reader turns it into an
 * {@link EvtxProblem} for that record or chunk and goes on.
 *
 * <p>NOTE: internal to the package; it never escapes {@link EvtxReader}.
 */
final class EvtxFormatException extends Exception {

    private final int offset;

    EvtxFormatException(int offset, String detail) {
        super(detail, null, false, false);
        this.offset = offset;
    }

    /** The chunk-relative offset where the bad read started. */
    int offset() {
        return offset;
    }
}
