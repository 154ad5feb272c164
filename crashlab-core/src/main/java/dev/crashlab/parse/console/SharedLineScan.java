package dev.crashlab.parse.console;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.LineFedParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads ASCII-compatible text (UTF-8, Windows-1252) once for every parser of its type and the text window: one
 * {@link LiteralScan} automaton over the union of the parsers' literals, each tagged with the parser (and for the
 * console log, the rule) that wants it, finds the lines and what each holds in the same loop; a line goes to a parser
 * only when it holds one of that parser's literals or the parser waits for whatever comes next (an open traceback,
 * statement, table or block), and a line nobody wants is never decoded. The window takes every line's bytes.
 *
 * <p>NOTE: gives exactly what each parser gives reading the artifact alone ({@code BundleReaderTest} compares them):
 * the console log's own prefilter is a part of the union (its bits come first), and the line-fed parsers'
 * long-line and undecodable-byte problems are counted here as {@link ArtifactLines} counts them (the bytes of a line
 * past the kept ones are decoded only to count what could not be decoded).
 */
public final class SharedLineScan {

    /** The console log's rule bits take the low bits; each line-fed parser two bits after them. */
    private static final int FIRST_FED_BIT = Integer.numberOfTrailingZeros(ConsoleLogParser.ALL + 1);
    private static final int MAX_FED = (32 - FIRST_FED_BIT) / 2;

    /** Bytes read at a time: small enough that the lines' second look at them finds them in the cache. */
    static final int CHUNK = 128 * 1024;

    /**
     * The most bytes of a literal looked for: a line holding a literal holds its start, so looking for starts only
     * finds a few more candidate lines (each parser checks its own), and a smaller automaton walks faster (1,500
     * states instead of 2,550 for a console log's parsers, about 10 % less time per byte).
     */
    static final int LITERAL_BYTES = 12;

    private static final Map<List<String>, LiteralScan> SCANS = new ConcurrentHashMap<>();

    /** What one shared reading gave: a result per parser (in the order given), and whether the window failed. */
    public record Result(List<ParseResult> results, boolean windowFailed) {}

    private SharedLineScan() {}

    /** Tells whether these parsers can share one scan: each is the console-log parser or line-fed. */
    public static boolean canRead(List<ArtifactParser> parsers) {
        int fed = 0;
        int console = 0;
        for (ArtifactParser p : parsers) {
            if (p instanceof ConsoleLogParser) {
                console++;
            } else if (p instanceof LineFedParser) {
                fed++;
            } else {
                return false;
            }
        }
        return console <= 1 && fed <= MAX_FED;
    }

    static LiteralScan scanFor(List<ArtifactParser> parsers) {
        List<String> key = parsers.stream().map(ArtifactParser::name).toList();
        return SCANS.computeIfAbsent(key, k -> {
            LiteralScan.Builder b = new LiteralScan.Builder();
            int bit = FIRST_FED_BIT;
            for (ArtifactParser p : parsers) {
                if (p instanceof ConsoleLogParser) {
                    ConsoleLogParser.LITERALS.forEachLiteral((bits, w) -> b.add(bits, w));
                } else {
                    LineFedParser f = (LineFedParser) p;
                    b.add(1 << bit, f.lineLiterals().toArray(String[]::new));
                    b.add(1 << (bit + 1), f.checkLiterals().toArray(String[]::new));
                    bit += 2;
                }
            }
            // the memory rule reads a mention's bit as "the line mentions memory": those literals stay whole
            return b.buildShortened(LITERAL_BYTES, ConsoleLogParser.MEMORY_MENTION);
        });
    }

    /**
     * Returns what the scan for these parsers looks for, one literal per line of text ({@code scripts/bench facts} gives
     * them to {@code grep}): the start of every literal of every parser, as scanned.
     */
    public static List<String> literals(List<ArtifactParser> parsers) {
        return scanFor(parsers).literals();
    }

    /** A line-fed parser's reading and its own problems and counts. */
    private static final class Fed {
        final LineFedParser parser;
        final LineFedParser.Reading reading;
        final ParseResult.Builder out = new ParseResult.Builder();
        final ArtifactLines.Problems problems;
        final int lineBit;
        final int checkBit;
        long replacements;
        RuntimeException failedWith;
        Error errorWith;

        Fed(LineFedParser parser, ParseInput input, int bit) {
            this.parser = parser;
            this.reading = parser.startReading(input);
            this.problems = new ArtifactLines.Problems(input, parser.maxLine(), out);
            this.lineBit = 1 << bit;
            this.checkBit = 1 << (bit + 1);
        }

