package dev.crashlab.parse.env;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads text line by line keeping at most {@link #MAX_LINE} characters of each line, so one giant line
 * costs bounded memory and bounded regex work.
 *
 * <p>NOTE: {@code \n}, {@code \r\n} and a lone {@code \r} end a line; characters past the cap are skipped
 * and {@link #truncated()} tells the caller.
 */
final class EnvLineReader {

    /** The most characters of one line examined; environment listings have short lines. */
    static final int MAX_LINE = 4 * 1024;

    private final Reader in;
    private final char[] buf = new char[1 << 14];
    private final StringBuilder line = new StringBuilder(128);
    private int pos;
    private int len;
    private boolean truncated;
    private boolean pendingCr;
    private long lineNumber;
    private long replacements;

    EnvLineReader(Reader in) {
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
            char c = buf[pos++];
            if (pendingCr) {
                pendingCr = false;
                if (c == '\n') {
                    continue;
                }
            }
            any = true;
            if (c == '\n') {
                break;
            }
            if (c == '\r') {
                pendingCr = true;
                break;
            }
            if (c == '\uFFFD') {
                replacements++;
            }
            if (line.length() < MAX_LINE) {
                line.append(c);
            } else {
                truncated = true;
            }
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
