package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.fact.Fact;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 item 4 on the shared corpora (both batches, read in place): crash groups mean one failure. No group holds
 * bundles of two different labelled causes (primary label of {@code meta.json}, a specialised id counting as its
 * general one, as the corpus README says); every group label part comes from the crash's decisive lines, never
 * from an informational line or an event the diagnosis set aside; every signature carries the current version.
 */
class CorpusGroupsTest {

    static final List<Path> CORPORA = List.of(Path.of("../shared/corpus/crash-bundles"),
            Path.of("../shared/corpus-fresh/crash-bundles"));
    /** The corpus README: an answer of the general id counts for the special one, and the other way round. */
    static final Map<String, String> GENERAL = Map.of("cudnn-8-vs-9", "cudnn-version-mismatch",
            "tf-windows-native-gpu-dropped", "unsupported-python-or-platform");
    /** An informational line, as the informational-lines list means it (NCCL INFO, glog I, logging INFO). */
    static final Pattern INFO = Pattern.compile("\\bNCCL INFO\\b|^\\s*(?:\\S+\\s+)?I\\s+[\\w./-]+\\.(?:cc|h|cpp|cu):\\d+\\]|\\bINFO\\b[:\\]]");

    /** A corpus case: its signature, and the signature of its decisive facts alone. */
    record Case(String name, String label, CrashSignature signature, CrashSignature decisiveOnly) {}

    @Test
    void groupsHoldOneCauseAndAreNamedByDecisiveLines() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CORPORA.getFirst()), "../shared/corpus is not present in this checkout");
        DiagnosisEngine engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
        List<Case> cases = new ArrayList<>();
        for (Path corpus : CORPORA) {
            if (!Files.isDirectory(corpus)) {
                continue; // the fresh batch may be absent; the first one is checked above
            }
            List<Path> dirs;
            try (Stream<Path> s = Files.list(corpus)) {
                dirs = s.filter(Files::isDirectory).sorted().toList();
            }
            for (Path c : dirs) {
                JsonNode meta = dev.crashlab.fact.Facts.json().readTree(c.resolve("meta.json").toFile());
                String label = meta.get("labels").get(0).asText();
                DiagnosisInput in = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
                Diagnosis d = engine.diagnose(in);
                CrashSignature sig = CrashSignature.of(c.getFileName().toString(), List.of(), in.facts(), d);
                Set<String> setAside = new HashSet<>();
                d.otherEvents().forEach(s -> setAside.add(s.artifact() + ":" + s.line()));
                List<Fact> decisive = in.facts().stream().filter(f -> decisive(f, setAside)).toList();
                CrashSignature decisiveOnly = CrashSignature.of(c.getFileName().toString(), List.of(), decisive, d);
                cases.add(new Case(c.getFileName().toString(), GENERAL.getOrDefault(label, label), sig, decisiveOnly));
            }
        }
        Map<String, Set<String>> causes = new TreeMap<>();
        Map<String, List<String>> members = new TreeMap<>();
        Map<String, String> labels = new TreeMap<>();
        int grouped = 0;
        for (Case c : cases) {
            assertThat(c.signature().version()).as(c.name() + ": signature version").isEqualTo(CrashSignature.VERSION);
            String key = c.signature().groupKey();
            if (key == null) {
                continue;
            }
            grouped++;
            labels.put(key, c.signature().groupLabel());
            causes.computeIfAbsent(key, k -> new TreeSet<>()).add(c.label());
            members.computeIfAbsent(key, k -> new ArrayList<>()).add(c.name() + " " + c.label());
            // the same group and label from the decisive facts alone: no part came from an INFO line or a set-aside event
            assertThat(c.signature().group()).as(c.name() + ": group parts (notes " + c.signature().notes() + ")")
                    .isNotEmpty().isEqualTo(c.decisiveOnly().group());
            assertThat(c.signature().groupLabel()).isNotBlank();
        }
        members.forEach((k, v) -> System.out.println("group " + k + " " + v + " " + labels.get(k)));
        System.out.printf("%d bundles, %d in %d groups%n", cases.size(), grouped, members.size());
        assertThat(cases.size()).isGreaterThanOrEqualTo(79);
        // most crashes have a decisive line: a signature that groups nothing would pass the rest trivially
        assertThat(grouped).as("bundles in a group").isGreaterThan(cases.size() / 2);
        causes.forEach((key, held) -> assertThat(held).as("causes of group " + key + ": " + members.get(key)).hasSize(1));
    }

    /** Whether the fact was read from a line that is neither informational nor of an event the diagnosis set aside. */
    static boolean decisive(Fact f, Set<String> setAside) {
        return f.sources().isEmpty() || f.sources().stream()
                .anyMatch(s -> !setAside.contains(s.artifact() + ":" + s.line()) && !INFO.matcher(s.text()).find());
    }
}