        boolean failed() {
            return failedWith != null || errorWith != null;
        }
    }

    /** What the line-fed parsers want in all, so that most lines are passed over with a few integer tests. */
    private static final class Feeds {
        final Fed[] feds;
        /** Every line-fed parser's literal bits. */
        final int bits;
        /** The shortest line cap: a longer line is reported to some parser. */
        final int minMaxLine;
        /** Some reading waits for every line (kept up to date after each line it reads). */
        boolean armed;

        Feeds(Fed[] feds) {
            this.feds = feds;
            int b = 0;
            int m = Integer.MAX_VALUE;
            for (Fed d : feds) {
                b |= d.lineBit | d.checkBit;
                m = Math.min(m, d.parser.maxLine());
            }
            this.bits = b;
            this.minMaxLine = m;
            rearm();
        }

        void rearm() {
            boolean a = false;
            for (Fed d : feds) {
                if (!d.failed()) {
                    try {
                        a |= d.reading.wantsEveryLine();
                    } catch (RuntimeException e) {
                        d.failedWith = e;
                    }
                }
            }
            armed = a;
        }
    }

    /**
     * Reads {@code bytes} (past any byte order mark), text in {@code cs}, for every parser in {@code parsers}
     * ({@link #canRead} must hold) and for {@code window} (null for none).
     */
    public static Result read(ParseInput input, InputStream bytes, Charset cs, List<ArtifactParser> parsers,
                              ArtifactLines.RawLines window) throws IOException {
        Reader r = new Reader(input, cs, parsers, window);
        try (InputStream in = bytes) {
            r.readAll(in);
        }
        return r.results(input, parsers);
    }

    /**
     * One reading: the consumers and the state between chunks.
     *
     * <p>NOTE: a chunk and a line are methods of their own, called many times, so the JIT compiles them whole early
     * rather than replacing one long-running loop on the stack.
     */
    private static final class Reader {
        private final Charset cs;
        private final LiteralScan scan;
        private final ConsoleLogParser.Pass console;
        private Throwable consoleFailed;
        private final Feeds feeds;
        private final boolean anyFed;
        private final ArtifactLines.RawLines window;
        private boolean windowFailed;
        private final int windowBytes;
        private final Overflow overflow;
        private final byte[] buf = new byte[CHUNK + ConsoleLogParser.MAX_LINE_BYTES];
        private final LiteralScan.Lines[] parts = new LiteralScan.Lines[LiteralScan.WALKS];
        private long lineNumber;
        private boolean overLong;  // the line at buf[0] had more than MAX_LINE_BYTES; only its first ones are kept
        private boolean pendingCr; // the last line ended with \r: a \n right after it ends no line

        Reader(ParseInput input, Charset cs, List<ArtifactParser> parsers, ArtifactLines.RawLines window) {
            this.cs = cs;
            this.scan = scanFor(parsers);
            for (int k = 0; k < parts.length; k++) {
                parts[k] = new LiteralScan.Lines();
            }
            ConsoleLogParser.Pass c = null;
            List<Fed> fed = new ArrayList<>();
            int bit = FIRST_FED_BIT;
            for (ArtifactParser p : parsers) {
                if (p instanceof ConsoleLogParser parser) {
                    c = parser.startPass(input);
                } else {
                    fed.add(new Fed((LineFedParser) p, input, bit));
                    bit += 2;
                }
            }
            this.console = c;
            this.feeds = new Feeds(fed.toArray(Fed[]::new));
            this.anyFed = !fed.isEmpty();
            this.window = window;
            this.windowBytes = window != null ? window.maxLineBytes() : 0;
            this.overflow = anyFed ? new Overflow(cs) : null;
        }

        void readAll(InputStream in) throws IOException {
            final int maxLineBytes = ConsoleLogParser.MAX_LINE_BYTES;
            int len = 0; // bytes in buf; buf[0] starts a line
            while (true) {
                int n = in.readNBytes(buf, len, CHUNK);
                if (n <= 0) {
                    break;
                }
                len += n;
                int to = lastLineEnd(buf, len);
                if (to > 0) {
                    chunk(to);
                }
                int rest = len - to;
                int kept = Math.min(rest, maxLineBytes);
                if (rest > maxLineBytes) {
                    if (overflow != null) {
                        // the bytes past the kept ones are dropped: decode them first, only to count what is undecodable
                        overflow.carry(buf, to, len, overLong);
                    }
                    overLong = true;
                }
                System.arraycopy(buf, to, buf, 0, kept);
                len = kept;
            }
            if (len > 0 || overLong) {
                boolean high = LiteralScan.anyHigh(buf, 0, len);
                line(0, len, high, scan.scan(buf, 0, len), true);
            }
        }

