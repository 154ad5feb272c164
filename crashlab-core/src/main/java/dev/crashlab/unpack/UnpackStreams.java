package dev.crashlab.unpack;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** The streams the archive readers share: counting compressed bytes, capping expanded ones, and our own failures. */
final class UnpackStreams {

    /** The copy and read-ahead buffer of every reader. */
    static final int COPY_BUFFER = 64 * 1024;

    private UnpackStreams() {}

    /** Counts the bytes read from a file: the compressed bytes that ratios are measured against. */
    static final class CountingInputStream extends FilterInputStream {
        private long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        long count() {
            return count;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(n);
            count += Math.max(skipped, 0);
            return skipped;
        }
    }

    /** Fails once more than {@code cap} bytes have been read through it. */
    static final class CappedInputStream extends FilterInputStream {
        private final long cap;
        private long count;

        CappedInputStream(InputStream in, long cap) {
            super(in);
            this.cap = cap;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count += n;
                if (count > cap) {
                    throw new GuardException(Kind.TOO_LARGE, "over the size limit");
                }
            }
            return n;
        }

        /** Skips by reading, so that skipped bytes are counted too. */
        @Override
        public long skip(long n) throws IOException {
            byte[] scratch = new byte[(int) Math.min(Math.max(n, 0), COPY_BUFFER)];
            long skipped = 0;
            while (skipped < n) {
                int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
                if (r < 0) {
                    break;
                }
                skipped += r;
            }
            return skipped;
        }
    }

    /** Raised inside a stream when a check of ours fails, so that the caller can report it precisely. */
    static final class GuardException extends IOException {
        private static final long serialVersionUID = 1L;
        final Kind kind;

        GuardException(Kind kind, String reason) {
            super(reason);
            this.kind = kind;
        }
    }

    static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException | RuntimeException e) {
            // a failure to release a read stream changes nothing about what was staged
        }
    }
}
