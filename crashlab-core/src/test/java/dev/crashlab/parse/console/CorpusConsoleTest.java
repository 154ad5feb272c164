package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs every registered parser over the real crash bundles of {@code ../shared/corpus/crash-bundles} and
 * measures how many of the {@code meta.json} signals are covered by the source text of some fact.
 *
 * <p>A signal is covered when it appears, case-insensitively and with runs of whitespace collapsed to one
 * space, in the source text of at least one fact read from the bundle's {@code crash.log} or {@code env.txt}.
 */
class CorpusConsoleTest {

    static final Path BUNDLES = Path.of("../shared/corpus/crash-bundles");

    /**
     * The signals covered with every registered parser: 46 of 46 (100%). The console parser alone covers 34:
     * every signal that is in a {@code crash.log}. The other 12 are lines of {@code env.txt} files, which sniff
     * as {@code ENV_KEY_VALUE} and are covered by the environment-listing parser; without it they would be
     * the misses: c009 "gpu: none (CPU only)", c014 "on PATH", c017 "cuda: 9.1", c032 "RTX 2070",
     * c036 "8x V100", c040 "cudatoolkit=10.2", c066 "os: Windows 10", c067 "cuda: 11.8" and "cudnn: 8.x",
     * c072 "cuda: 10.2", c078 "UHD Graphics 605" (also in the crash log, but inside an {@code lshw} hardware
     * listing, which the console parser does not read) and c078 "tensorflow: 2.4.1".
     */
    static final int MIN_COVERED = 46;

    @Test
    void everyBundleParsesAndItsSignalsAreCovered() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(BUNDLES), "../shared/corpus not present: the corpus test needs it");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        int signals = 0;
        int covered = 0;
        List<String> misses = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<Path> bundles;
        try (Stream<Path> s = Files.list(BUNDLES)) {
            bundles = s.filter(Files::isDirectory).sorted().toList();
        }
        assertThat(bundles).isNotEmpty();
        for (Path bundle : bundles) {
            List<String> texts = new ArrayList<>();
            for (String name : List.of("crash.log", "env.txt")) {
                Path file = bundle.resolve(name);
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                ParseResult r = Parsers.parse(new ParseInput(name, sniffer.sniff(name, file), file));
                for (ParseProblem p : r.problems()) {
                    if (p instanceof ParseProblem.ParserFailure) {
                        failures.add(bundle.getFileName() + "/" + p.message());
                    }
                }
                for (Fact f : r.facts()) {
                    for (SourceRef ref : f.sources()) {
                        texts.add(normalize(ref.text()));
                    }
                }
            }
            Path meta = bundle.resolve("meta.json");
            if (!Files.isRegularFile(meta)) {
                continue;
            }
            JsonNode node = Facts.json().readTree(meta.toFile());
            for (JsonNode signal : node.path("signals")) {
                signals++;
                String want = normalize(signal.asText());
                if (texts.stream().anyMatch(t -> t.contains(want))) {
                    covered++;
                } else {
                    misses.add(bundle.getFileName() + ": " + signal.asText());
                }
            }
        }
        double coverage = signals == 0 ? 1.0 : (double) covered / signals;
        System.out.printf(Locale.ROOT, "crash-bundle signal coverage: %d of %d (%.1f%%)%n", covered, signals, 100 * coverage);
        misses.forEach(m -> System.out.println("  miss: " + m));
        assertThat(failures).as("parser failures").isEmpty();
        assertThat(covered).as("signals covered (%.1f%%); misses: %s", 100 * coverage, misses).isGreaterThanOrEqualTo(MIN_COVERED);
    }

    private static String normalize(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").strip();
    }
}
