package dev.crashlab.parse.console;

import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.Set;

/**
 * Reads console logs and Python tracebacks (TensorFlow, Keras, PyTorch, IDE and shell output) into
 * process, environment and GPU facts, streaming one bounded line at a time.
 */
public final class ConsoleLogParser implements ArtifactParser {

    /** The most characters of one line examined. */
    static final int MAX_LINE = 8 * 1024;

    /** The most over-long lines reported one by one; the rest are counted. */
    private static final int MAX_LONG_LINE_PROBLEMS = 5;

    @Override
    public String name() {
        return "console-log";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.CONSOLE_LOG, ArtifactType.TEXT);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder result = new ParseResult.Builder();
        FactSink sink = new FactSink();
        ExitStatusRule exits = new ExitStatusRule();
        LibraryLoadRule libraries = new LibraryLoadRule();
        StatusCodeRule statuses = new StatusCodeRule();
        MemoryRule memory = new MemoryRule();
        LogLineRule logLines = new LogLineRule();
        EnvironmentRule environment = new EnvironmentRule();
        TracebackTracker tracebacks = new TracebackTracker();
        long longLines = 0;
        BoundedLineReader reader;
        try (BufferedReader text = input.openText()) {
            reader = new BoundedLineReader(text, MAX_LINE);
            for (String s = reader.readLine(); s != null; s = reader.readLine()) {
                ConsoleLine line = new ConsoleLine(input.path(), reader.lineNumber(), s);
                if (reader.truncated() && longLines++ < MAX_LONG_LINE_PROBLEMS) {
                    result.problem(new ParseProblem.MalformedInput(input.at(line.number, ""),
                            "line longer than " + MAX_LINE + " characters; only its start was read"));
                }
                tracebacks.apply(line, sink);
                exits.apply(line, sink);
                libraries.apply(line, sink);
                statuses.apply(line, sink);
                memory.apply(line, sink);
                logLines.apply(line, sink);
                environment.apply(line, sink);
            }
        }
        libraries.finish(sink);
        if (longLines > MAX_LONG_LINE_PROBLEMS) {
            result.problem(new ParseProblem.MalformedInput(input.at(reader.lineNumber(), ""),
                    (longLines - MAX_LONG_LINE_PROBLEMS) + " more lines longer than " + MAX_LINE + " characters"));
        }
        if (reader.replacements() > 0) {
            result.problem(new ParseProblem.UnreadableText(input.path(),
                    reader.replacements() + " characters could not be decoded and were replaced"));
        }
        if (sink.dropped() > 0) {
            result.problem(new ParseProblem.Truncated(input.path(), reader.lineNumber(),
                    "kept the first " + FactSink.MAX_FACTS + " distinct facts; " + sink.dropped() + " more were dropped"));
        }
        sink.facts().forEach(result::fact);
        return result.build();
    }
}
