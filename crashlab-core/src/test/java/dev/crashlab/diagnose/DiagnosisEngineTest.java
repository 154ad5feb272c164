package dev.crashlab.diagnose;

import static dev.crashlab.diagnose.TestFacts.fastFail;
import static dev.crashlab.diagnose.TestFacts.gpu;
import static dev.crashlab.diagnose.TestFacts.gpuOom;
import static dev.crashlab.diagnose.TestFacts.lib;
import static dev.crashlab.diagnose.TestFacts.platform;
import static dev.crashlab.diagnose.TestFacts.version;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.compat.CompatData;
import dev.crashlab.fact.Fact;
import dev.crashlab.kb.KbLoader;
import dev.crashlab.kb.KnowledgeBase;
import dev.crashlab.search.KbIndex;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule pipeline end to end on the test articles of {@code src/test/resources/kb-test/valid}. */
class DiagnosisEngineTest {

    static final KnowledgeBase KB = new KbLoader(CompatChecks.ids()).load(Path.of("crashlab-core/src/test/resources/kb-test/valid")).kb();
    static final CompatData DATA = CompatData.load(Path.of("crashlab-core/src/test/resources/compat-test"));
    final DiagnosisEngine engine = new DiagnosisEngine(KB, DATA, KbIndex.build(KB));

    Diagnosis diagnose(List<Fact> facts, List<TextLine> lines) {
        return engine.diagnose(new DiagnosisInput(facts, lines));
    }

    @Test
    void specificEvidenceRanksItsCauseFirstWithItsSourceLine() {
        Diagnosis d = diagnose(List.of(lib("zlibwapi.dll"), fastFail(), platform("windows", "3.10")), List.of());
        Hypothesis top = d.hypotheses().getFirst();
        assertThat(top.id()).isEqualTo("zlib-missing");
        assertThat(top.evidence()).extracting(Evidence::text).contains("zlibwapi.dll could not be loaded", "exit status 0xC0000409");
        assertThat(top.evidence().getFirst().sources().getFirst().text()).contains("zlibwapi.dll");
        assertThat(top.confidence()).isGreaterThan(d.hypotheses().get(1).confidence());
    }

    static dev.crashlab.fact.ConfirmedCrash confirmed(long bundle, String article, double similarity) {
        return new dev.crashlab.fact.ConfirmedCrash(bundle, "run-" + bundle + ".log", article, similarity, List.of("exit code 0xC0000409"),
                List.of(new dev.crashlab.fact.SourceRef("bundle #" + bundle, bundle, "run-" + bundle + ".log")));
    }

    @Test
    void confirmedSimilarCrashesAreSpecificEvidenceWeightedBySimilarityThreeAtMost() {
        double alone = score(diagnose(List.of(fastFail()), List.of()), "gpu-memory");
        Diagnosis one = diagnose(List.of(fastFail(), confirmed(7, "gpu-memory", 0.5)), List.of());
        Hypothesis h = one.hypotheses().stream().filter(x -> x.id().equals("gpu-memory")).findFirst().orElseThrow();
        Evidence e = h.evidence().stream().filter(x -> x.matcher().equals("confirmed-crash-7")).findFirst().orElseThrow();
        assertThat(e.specific()).isTrue();
        assertThat(e.weight()).isEqualTo(ConfirmedCrashEvidence.MAX_WEIGHT * 0.5);
        assertThat(e.text()).contains("run-7.log", "#7", "50% alike", "0xC0000409");
        assertThat(e.sources().getFirst().artifact()).isEqualTo("bundle #7");
        assertThat(h.score()).isGreaterThan(alone);
        assertThat(score(diagnose(List.of(fastFail(), confirmed(7, "gpu-memory", 0.9)), List.of()), "gpu-memory"))
                .as("more alike counts more").isGreaterThan(h.score());

        Diagnosis many = diagnose(List.of(fastFail(), confirmed(1, "gpu-memory", 0.3), confirmed(2, "gpu-memory", 0.9),
                confirmed(3, "gpu-memory", 0.6), confirmed(4, "gpu-memory", 0.8), confirmed(5, "no-such-article", 1.0)), List.of());
        Hypothesis m = many.hypotheses().stream().filter(x -> x.id().equals("gpu-memory")).findFirst().orElseThrow();
        assertThat(m.evidence()).extracting(Evidence::matcher).filteredOn(id -> id.startsWith("confirmed-crash-"))
                .containsExactlyInAnyOrder("confirmed-crash-2", "confirmed-crash-4", "confirmed-crash-3");
        assertThat(many.notes()).isEmpty();
    }

