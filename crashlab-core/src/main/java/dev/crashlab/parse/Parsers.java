package dev.crashlab.parse;

import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.List;

/**
 * The registry of parsers, in one place: which parsers read which artifact type, and running them so
 * that one parser's failure is a problem, never an abort.
 */
public final class Parsers {

    /** Every parser. Add new ones here (one line each); {@code ParserContractTest} checks each has fixtures. */
    static final List<ArtifactParser> ALL = List.of(
            // registered parsers (keep one per line, sorted by name)
            new dev.crashlab.parse.console.ConsoleLogParser(),
            new dev.crashlab.parse.env.CondaListParser(),
            new dev.crashlab.parse.env.EnvKeyValueParser(),
            new dev.crashlab.parse.env.NvccVersionParser(),
            new dev.crashlab.parse.env.PipFreezeParser(),
            new dev.crashlab.parse.env.PipListParser(),
            new dev.crashlab.parse.env.TfBuildInfoParser(),
            new dev.crashlab.parse.env.TorchCollectEnvParser(),
            new dev.crashlab.parse.evtx.EvtxParser(),
            new dev.crashlab.parse.model.KerasModelJsonParser(),
            new dev.crashlab.parse.model.ModelTextParser(),
            new dev.crashlab.parse.model.PytorchCudnnReproParser(),
            new dev.crashlab.parse.nvidiasmi.KernelLogParser(),
            new dev.crashlab.parse.nvidiasmi.NvidiaSmiCsvParser(),
            new dev.crashlab.parse.nvidiasmi.NvidiaSmiQueryTextParser(),
            new dev.crashlab.parse.nvidiasmi.NvidiaSmiTableParser(),
            new dev.crashlab.parse.nvidiasmi.NvidiaSmiXmlParser(),
            new dev.crashlab.parse.winevent.WindowsEventCsvParser(),
            new dev.crashlab.parse.winevent.WindowsEventTabParser(),
            new dev.crashlab.parse.winevent.WindowsEventTextParser(),
            new dev.crashlab.parse.winevent.WindowsEventXmlParser()
    );

    private Parsers() {}

    /** Returns every registered parser. */
    public static List<ArtifactParser> all() {
        return ALL;
    }

    /** Returns the parsers that read artifacts of this type. */
    public static List<ArtifactParser> forType(ArtifactType type) {
        return ALL.stream().filter(p -> p.accepts().contains(type)).toList();
    }

    /**
     * Runs every parser that reads the input's type and merges their results; a parser that throws
     * becomes a {@link ParseProblem.ParserFailure}.
     */
    public static ParseResult parse(ParseInput input) {
        return run(forType(input.type()), input);
    }

    /**
     * Runs one parser; a parser that throws becomes a {@link ParseProblem.ParserFailure}.
     *
     * <p>NOTE: for readers that feed several parsers from one pass over the bytes.
     */
    public static ParseResult runSafely(ArtifactParser parser, ParseInput input) {
        try {
            return parser.parse(input);
        } catch (IOException | RuntimeException | StackOverflowError e) {
            return new ParseResult(List.of(), List.of(new ParseProblem.ParserFailure(input.path(), parser.name(), e.toString())));
        }
    }

    static ParseResult run(List<ArtifactParser> parsers, ParseInput input) {
        ParseResult.Builder out = new ParseResult.Builder();
        for (ArtifactParser p : parsers) {
            try {
                ParseResult r = p.parse(input);
                r.facts().forEach(out::fact);
                r.problems().forEach(out::problem);
            } catch (IOException | RuntimeException | StackOverflowError e) {
                out.problem(new ParseProblem.ParserFailure(input.path(), p.name(), e.toString()));
            }
        }
        return out.build();
    }

    /** Tells whether any parser reads this type. */
    public static boolean supports(ArtifactType type) {
        return !forType(type).isEmpty();
    }
}
