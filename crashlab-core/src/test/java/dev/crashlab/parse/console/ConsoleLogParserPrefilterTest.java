package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The combined literal scan must change only the speed: with it, the parser gives exactly the facts and problems it
 * gives when every rule reads every line. Compared on every console fixture, every text file of the real corpus
 * (crash logs, event-log exports, nvidia-smi outputs, env listings, where present) and seeded random logs built
 * from the rules' own literals cut and spliced at random.
 */
class ConsoleLogParserPrefilterTest {

    static final ConsoleLogParser FILTERED = new ConsoleLogParser(true);
    static final ConsoleLogParser EVERY_LINE = new ConsoleLogParser(false);

    static void same(Path file) throws IOException {
        ParseInput in = new ParseInput(file.getFileName().toString(), ArtifactType.CONSOLE_LOG, file);
        ParseResult a = FILTERED.parse(in);
        ParseResult b = EVERY_LINE.parse(in);
        assertThat(a.facts()).as("facts of %s", file).containsExactlyElementsOf(b.facts());
        assertThat(a.problems()).as("problems of %s", file).containsExactlyElementsOf(b.problems());
    }

    @Test
    void fixturesGiveTheSameFacts() throws IOException {
        for (Path f : GoldenFiles.fixtures("console-log")) {
            same(f);
        }
    }

    @Test
    void realCorpusTextGivesTheSameFacts() throws IOException {
        Path corpus = Path.of("../shared/corpus");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(corpus), "../shared/corpus not present: corpus part skipped");
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("crash-bundles", "eventlog-text", "nvidia-smi", "env-listings")) {
            try (Stream<Path> s = Files.walk(corpus.resolve(dir))) {
                s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".json")).forEach(files::add);
            }
        }
        assertThat(files).hasSizeGreaterThan(100);
        for (Path f : files) {
            same(f);
        }
    }

    @Test
    void seededRandomLogsGiveTheSameFacts(@TempDir Path tmp) throws IOException {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        List<String> pieces = new ArrayList<>();
        for (String[] group : List.of(TracebackTracker.LITERALS, ExitStatusRule.LITERALS, ExitStatusRule.ZSH_JOB_WORDS,
                ExitStatusRule.LOCALIZED_WORDS, LibraryLoadRule.LITERALS, StatusCodeRule.literals(), MemoryRule.LITERALS, MemoryRule.DETAILS,
                LogLineRule.LITERALS, EnvironmentRule.LITERALS, GpuLogRule.LITERALS)) {
            pieces.addAll(List.of(group));
        }
        pieces.addAll(List.of("  File \"x.py\", line 3, in f", "RuntimeError: boom", "E1209 16:36:56.860446 1 a.py:2] bad",
                "W ", "E ", "| ", "|   0  NVIDIA GeForce RTX 2070    Off  |", "   7940MiB /  8192MiB ", "Traceback (most recent call last):",
                "[WinError 126] x Error loading", "\"C:\\a\\b.dll\"", "12", "(0xC0000409)", "-1073740791 ", "7.5", "\r", "\n", "\r\n",
                "é", "\u00ff", " ", "]", ": ", "sm_86"));
        for (int run = 0; run < 40; run++) {
            StringBuilder sb = new StringBuilder();
            int n = 50 + r.nextInt(400);
            for (int i = 0; i < n; i++) {
                String p = pieces.get(r.nextInt(pieces.size()));
                if (r.nextInt(4) == 0 && p.length() > 2) {
                    int a = r.nextInt(p.length());
                    p = p.substring(a, a + r.nextInt(p.length() - a) + 1);
                }
                sb.append(p);
                if (r.nextInt(3) == 0) {
                    sb.append('\n');
                }
            }
            Path f = tmp.resolve("random-" + run + ".log");
            Files.write(f, sb.toString().getBytes(run % 5 == 0 ? StandardCharsets.UTF_16LE : StandardCharsets.UTF_8));
            try {
                same(f);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", run " + run + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Past {@link FactSink#MAX_FACTS} distinct facts the reading pass drops a log line's new fact without making it, and
     * adds the sources of one it keeps: a log of many distinct warnings, repeated ones, memory mentions and other lines
     * gives the same facts, sources and dropped count as every rule on every line.
     */
    @Test
    void aFullFactStoreGivesTheSameFacts(@TempDir Path tmp) throws IOException {
        long seed = new Random().nextLong();
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 30_000; i++) {
            int k = r.nextInt(3) == 0 ? r.nextInt(200) : i; // a third repeat one of the first warnings
            String ts = "2026-11-22 10:00:" + String.format("%02d.%06d", i % 60, i);
            switch (r.nextInt(8)) {
                case 0 -> sb.append(ts).append(": W tensorflow/core/framework/cpu_allocator_impl.cc:82] Allocation of ").append(k)
                        .append(" exceeds 10% of free system memory.");
                case 1 -> sb.append(ts).append(": E tensorflow/x.cc:").append(k % 9 + 1).append("]  failed ").append(k).append(" \t");
                case 2 -> sb.append("W tensorflow/y.cc:7] w").append(k);
                case 3 -> sb.append(ts).append(": I tensorflow/z.cc:1] step ").append(k).append(" : W x");
                case 4 -> sb.append(ts).append(": F a.cc:1]").append(k % 50);
                case 5 -> sb.append("Killed");
                case 6 -> sb.append(ts).append(": W a.cc:2] out of memory ").append(k);
                default -> sb.append(ts).append(": W a.cc:3] ").append(k).append(" caf\u00e9");
            }
            sb.append('\n');
        }
        Path f = tmp.resolve("many-warnings.log");
        Files.writeString(f, sb.toString());
        try {
            same(f);
        } catch (AssertionError e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
        ParseResult a = FILTERED.parse(new ParseInput("many-warnings.log", ArtifactType.CONSOLE_LOG, f));
        assertThat(a.facts()).hasSize(FactSink.MAX_FACTS);
        assertThat(a.problems()).anyMatch(p -> p.toString().contains("more were dropped"));
    }
}
