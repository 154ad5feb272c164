package dev.crashlab.parse;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads text line by line keeping at most a fixed number of characters of each line, so one giant line
 * (a progress bar without newlines, binary garbage) costs bounded memory and bounded regex work; every
 * parser reads its text through one.
 *
 * <p>NOTE: {@code \n}, {@code \r\n} and a lone {@code \r} end a line; the characters past the cap are
 * skipped, and {@link #truncated()} tells the caller.
 */
public final class BoundedLineReader {

    private final Reader in;
    private final char[] buf = new char[1 << 16];
    private int pos;
    private int len;
    private final StringBuilder line = new StringBuilder(256);
    private boolean truncated;
    private long lineNumber;
    private long replacements;
    private boolean pendingCr;
    private final int maxLine;

    /** Reads {@code in}, keeping at most {@code maxLine} characters of each line. */
    public BoundedLineReader(Reader in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
    }

    /** Returns the next line without its terminator, or null at the end. */
    public String readLine() throws IOException {
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
            int room = maxLine - line.length();
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

    /** Tells whether the last line read was longer than the cap and was cut. */
    public boolean truncated() {
        return truncated;
    }

    /** Returns the 1-based number of the last line read. */
    public long lineNumber() {
        return lineNumber;
    }

    /** Returns how many characters so far were undecodable bytes replaced by U+FFFD. */
    public long replacements() {
        return replacements;
    }
}
