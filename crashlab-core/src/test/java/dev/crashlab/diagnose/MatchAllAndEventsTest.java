package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.compat.CompatData;
import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.kb.KbLoader;
import dev.crashlab.kb.KbProblem;
import dev.crashlab.kb.KnowledgeBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The article format's {@code all:} (parts together, a part absent) and {@code specializes:}, Windows events that
 * belong to the crash against other programs' events, context that is never the only evidence, and the verdict.
 */
class MatchAllAndEventsTest {

    static final String HEAD = "---\nid: %s\ntitle: t\ncategory: platform\n%s";
    static final String TAIL = "remedies:\n  - platform: any\n    steps:\n      - \"x\"\nreferences:\n  - https://example.org/r\n---\n\n## Symptoms\nx\n";

    static String article(String id, String extra, String matchers) {
        return String.format(HEAD, id, extra) + "matchers:\n" + matchers + TAIL;
    }

    static final String TOGETHER = article("together", "", """
              - id: both
                all:
                  - text: '/No space left on device/i'
                  - text: '/docker/i'
                weight: 0.8
                specific: true
                says: "ENOSPC in a container"
            """);
    static final String NO_AVX = article("no-avx", "specializes: together\n", """
              - id: flags-without-avx
                all:
                  - fact: Platform
                    where: { cpuFlags: exists }
                  - fact: Platform
                    where: { cpuFlags: '/^avx/' }
                    absent: true
                weight: 0.7
                specific: true
            """);
    static final String APP_CRASH = article("app-crash", "", """
              - id: fault
                fact: ApplicationFault
                where: { exceptionCode: '0xc0000409' }
                weight: 0.8
                specific: true
              - id: windows
                fact: Platform
                where: { osFamily: windows }
                weight: 0.6
                specific: false
            """);

    final KbLoader loader = new KbLoader(CompatChecks.ids());

