package dev.crashlab.parse.nvidiasmi;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads text line by line keeping at most {@link #MAX_LINE} characters of each, so one giant line costs
 * bounded memory and bounded regex work.
 *
 * <p>NOTE: {@code \n}, {@code \r\n} and a lone {@code \r} end a line; characters past the cap are skipped.
 */
final class SmiLineReader {

    /** The most characters of one line examined by default; nvidia-smi's text and tables never come near it. */
    static final int MAX_LINE = 4096;
    /** The cap for CSV, whose header of 250 query fields runs to about 8,000 characters. */
    static final int MAX_CSV_LINE = 64 * 1024;

    private final Reader in;
    private final char[] buf = new char[1 << 14];
    private final StringBuilder line = new StringBuilder(256);
    private int pos;
    private int len;
    private boolean pendingCr;
    private boolean truncated;
    private long lineNumber;
    private long replacements;

    private final int maxLine;

    SmiLineReader(Reader in) {
        this(in, MAX_LINE);
    }

    SmiLineReader(Reader in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
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
            if (line.length() < maxLine) {
                line.append(c);
            } else {
                truncated = true;
            }
        }
        lineNumber++;
        return line.toString();
    }

    /** Tells whether the last line read was cut at the cap. */
    boolean truncated() {
        return truncated;
    }

    /** Returns the 1-based number of the last line read. */
    long lineNumber() {
        return lineNumber;
    }

    /** Returns how many undecodable bytes were replaced so far. */
    long replacements() {
        return replacements;
    }
}
