package dev.crashlab.parse.evtx;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The bytes of an .evtx file as {@link EvtxReader} reads them: positional reads that move forward, after a
 * look at the file header block.
 *
 * <p>NOTE: bytes past the end read as zeros (a file cut short, or a stream cut by a read budget);
 * {@link #end()} says where the bytes really ended once that is known.
 */
abstract sealed class EvtxBytes implements Closeable {

    /** The declared size in bytes. */
    abstract long size();

    /** Fills {@code buf} with the bytes at {@code position}; missing bytes stay zero. */
    abstract void read(long position, byte[] buf) throws IOException;

    /** Where the bytes ended, if a read has met the end before {@link #size()}; else {@link #size()}. */
    abstract long end();

    static EvtxBytes of(Path file) throws IOException {
        return new OfChannel(FileChannel.open(file, StandardOpenOption.READ));
    }

    static EvtxBytes of(InputStream in, long size) {
        return new OfStream(in, size);
    }

    /** A file, read with positional reads. */
    static final class OfChannel extends EvtxBytes {
        private final FileChannel channel;
        private final long size;
        private long end;

        OfChannel(FileChannel channel) throws IOException {
            this.channel = channel;
            this.size = channel.size();
            this.end = size;
        }

        @Override
        long size() {
            return size;
        }

        @Override
        long end() {
            return end;
        }

        @Override
        void read(long position, byte[] buf) throws IOException {
            ByteBuffer bb = ByteBuffer.wrap(buf);
            while (bb.hasRemaining()) {
                int n = channel.read(bb, position + bb.position());
                if (n < 0) {
                    end = Math.min(end, position + bb.position()); // the file shrank while we read it
                    break;
                }
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /**
     * A stream read once, front to back: the first {@link #HEAD} bytes are kept, so that the header block can
     * be looked at again; any other read must start at or after the furthest byte read so far.
     */
    static final class OfStream extends EvtxBytes {
        /** The file header block and the first chunk's magic. */
        static final int HEAD = 4096 + 8;

        private final InputStream in;
        private final long size;
        private final byte[] head;
        private int headLength;
        private long position; // next stream byte
        private long end;

        OfStream(InputStream in, long size) {
            this.in = in;
            this.size = size;
            this.end = size;
            this.head = new byte[(int) Math.min(HEAD, Math.max(size, 0))];
        }

        @Override
        long size() {
            return size;
        }

        @Override
        long end() {
            return end;
        }

        @Override
        void read(long at, byte[] buf) throws IOException {
            fillHead();
            int done = 0;
            if (at < headLength) {
                done = (int) Math.min(buf.length, headLength - at);
                System.arraycopy(head, (int) at, buf, 0, done);
            }
            long from = at + done;
            if (done == buf.length) {
                return;
            }
            if (from < position) {
                throw new IOException("evtx stream read backwards: at " + from + ", already past " + position);
            }
            skipTo(from);
            while (done < buf.length && position < end) {
                int n = in.read(buf, done, buf.length - done);
                if (n < 0) {
                    end = position;
                    break;
                }
                done += n;
                position += n;
            }
        }

        private void fillHead() throws IOException {
            if (headLength > 0 || head.length == 0) {
                return;
            }
            headLength = in.readNBytes(head, 0, head.length);
            position = headLength;
            if (headLength < head.length) {
                end = headLength;
            }
        }

        private void skipTo(long target) throws IOException {
            while (position < target && position < end) {
                long n = in.skip(target - position);
                if (n <= 0) {
                    if (in.read() < 0) {
                        end = position;
                        return;
                    }
                    n = 1;
                }
                position += n;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
