package dev.crashlab.parse.console;

import dev.crashlab.fact.LogLine;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.CollectorPrefix;
import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.TextDecoding;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Reads console logs and Python tracebacks (TensorFlow, Keras, PyTorch, IDE and shell output) into
 * process, environment and GPU facts, streaming one bounded line at a time.
 *
 * <p>NOTE: one combined scan finds the candidate lines first: a {@link LiteralScan} automaton over every literal
 * the rules' checks need runs over the raw bytes (UTF-8, Windows-1252) in the same loop that finds line ends
 * ({@link SharedLineScan}, which the reading pass shares with the other parsers of the type and the text window), and
 * a line is decoded and handed to a rule only when it holds one of that rule's literals, or the rule is waiting for
 * a continuation (an open traceback, a wrapped {@code WinError} path, an {@code nvidia-smi} row). UTF-16 text is
 * decoded first and scanned per line. Both paths give the same facts as running every rule on every line
 * ({@code ConsoleLogParserPrefilterTest} compares them).
 */
public final class ConsoleLogParser implements ArtifactParser {

    /** The most characters of one line examined. */
    static final int MAX_LINE = 8 * 1024;

    /** The most over-long lines reported one by one; the rest are counted. */
    private static final int MAX_LONG_LINE_PROBLEMS = 5;

    static final int TRACEBACK = 1;
    static final int EXIT = 1 << 1;
    static final int LIBRARY = 1 << 2;
    static final int STATUS = 1 << 3;
    static final int MEMORY = 1 << 4;
    static final int LOG_LINE = 1 << 5;
    static final int ENVIRONMENT = 1 << 6;
    static final int GPU = 1 << 7;
    /** Not a rule: the line holds one of {@link MemoryRule#MENTIONS}. */
    static final int MEMORY_MENTION = 1 << 8;
    /** Not a rule: the line holds one of {@link MemoryRule#DETAILS}. */
    static final int MEMORY_DETAIL = 1 << 9;
    static final int ALL = (1 << 10) - 1;
    /** The bits that send a line to a rule. */
    static final int RULES = (1 << 8) - 1;

    /**
     * Every rule's literals, each tagged with the rules that need it (the shared scan takes them into its automaton; this
     * parser's own automaton, {@link Utf16#SCAN}, is built only for UTF-16 text).
     */
    static final LiteralScan.Builder LITERALS = new LiteralScan.Builder()
            .add(TRACEBACK, TracebackTracker.LITERALS)
            .add(EXIT, ExitStatusRule.LITERALS).add(EXIT, ExitStatusRule.ZSH_JOB_WORDS).add(EXIT, ExitStatusRule.LOCALIZED_WORDS)
            .add(LIBRARY, LibraryLoadRule.LITERALS)
            .add(STATUS, StatusCodeRule.literals())
            .add(MEMORY, MemoryRule.LITERALS).add(MEMORY_MENTION, MemoryRule.MENTIONS).add(MEMORY_DETAIL, MemoryRule.DETAILS)
            .add(LOG_LINE, LogLineRule.LITERALS)
            .add(ENVIRONMENT, EnvironmentRule.LITERALS)
            .add(GPU, GpuLogRule.LITERALS);

    /** The automaton over {@link #LITERALS} whole, for UTF-16 text (decoded first, then scanned per line). */
    private static final class Utf16 {
        static final LiteralScan SCAN = LITERALS.build();
    }

    /** The line starts that make a line a candidate, as an extended regular expression. */
    public static final String LINE_START_PATTERN = "^[WEF][ 0-9]|^[|]";

    /** Raw bytes kept of one line: enough for {@link #MAX_LINE} characters of 4-byte UTF-8. */
    static final int MAX_LINE_BYTES = 4 * MAX_LINE;

    private final boolean prefilter;

    public ConsoleLogParser() {
        this(true);
    }

    /** With {@code prefilter} false every rule reads every line (the reference the prefilter test compares with). */
    ConsoleLogParser(boolean prefilter) {
        this.prefilter = prefilter;
    }