        // the position just past the last line end in b[0, len), 0 if none. NOTE: a method of its own, so that the loop
        // of readAll steps once per chunk: it stays in the interpreter (a few thousand steps a file), where compiling
        // it on stack compiled the whole reading into it, and again after the file's end, a branch never taken before
        private static int lastLineEnd(byte[] b, int len) {
            int to = len;
            while (to > 0 && b[to - 1] != '\n' && b[to - 1] != '\r') {
                to--;
            }
            return to;
        }

        /** Reads the complete lines in {@code buf[0, to)}, which ends with a line end. */
        private void chunk(int to) {
            scan.scanLines(buf, 0, to, parts);
            boolean high = LiteralScan.anyHigh(buf, 0, to);
            int start = 0;
            for (LiteralScan.Lines part : parts) {
                start = lines(part, start, high);
            }
        }

        private int lines(LiteralScan.Lines lines, int start, boolean high) {
            int[] ends = lines.ends;
            int[] found = lines.found;
            for (int k = 0, count = lines.count; k < count; k++) {
                int end = ends[k];
                if (pendingCr && start == end && buf[end] == '\n') {
                    pendingCr = false;
                    start = end + 1;
                    continue;
                }
                line(start, end, high, found[k], false);
                overLong = false;
                pendingCr = buf[end] == '\r';
                start = end + 1;
            }
            return start;
        }

        /** Hands the line {@code buf[start, end)} to every consumer that wants it; {@code high}: its chunk's. */
        private void line(int start, int end, boolean high, int bits, boolean last) {
            lineNumber++;
            int keptEnd = Math.min(end, start + ConsoleLogParser.MAX_LINE_BYTES);
            boolean lineHigh = high && LiteralScan.anyHigh(buf, start, keptEnd);
            if (console != null && consoleFailed == null) {
                try {
                    console.lineAt(lineNumber, buf, start, end, overLong, lineHigh, bits & ConsoleLogParser.ALL, cs);
                } catch (RuntimeException | StackOverflowError e) {
                    consoleFailed = e;
                }
            }
            if (anyFed && ((bits & feeds.bits) != 0 || feeds.armed || lineHigh || overLong || end - start > feeds.minMaxLine
                    || last)) {
                feed(feeds, lineNumber, buf, start, end, keptEnd, overLong, lineHigh, bits, cs, overflow);
            }
            if (window != null && !windowFailed) {
                try {
                    int w = Math.min(keptEnd - start, windowBytes);
                    window.line(buf, start, w, lineHigh && LiteralScan.anyHigh(buf, start, start + w));
                } catch (RuntimeException e) {
                    windowFailed = true;
                }
            }
        }

        Result results(ParseInput input, List<ArtifactParser> parsers) {
            List<ParseResult> results = new ArrayList<>(parsers.size());
            int f = 0;
            for (ArtifactParser p : parsers) {
                if (p instanceof ConsoleLogParser) {
                    if (consoleFailed == null) {
                        try {
                            results.add(console.finish());
                            continue;
                        } catch (RuntimeException | StackOverflowError e) {
                            consoleFailed = e;
                        }
                    }
                    results.add(failure(input, p, consoleFailed));
                } else {
                    Fed d = feeds.feds[f++];
                    if (!d.failed()) {
                        try {
                            d.problems.finish(d.replacements);
                            d.reading.finish(d.out);
                            results.add(d.out.build());
                            continue;
                        } catch (RuntimeException e) {
                            d.failedWith = e;
                        }
                    }
                    results.add(failure(input, p, d.failedWith != null ? d.failedWith : d.errorWith));
                }
            }
            return new Result(results, windowFailed);
        }
    }

    private static ParseResult failure(ParseInput input, ArtifactParser p, Throwable e) {
        return new ParseResult(List.of(), List.of(new ParseProblem.ParserFailure(input.path(), p.name(), e.toString())));
    }