    @Test
    void consistentEvidenceAloneScoresBelowSpecificEvidence() {
        Diagnosis d = diagnose(List.of(gpuOom(), fastFail()), List.of());
        assertThat(d.hypotheses().getFirst().id()).isEqualTo("gpu-memory");
        double oom = d.hypotheses().getFirst().score();
        double zlib = d.hypotheses().stream().filter(h -> h.id().equals("zlib-missing")).findFirst().orElseThrow().score();
        assertThat(oom).isGreaterThan(zlib + 0.5);
    }

    @Test
    void counterEvidenceLowersTheScore() {
        double windows = score(diagnose(List.of(lib("zlibwapi.dll"), platform("windows", null)), List.of()), "zlib-missing");
        Diagnosis linux = diagnose(List.of(lib("zlibwapi.dll"), platform("linux", null)), List.of());
        assertThat(score(linux, "zlib-missing")).isLessThan(windows * 0.5);
        Hypothesis h = linux.hypotheses().stream().filter(x -> x.id().equals("zlib-missing")).findFirst().orElseThrow();
        assertThat(h.against()).extracting(Evidence::text).contains("the job ran on Linux",
                "the job ran on linux; this cause occurs on windows");
    }

    @Test
    void aMatcherCountsOnceHoweverManyFactsItMatches() {
        double once = score(diagnose(List.of(fastFail()), List.of()), "gpu-memory");
        var second = new dev.crashlab.fact.ExitStatus(-1073740791, "0xC0000409", null, null, dev.crashlab.fact.ExitStatus.Kind.NTSTATUS,
                List.of(new dev.crashlab.fact.SourceRef("other.log", 9, "exit code -1073740791")));
        Diagnosis twice = diagnose(List.of(fastFail(), second), List.of());
        assertThat(score(twice, "gpu-memory")).isEqualTo(once);
        Evidence e = twice.hypotheses().stream().filter(h -> h.id().equals("gpu-memory")).findFirst().orElseThrow().evidence().getFirst();
        assertThat(e.sources()).hasSize(2);
    }

    @Test
    void textMatchersReadTheBundleLines() {
        Diagnosis d = diagnose(List.of(), List.of(new TextLine("console.log", 42, "Could not locate zlibwapi.dll. Please make sure it is in your library path!")));
        Hypothesis top = d.hypotheses().getFirst();
        assertThat(top.id()).isEqualTo("zlib-missing");
        assertThat(top.evidence().getFirst().sources().getFirst().line()).isEqualTo(42);
    }

    @Test
    void compatOutcomesBecomeEvidence() {
        Diagnosis d = diagnose(List.of(version("tensorflow", "2.4.0", "pip list"), version("nvidia-driver", "418.67", "nvidia-smi"),
                platform("linux", null)), List.of());
        assertThat(d.hypotheses().getFirst().id()).isEqualTo("old-driver");
        assertThat(d.hypotheses().getFirst().evidence().getFirst().text()).contains("driver 418.67 is older than CUDA 11.0 needs");
        assertThat(d.compat()).anyMatch(c -> c.check().equals("driver-vs-cuda") && c.result().equals("mismatch"));
    }

