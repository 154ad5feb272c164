package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.fact.Facts;
import dev.crashlab.fact.Platform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's acceptance 2 and issue 29's: healthy, unrelated real files added to every bundle of the corpus and of
 * the fresh corpus (an idle nvidia-smi table of its platform, and real Application .evtx logs of another machine
 * full of other programs' crashes; for Windows cases also a real System log) change no case's first answer. Idle
 * tables carry {@code N/A} fields, a WDDM card and desktop processes; the event logs carry other programs'
 * crashes and installer records, which are evidence for this job only when they name its process.
 */
class CorpusHealthyNoiseTest {

    static final Path CORPUS = Path.of("../shared/corpus");
    /** Cases collected after the rules were written (issue 29); walked too where present. */
    static final Path FRESH = Path.of("../shared/corpus-fresh/crash-bundles");
    static final Path LINUX_SMI = CORPUS.resolve("nvidia-smi/table/nvidia_gpu_exporter__linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05__idle.txt");
    static final Path WINDOWS_SMI = CORPUS.resolve("nvidia-smi/table/nvidia_gpu_exporter__windows-x86_64__nvidia-geforce-rtx-2080-super__591.86__idle.txt");
    /** Other programs' Application Error 1000 / WER 1001 records: added to every case, whatever its platform. */
    static final List<Path> APPLICATION_EVTX = List.of(CORPUS.resolve("evtx/application-app-errors-dotnet.evtx"),
            CORPUS.resolve("evtx/application-wer-1001.evtx"));
    static final List<Path> WINDOWS_EVTX = List.of(CORPUS.resolve("evtx/system-kernel-power-41.evtx"));

    @Test
    void healthyRealFilesChangeNoFirstAnswer() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS.resolve("crash-bundles")), "../shared/corpus is not present in this checkout");
        assertThat(LINUX_SMI).isRegularFile();
        assertThat(WINDOWS_SMI).isRegularFile();
        WINDOWS_EVTX.forEach(p -> assertThat(p).isRegularFile());
        APPLICATION_EVTX.forEach(p -> assertThat(p).isRegularFile());
        KnowledgeSource source = KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat"));
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        List<Path> cases = new ArrayList<>(cases(CORPUS.resolve("crash-bundles")));
        int corpusCases = cases.size();
        if (Files.isDirectory(FRESH)) {
            cases.addAll(cases(FRESH));
        }
        // the healthy files are read once per platform, as their own upload would read them, and added to each case
        List<Path> linuxFiles = new ArrayList<>(APPLICATION_EVTX);
        linuxFiles.add(LINUX_SMI);
        DiagnosisInput linuxNoise = OfflineBundle.read(linuxFiles, p -> false);
        List<Path> windowsFiles = new ArrayList<>(APPLICATION_EVTX);
        windowsFiles.addAll(WINDOWS_EVTX);
        windowsFiles.add(WINDOWS_SMI);
        DiagnosisInput windowsNoise = OfflineBundle.read(windowsFiles, p -> false);
        assertThat(linuxNoise.facts()).as("the real Application logs give facts").hasSizeGreaterThan(100);
        assertThat(windowsNoise.facts()).as("the real event logs give facts").hasSizeGreaterThan(100);
        List<String> lost = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        int right = 0;
        int windows = 0;
        for (Path c : cases) {
            JsonNode meta = Facts.json().readTree(c.resolve("meta.json").toFile());
            String label = meta.path("labels").path(0).asText();
            DiagnosisInput alone = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
            String before = top(engine, alone, label, source);
            // the healthy files a user on the case's platform would add: meta.json's platform (the label side, never
            // diagnosis input) where the bundle's own files do not state one
            boolean onWindows = alone.facts().stream()
                    .anyMatch(f -> f instanceof Platform p && "windows".equalsIgnoreCase(p.osFamily()))
                    || "windows".equals(meta.path("platform").asText());
            DiagnosisInput noise = onWindows ? windowsNoise : linuxNoise;
            windows += onWindows ? 1 : 0;
            List<dev.crashlab.fact.Fact> facts = new ArrayList<>(alone.facts());
            facts.addAll(noise.facts());
            List<dev.crashlab.diagnose.TextLine> lines = new ArrayList<>(alone.lines());
            lines.addAll(noise.lines());
            DiagnosisInput noisy = new DiagnosisInput(facts, lines);
            assertThat(noisy.facts().size()).as(c + ": the added files give facts").isGreaterThan(alone.facts().size());
            String after = top(engine, noisy, label, source);
            if (!before.equals(after)) {
                changed.add(c.getFileName() + " (" + before + " -> " + after + ")");
            }
            if (before.equals(label)) {
                right++;
                if (!after.equals(label)) {
                    lost.add(c.getFileName() + " (" + label + " -> " + after + ")");
                }
            }
        }
        System.out.println("healthy noise: " + cases.size() + " cases (" + (cases.size() - corpusCases) + " fresh), " + right
                + " right top-1 answers, " + windows + " Windows cases; lost: " + lost + "; first answers changed: " + changed);
        assertThat(windows).as("some cases are Windows cases").isPositive();
        assertThat(right).as("cases ranked right without the noise").isGreaterThan(cases.size() / 2);
        assertThat(lost).as("cases whose right top-1 answer the healthy files took away").isEmpty();
        // issue 29, acceptance 2: evidence must belong to the crashed job, so the healthy files change no first answer
        // at all, right or wrong (a guess of a bundle without evidence included)
        assertThat(changed).as("cases whose first answer the healthy files changed").isEmpty();
    }

    private static List<Path> cases(Path folder) throws java.io.IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("meta.json"))).sorted().toList();
        }
    }

    private static String top(DiagnosisEngine engine, DiagnosisInput in, String label, KnowledgeSource source) {
        List<String> ranked = EvalCommand.asLabels(engine.diagnose(in).hypotheses().stream().map(Hypothesis::id).toList(), label, source);
        return ranked.isEmpty() ? "" : ranked.getFirst();
    }
}
