package dev.crashlab.reader;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One consumer's view of a pass over an artifact: the reading thread offers chunks, the consumer reads them as a
 * stream. Bounded, so a slow consumer slows the pass instead of filling the heap.
 *
 * <p>NOTE: chunks are shared by every consumer and never written after they are offered. A consumer that stops
 * early closes its pipe and is offered nothing more.
 */
final class ChunkPipe extends InputStream {

    private static final byte[] END = new byte[0];
    private static final int CHUNKS = 16;

    private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(CHUNKS);
    private volatile boolean closed;
    private byte[] current;
    private int at;

    /** Hands a chunk to the consumer, waiting while it is behind; skipped once it has closed. */
    void offer(byte[] chunk) throws InterruptedIOException {
        try {
            while (!closed) {
                if (queue.offer(chunk, 50, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while feeding a parser");
        }
    }

    /** Tells the consumer the bytes have ended. */
    void end() throws InterruptedIOException {
        offer(END);
    }

    private boolean fill() throws IOException {
        if (current == END) {
            return false;
        }
        if (current != null && at < current.length) {
            return true;
        }
        try {
            current = queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for bytes");
        }
        at = 0;
        return current != END;
    }

    @Override
    public int read() throws IOException {
        while (fill()) {
            if (at < current.length) {
                return current[at++] & 0xFF;
            }
        }
        return -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (fill()) {
            int n = Math.min(len, current.length - at);
            if (n > 0) {
                System.arraycopy(current, at, b, off, n);
                at += n;
                return n;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        closed = true;
        queue.clear();
    }

    /** Marks the pipe closed whatever the consumer did with it (it has returned). */
    boolean closed() {
        return closed;
    }
}
