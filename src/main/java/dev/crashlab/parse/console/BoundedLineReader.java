package dev.crashlab.parse.console;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads text line by line keeping at most {@link #MAX_LINE} characters of each line, so one giant line
 * (a progress bar without newlines, binary garbage) costs bounded memory and bounded regex work.
 *
 * <p>NOTE: {@code \n}, {@code \r\n} and a lone {@code \r} end a line; the characters past the cap are
 * skipped, and {@link #truncated()} tells the caller.
 */
final class BoundedLineReader {

    /** The most characters of one line examined. */
    static final int MAX_LINE = 8 * 1024;

    private final Reader in;
    private final char[] buf = new char[1 << 16];
    private int pos;
    private int len;
    private final StringBuilder line = new StringBuilder(256);
    private boolean truncated;
    private long lineNumber;
    private long replacements;
    private boolean pendingCr;

    BoundedLineReader(Reader in) {
        this.in = in;
    }

    /** Returns the next line without its terminator, or null at the end. */
    String readLine() throws IOException {
        line.setLength(0);
        truncated = false;
        boolean any = false;
        while (true) {
            if (pos >= len) {
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    if (!any) {
                        return null;
                    }
                    break;
                }
            }
            if (pendingCr) {
                pendingCr = false;
                if (buf[pos] == '\n') {
                    pos++;
                    continue;
                }
            }
            any = true;
            int end = pos;
            char c = 0;
            while (end < len) {
                c = buf[end];
                if (c == '\n' || c == '\r') {
                    break;
                }
                if (c == '\uFFFD') {
                    replacements++;
                }
                end++;
            }
            int room = MAX_LINE - line.length();
            int take = Math.min(room, end - pos);
            line.append(buf, pos, take);
            if (take < end - pos) {
                truncated = true;
            }
            if (end < len) {
                pos = end + 1;
                pendingCr = c == '\r';
                break;
            }
            pos = end;
        }
        lineNumber++;
        return line.toString();
    }

    /** Tells whether the last line read was longer than {@link #MAX_LINE} and was cut. */
    boolean truncated() {
        return truncated;
    }

    /** Returns the 1-based number of the last line read. */
    long lineNumber() {
        return lineNumber;
    }

    /** Returns how many characters so far were undecodable bytes replaced by U+FFFD. */
    long replacements() {
        return replacements;
    }
}
