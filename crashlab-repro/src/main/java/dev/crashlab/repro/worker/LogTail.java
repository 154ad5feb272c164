package dev.crashlab.repro.worker;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Reads the end of a child's log file: what a triager needs to see of a crashed replay, bounded. */
public final class LogTail {

    /** Bytes of a child's log kept with a job's result. */
    public static final int DEFAULT_BYTES = 8192;

    private LogTail() {}

    /**
     * Returns the last {@code maxBytes} of {@code file} as text, starting at a line boundary when the file
     * is longer; an empty string when it is missing or unreadable (a child that never wrote is normal).
     */
    public static String read(Path file, int maxBytes) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long length = raf.length();
            long start = Math.max(0, length - maxBytes);
            byte[] bytes = new byte[(int) (length - start)];
            raf.seek(start);
            raf.readFully(bytes);
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            if (start > 0) {
                int nl = text.indexOf('\n');
                text = nl >= 0 && nl < text.length() - 1 ? text.substring(nl + 1) : text;
            }
            return text;
        } catch (IOException e) {
            return "";
        }
    }

    /** Returns the text after the last {@code progress: } line of a log tail, or null if there is none. */
    public static String lastProgress(String tail) {
        int at = tail.lastIndexOf(ChildProtocol.PROGRESS_PREFIX);
        while (at > 0 && tail.charAt(at - 1) != '\n') {
            at = tail.lastIndexOf(ChildProtocol.PROGRESS_PREFIX, at - 1);
        }
        if (at < 0) {
            return null;
        }
        int end = tail.indexOf('\n', at);
        String line = tail.substring(at + ChildProtocol.PROGRESS_PREFIX.length(), end < 0 ? tail.length() : end).strip();
        return line.isEmpty() ? null : line;
    }
}