    @Test
    void asksForTheArtifactThatSeparatesTheTopTwo() {
        // fast-fail only: every article is consistent with it; the GPU article needs nvidia-smi, which the bundle lacks
        Diagnosis d = diagnose(List.of(fastFail()), List.of());
        assertThat(d.ask()).singleElement().satisfies(a -> {
            assertThat(a.between()).hasSize(2);
            assertThat(a.artifact()).isNotBlank();
        });
        Diagnosis withGpu = diagnose(List.of(gpuOom(), fastFail(), gpu("RTX 3060", "531.79", "12.1", 6144L)), List.of());
        assertThat(withGpu.ask()).allSatisfy(a -> assertThat(a.artifact()).doesNotContain("nvidia-smi"));
    }

    @Test
    void aFailingRuleBecomesANoteAndThePipelineGoesOn() {
        DiagnosisContext ctx = new DiagnosisContext(new DiagnosisInput(List.of(gpuOom()), List.of()), KB, DATA, TextSimilarity.NONE);
        Rule broken = new Rule() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public boolean applies(DiagnosisContext c) {
                return true;
            }

            @Override
            public void apply(DiagnosisContext c) {
                throw new IllegalStateException("boom");
            }
        };
        List<Rule> rules = new java.util.ArrayList<>(DiagnosisRules.PIPELINE);
        rules.add(1, broken);
        DiagnosisRules.run(rules, ctx);
        assertThat(ctx.notes).singleElement().asString().contains("rule broken failed", "boom");
        assertThat(ctx.ranked.getFirst().id()).isEqualTo("gpu-memory");
    }

    @Test
    void confidencesAreProbabilitiesBestFirst() {
        Diagnosis d = diagnose(List.of(lib("zlibwapi.dll"), fastFail()), List.of());
        double sum = d.hypotheses().stream().mapToDouble(Hypothesis::confidence).sum();
        assertThat(sum).isLessThanOrEqualTo(1.0001);
        assertThat(d.hypotheses()).isSortedAccordingTo((a, b) -> Double.compare(b.score(), a.score()));
        assertThat(d.kbFingerprint()).isEqualTo(KB.fingerprint());
    }

    @Test
    void jsonHasTheIssuesShape() {
        var json = DiagnosisJson.toJson(diagnose(List.of(lib("zlibwapi.dll")), List.of()));
        var h = json.get("hypotheses").get(0);
        assertThat(h.get("id").asText()).isEqualTo("zlib-missing");
        assertThat(h.has("title") && h.has("confidence") && h.has("against")).isTrue();
        assertThat(h.get("evidence").get(0).get("source").get("artifact").asText()).isEqualTo("test.log");
        assertThat(h.get("evidence").get(0).get("source").get("line").asLong()).isEqualTo(1);
        assertThat(json.has("ask") && json.has("compat")).isTrue();
    }

    @Test
    void theDocumentRecordsHoldEveryFieldTheJsonHas() throws Exception {
        // the server serves a stored diagnosis through DiagnosisDocument: a field DiagnosisJson writes that the records
        // lack would fail here (unknown property) rather than vanish from the API and its OpenAPI document
        var json = DiagnosisJson.toJson(diagnose(List.of(lib("zlibwapi.dll"), fastFail()), List.of()));
        var strict = com.fasterxml.jackson.databind.json.JsonMapper.builder()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();
        DiagnosisDocument doc = strict.treeToValue(json, DiagnosisDocument.class);
        assertThat(doc.hypotheses()).isNotEmpty();
        assertThat(doc.hypotheses().getFirst().evidence()).isNotEmpty();
        assertThat(strict.valueToTree(doc).equals(json)).as("record -> JSON gives back %s", json).isTrue();
    }

    private static double score(Diagnosis d, String id) {
        return d.hypotheses().stream().filter(h -> h.id().equals(id)).findFirst().orElseThrow().score();
    }
}