    DiagnosisEngine engine() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("together.md", TOGETHER);
        files.put("no-avx.md", NO_AVX);
        files.put("app-crash.md", APP_CRASH);
        KbLoader.Result r = loader.load(files, "test", new ArrayList<>());
        assertThat(r.problems()).isEmpty();
        return new DiagnosisEngine(r.kb(), CompatData.load(Path.of("crashlab-core/src/test/resources/compat-test")), TextSimilarity.NONE);
    }

    static TextLine line(String artifact, long n, String text) {
        return new TextLine(artifact, n, text);
    }

    static Hypothesis of(Diagnosis d, String id) {
        return d.hypotheses().stream().filter(h -> h.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void specializesAndAllAreReadAndChecked() {
        KnowledgeBase kb = loader.load(Map.of("together.md", TOGETHER, "no-avx.md", NO_AVX), "t", new ArrayList<>()).kb();
        assertThat(kb.article("no-avx").orElseThrow().specializes()).isEqualTo("together");
        assertThat(kb.article("no-avx").orElseThrow().names("together")).isTrue();
        assertThat(kb.article("together").orElseThrow().names("no-avx")).isFalse();
        assertThat(kb.article("together").orElseThrow().matchers().getFirst().all()).hasSize(2);

        List<KbProblem> problems = new ArrayList<>();
        loader.load(Map.of("no-avx.md", NO_AVX), "t", problems);
        assertThat(problems).extracting(KbProblem::toString).contains("no-avx.md:2: specializes: no article has the id 'together'");

        String onlyAbsent = article("only-absent", "", """
                  - id: nothing
                    all:
                      - text: '/x/'
                        absent: true
                    weight: 0.5
                """);
        List<KbProblem> p2 = new ArrayList<>();
        loader.load(Map.of("only-absent.md", onlyAbsent), "t", p2);
        assertThat(p2).extracting(KbProblem::toString).anyMatch(s -> s.contains("an absence alone is no evidence"));
    }

    @Test
    void allNeedsEveryPartAndAnAbsentPartBlocksWhenPresent() {
        DiagnosisEngine engine = engine();
        Diagnosis one = engine.diagnose(new DiagnosisInput(List.of(), List.of(line("console.log", 3, "OSError: [Errno 28] No space left on device"))));
        assertThat(of(one, "together").evidence()).isEmpty();
        Diagnosis both = engine.diagnose(new DiagnosisInput(List.of(), List.of(line("console.log", 3, "OSError: [Errno 28] No space left on device"),
                line("env.txt", 1, "container: docker"))));
        Evidence e = of(both, "together").evidence().getFirst();
        assertThat(e.text()).isEqualTo("ENOSPC in a container");
        assertThat(e.sources()).extracting(SourceRef::artifact).containsExactly("console.log", "env.txt");
        // 0.8 is strong evidence, below what the verdict policy counts as decisive (0.85)
        assertThat(of(both, "together").strength()).isEqualTo(Hypothesis.Strength.STRONG);
        assertThat(both.verdict()).isEqualTo(Diagnosis.Verdict.WEAK);

        Platform noAvx = new Platform(null, "linux", null, null, "old cpu", List.of("sse4_1", "sse4_2"), List.of(new SourceRef("env.txt", 2, "flags")));
        Platform avx = new Platform(null, "linux", null, null, "new cpu", List.of("sse4_2", "avx", "avx2"), List.of(new SourceRef("env.txt", 2, "flags")));
        assertThat(of(engine.diagnose(new DiagnosisInput(List.of(noAvx), List.of())), "no-avx").evidence()).hasSize(1);
        assertThat(of(engine.diagnose(new DiagnosisInput(List.of(avx), List.of())), "no-avx").evidence()).isEmpty();
    }

    static WindowsEvent event(String provider, int id, String time, String app, int line) {
        return new WindowsEvent(provider, id, null, "Error", time, "PC", "Application", (long) line, Map.of("AppName", app),
                "Faulting application name: " + app, List.of(new SourceRef("Application.evtx", line, "Application Error 1000 " + app)));
    }

    static ApplicationFault fault(String app, int line) {
        return new ApplicationFault("Application Error", app, null, null, "ucrtbase.dll", null, null, "0xc0000409", null, null, null,
                List.of(new SourceRef("Application.evtx", line, "Application Error 1000 " + app)));
    }

    @Test
    void otherProgramsCrashesAreOtherEventsAndTheJobsOwnIsEvidence() {
        DiagnosisEngine engine = engine();
        List<TextLine> log = List.of(line("console.log", 1, "C:\\envs\\tf\\python.exe train.py"),
                line("console.log", 2, "Process finished with exit code -1073740791 (0xC0000409)"));
        List<Fact> other = List.of(event("Application Error", 1000, "2024-06-13T00:57:42Z", "game.exe", 10), fault("game.exe", 10));
        Diagnosis d = engine.diagnose(new DiagnosisInput(other, log));
        assertThat(of(d, "app-crash").evidence()).isEmpty();
        assertThat(d.otherEventCount()).isEqualTo(1);
        assertThat(d.otherEvents()).extracting(SourceRef::line).containsExactly(10L);

        List<Fact> mine = List.of(event("Application Error", 1000, "2024-06-13T00:57:42Z", "python.exe", 11), fault("python.exe", 11));
        Diagnosis d2 = engine.diagnose(new DiagnosisInput(mine, log));
        assertThat(of(d2, "app-crash").evidence()).extracting(Evidence::matcher).contains("fault");
        assertThat(d2.otherEventCount()).isZero();
    }

    @Test
    void contextAloneIsNoEvidenceAndGivesTheNoEvidenceVerdict() {
        DiagnosisEngine engine = engine();
        Platform windows = new Platform("Windows 10", "windows", null, null, null, List.of(), List.of(new SourceRef("env.txt", 1, "os: Windows 10")));
        Diagnosis d = engine.diagnose(new DiagnosisInput(List.of(windows), List.of()));
        Hypothesis h = of(d, "app-crash");
        assertThat(h.evidence()).singleElement().satisfies(e -> assertThat(e.context()).isTrue());
        assertThat(h.strength()).isEqualTo(Hypothesis.Strength.NONE);
        assertThat(h.score()).as("context keeps a quarter of its share alone").isLessThan(ScoreArticles.CONSISTENT_SHARE * 0.6 * 0.5);
        assertThat(d.verdict()).isEqualTo(Diagnosis.Verdict.NO_EVIDENCE);
        assertThat(engine.diagnose(new DiagnosisInput(List.of(), List.of())).verdict()).isEqualTo(Diagnosis.Verdict.NO_EVIDENCE);
    }
}
