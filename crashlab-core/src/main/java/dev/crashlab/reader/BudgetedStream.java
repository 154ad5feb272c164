package dev.crashlab.reader;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** An artifact's bytes, ending early when the bundle's byte budget or its time runs out. */
final class BudgetedStream extends FilterInputStream {

    /** Why the bytes ended early, or null. */
    enum Cut { BYTES, TIME }

    private final long limit;
    private final long deadlineNanos;
    private long read;
    private Cut cut;

    BudgetedStream(InputStream in, long limit, long deadlineNanos) {
        super(in);
        this.limit = limit;
        this.deadlineNanos = deadlineNanos;
    }

    long bytesRead() {
        return read;
    }

    Cut cut() {
        return cut;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (cut != null) {
            return -1;
        }
        if (read >= limit) {
            return endEarly(Cut.BYTES);
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            return endEarly(Cut.TIME);
        }
        int n = super.read(b, off, (int) Math.min(len, limit - read));
        if (n > 0) {
            read += n;
        }
        return n;
    }

    private int endEarly(Cut why) throws IOException {
        // only a cut if there was more to read
        if (super.read() >= 0) {
            cut = why;
        }
        return -1;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] buf = new byte[(int) Math.min(n, 8192)];
        int r = read(buf, 0, buf.length);
        return Math.max(r, 0);
    }
}