    /** Hands one line to the line-fed parsers that want it, decoding it at most once. */
    private static void feed(Feeds feeds, long number, byte[] buf, int start, int end, int keptEnd, boolean overLong,
                             boolean lineHigh, int bits, Charset cs, Overflow overflow) {
        Fed[] feds = feeds.feds;
        boolean read = false;
        String text = null;
        boolean longLine = overLong || end - start > keptEnd - start;
        long replaced = -1;
        for (Fed d : feds) {
            if (d.failed()) {
                continue;
            }
            try {
                LineFedParser.Reading r = d.reading;
                boolean want = (bits & d.lineBit) != 0 || r.wantsEveryLine()
                        || ((bits & d.checkBit) != 0 && r.wants(buf, start, keptEnd));
                int maxLine = d.parser.maxLine();
                boolean longer = overLong || end - start > maxLine;
                if (!want && !lineHigh && !longer) {
                    continue;
                }
                if (text == null) {
                    // ASCII bytes are the same characters in every charset read here: Latin-1 copies them without checks
                    text = new String(buf, start, keptEnd - start, lineHigh ? cs : java.nio.charset.StandardCharsets.ISO_8859_1);
                }
                if (replaced < 0) {
                    replaced = longLine ? overflow.count(buf, start, end, overLong) : lineHigh ? replacements(text) : 0;
                }
                d.replacements += replaced;
                d.problems.line(number, overLong || text.length() > maxLine);
                if (want) {
                    read = true;
                    r.line(number, text.length() > maxLine ? text.substring(0, maxLine) : text);
                }
            } catch (RuntimeException e) {
                d.failedWith = e;
            } catch (StackOverflowError e) {
                d.errorWith = e;
            }
        }
        if (overLong && overflow != null) {
            overflow.reset();
        }
        if (read) {
            feeds.rearm();
        }
    }

    private static long replacements(String text) {
        long n = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\uFFFD') {
                n++;
            }
        }
        return n;
    }

    /**
     * Counts the undecodable bytes of a line longer than the bytes kept of it (as {@link ArtifactLines} does, which
     * decodes every character of a line): its dropped middle is decoded as it goes, with the kept start and the end.
     */
    private static final class Overflow {
        private final CharsetDecoder decoder;
        private final CharBuffer chars = CharBuffer.allocate(1 << 14);
        private long counted;                   // U+FFFD seen so far in the current over-long line
        private byte[] pending = new byte[0];   // a character's first bytes, waiting for the rest

        Overflow(Charset cs) {
            decoder = cs.newDecoder().onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        }

        /** The bytes {@code b[from, to)} (a line's start, or all of it after its first carry) are about to be dropped. */
        void carry(byte[] b, int from, int to, boolean overLongAlready) {
            if (!overLongAlready) {
                reset();
                decode(b, from, to, false);
            } else {
                // buf[0, kept) was decoded at the first carry; what follows it is new
                decode(b, from + ConsoleLogParser.MAX_LINE_BYTES, to, false);
            }
        }

        /** Counts the line {@code b[start, end)}, longer than the bytes kept, or over-long (its start carried). */
        long count(byte[] b, int start, int end, boolean overLong) {
            if (!overLong) {
                // all of it is here: decode it whole
                reset();
                decode(b, start, end, true);
                return counted;
            }
            decode(b, start + ConsoleLogParser.MAX_LINE_BYTES, end, true);
            return counted;
        }

        void reset() {
            counted = 0;
            pending = new byte[0];
            decoder.reset();
        }

        private void decode(byte[] b, int from, int to, boolean last) {
            int n = Math.max(0, to - from);
            ByteBuffer in;
            if (pending.length == 0) {
                in = ByteBuffer.wrap(b, from, n);
            } else {
                byte[] joined = java.util.Arrays.copyOf(pending, pending.length + n);
                System.arraycopy(b, from, joined, pending.length, n);
                in = ByteBuffer.wrap(joined);
            }
            while (true) {
                chars.clear();
                var r = decoder.decode(in, chars, last);
                tally();
                if (r.isUnderflow()) {
                    break;
                }
            }
            // an unfinished character's bytes stay in the buffer: they go first next time
            pending = new byte[in.remaining()];
            in.get(pending);
            if (last) {
                while (true) {
                    chars.clear();
                    var r = decoder.flush(chars);
                    tally();
                    if (r.isUnderflow()) {
                        break;
                    }
                }
            }
        }

        private void tally() {
            chars.flip();
            while (chars.hasRemaining()) {
                if (chars.get() == '\uFFFD') {
                    counted++;
                }
            }
        }
    }
}