    @Override
    public String name() {
        return "console-log";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.CONSOLE_LOG, ArtifactType.TEXT);
    }

    /** The bytes the encoding is detected on. */
    private static final int HEAD = 64 * 1024;

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        // one open: the encoding is detected on the head, then the same stream is rewound and read
        try (InputStream in = new java.io.BufferedInputStream(input.openBytes(), HEAD + 1)) {
            in.mark(HEAD + 1);
            byte[] head = in.readNBytes(HEAD);
            TextDecoding.Detected detected = TextDecoding.detect(head, head.length);
            in.reset();
            Charset cs = detected.charset();
            if (cs.equals(StandardCharsets.UTF_16LE) || cs.equals(StandardCharsets.UTF_16BE)) {
                Pass pass = new Pass(input);
                pass.readChars(TextDecoding.open(in));
                return pass.finish();
            } else {
                // the scan the reading pass shares with the other parsers of the type, here with this parser alone
                in.skipNBytes(detected.bomLength());
                return SharedLineScan.read(input, in, cs, List.of(this), null).results().getFirst();
            }
        }
    }

    /** Starts a reading fed by {@link SharedLineScan}: it calls {@link Pass#lineAt} per line, then {@link Pass#finish}. */
    Pass startPass(ParseInput input) {
        return new Pass(input);
    }

    /** One reading of one artifact: the rules, their state, and the counts for the problems. */
    final class Pass {
        private final ParseInput input;
        private final ParseResult.Builder result = new ParseResult.Builder();
        private final FactSink sink = new FactSink();
        private final ExitStatusRule exits = new ExitStatusRule();
        private final LibraryLoadRule libraries = new LibraryLoadRule();
        private final StatusCodeRule statuses = new StatusCodeRule();
        private final MemoryRule memory = new MemoryRule();
        private final LogLineRule logLines = new LogLineRule();
        private final EnvironmentRule environment = new EnvironmentRule();
        private final TracebackTracker tracebacks = new TracebackTracker();
        private final GpuLogRule gpus = new GpuLogRule();
        private long lineNumber;
        private long longLines;
        private long replacements;

        Pass(ParseInput input) {
            this.input = input;
        }

        /** Tells which rules wait for the next line whatever it holds. */
        private int armed() {
            return (tracebacks.armed() ? TRACEBACK : 0) | (libraries.armed() ? LIBRARY : 0) | (gpus.armed() ? GPU : 0)
                    | (environment.armed() ? ENVIRONMENT : 0);
        }

        private void dispatch(String text, int rules, boolean truncated) {
            // a collector's prefix (docker compose's service tag, a time stamp, torchrun's [rank0]:) hides the
            // program's own line from the anchored rules; they read it without, the evidence cites it as written
            ConsoleLine line = new ConsoleLine(input.path(), lineNumber, CollectorPrefix.strip(text), text);
            if (truncated && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                result.problem(new ParseProblem.MalformedInput(input.at(lineNumber, ""),
                        "line longer than " + MAX_LINE + " characters; only its start was read"));
            }
            if ((rules & TRACEBACK) != 0) {
                tracebacks.apply(line, sink);
            }
            if ((rules & EXIT) != 0) {
                exits.apply(line, sink);
            }
            if ((rules & LIBRARY) != 0) {
                libraries.apply(line, sink);
            }
            if ((rules & STATUS) != 0) {
                statuses.apply(line, sink);
            }
            if ((rules & MEMORY) != 0) {
                if (truncated) {
                    memory.apply(line, sink); // the bits saw the whole line, the rule sees its start
                } else {
                    memory.apply(line, sink, (rules & MEMORY_MENTION) != 0, (rules & MEMORY_DETAIL) != 0);
                }
            }
            if ((rules & LOG_LINE) != 0) {
                logLines.apply(line, sink);
            }
            if ((rules & ENVIRONMENT) != 0) {
                environment.apply(line, sink);
            }
            if ((rules & GPU) != 0) {
                gpus.apply(line, sink);
            }
        }

        private int startBits(int first, int second) {
            return (first == '|' ? GPU : 0) | (LogLineRule.candidateStart(first, second) ? LOG_LINE : 0);
        }

        /** UTF-16: decode, then scan each line's text. */
        void readChars(BufferedReader decoded) throws IOException {
            try (BufferedReader text = decoded) {
                BoundedLineReader reader = new BoundedLineReader(text, MAX_LINE);
                for (String s = reader.readLine(); s != null; s = reader.readLine()) {
                    lineNumber = reader.lineNumber();
                    int rules = ALL;
                    if (prefilter) {
                        rules = Utf16.SCAN.scan(s) | armed()
                                | startBits(s.isEmpty() ? -1 : s.charAt(0), s.length() < 2 ? -1 : s.charAt(1));
                    }
                    dispatch(s, rules, reader.truncated());
                }
                replacements = reader.replacements();
            }
        }

        /** Reads line {@code number}, split by a shared scan that found the rule bits {@code found} in it. */
        void lineAt(long number, byte[] buf, int start, int end, boolean overLong, boolean high, int found, Charset cs) {
            lineNumber = number;
            endLine(buf, start, end, overLong, high, found, cs);
        }

        private void endLine(byte[] buf, int start, int end, boolean overLong, boolean high, int found, Charset cs) {
            int keptEnd = Math.min(end, start + MAX_LINE_BYTES);
            boolean longer = overLong || end - start > MAX_LINE;
            int rules = ALL;
            if (prefilter) {
                rules = found | armed() | startBits(keptEnd > start ? buf[start] : -1, keptEnd > start + 1 ? buf[start + 1] : -1);
                if ((rules & RULES) == 0 && !high && !longer) {
                    return; // nothing any rule looks for: the common case, no decoding, no objects
                }
            }
            if (prefilter && !high && !longer && logLineOnly(buf, start, end, rules)) {
                return;
            }
            // ASCII bytes are the same characters in every charset read here: Latin-1 copies them without checks
            String text = new String(buf, start, keptEnd - start, high ? cs : StandardCharsets.ISO_8859_1);
            if (high) {
                // within the cap only: a multi-byte character cut at the byte cap is no undecodable byte
                for (int i = 0, n = Math.min(text.length(), MAX_LINE); i < n; i++) {
                    if (text.charAt(i) == '\uFFFD') {
                        replacements++;
                    }
                }
            }
            boolean truncated = overLong || text.length() > MAX_LINE;
            if (text.length() > MAX_LINE) {
                text = text.substring(0, MAX_LINE);
            }
            if ((rules & RULES) != 0) {
                dispatch(text, rules, truncated);
            } else if (truncated && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                result.problem(new ParseProblem.MalformedInput(input.at(lineNumber, ""),
                        "line longer than " + MAX_LINE + " characters; only its start was read"));
            }
        }

        /**
         * Reads an ASCII line within the cap that only the log-line rule wants (and the memory rule, for a mention
         * without detail) and that holds a TF line, as {@link #dispatch} would, without decoding it when its fact would
         * be dropped (the common case of a long log's distinct warnings once {@link FactSink#MAX_FACTS} are kept).
         * False: the line is left to {@link #dispatch}.
         */
        private boolean logLineOnly(byte[] b, int start, int end, int rules) {
            int r = rules & (RULES | MEMORY_MENTION | MEMORY_DETAIL);
            if (r != LOG_LINE && r != (LOG_LINE | MEMORY | MEMORY_MENTION)) {
                return false;
            }
            int[] tf = LogLineRule.tfLineAscii(b, start, end); // the caller's line: ASCII, split at line ends
            if (tf == null) {
                return false;
            }
            if (r != LOG_LINE) {
                memory.mentionAt(lineNumber);
            }
            LogLine.Severity s = LogLineRule.severityOf((char) b[tf[0]]);
            if (s == null) {
                return true;
            }
            // the message stripped as String.strip does (ASCII: the whitespace is 9-13, 28-32)
            int ms = tf[3];
            int me = end;
            while (ms < me && asciiWhitespace(b[ms])) {
                ms++;
            }
            while (me > ms && asciiWhitespace(b[me - 1])) {
                me--;
            }
            if (sink.full() && !sink.mayHoldLogLine(FactSink.logLineKey(s, b, tf[1], tf[2], ms, me))) {
                sink.dropOne();
                return true;
            }
            String text = new String(b, start, end - start, StandardCharsets.ISO_8859_1);
            ConsoleLine line = new ConsoleLine(input.path(), lineNumber, text);
            sink.add(new LogLine(s, text.substring(tf[1] - start, tf[2] - start), text.substring(ms - start, me - start),
                    List.of()), line.ref());
            return true;
        }

        private static boolean asciiWhitespace(byte c) {
            return c == ' ' || c >= 9 && c <= 13 || c >= 28 && c <= 31;
        }

        ParseResult finish() {
            libraries.finish(sink);
            gpus.finish(sink);
            if (longLines > MAX_LONG_LINE_PROBLEMS) {
                result.problem(new ParseProblem.MalformedInput(input.at(lineNumber, ""),
                        (longLines - MAX_LONG_LINE_PROBLEMS) + " more lines longer than " + MAX_LINE + " characters"));
            }
            if (replacements > 0) {
                result.problem(new ParseProblem.UnreadableText(input.path(),
                        replacements + " characters could not be decoded and were replaced"));
            }
            if (sink.dropped() > 0) {
                result.problem(new ParseProblem.Truncated(input.path(), lineNumber,
                        "kept the first " + FactSink.MAX_FACTS + " distinct facts; " + sink.dropped() + " more were dropped"));
            }
            sink.facts().forEach(result::fact);
            return result.build();
        }
    }
}
