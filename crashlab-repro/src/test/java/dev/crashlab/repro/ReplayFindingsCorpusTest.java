package dev.crashlab.repro;

import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.CpuConvBackend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.Evidence;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.ReplayOutcome;
import dev.crashlab.parse.ArtifactFacts;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.search.KbIndex;
import dev.crashlab.sniff.ArtifactSniffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real model config from the corpus replayed for a reporter's card, at a batch that cannot fit the card and at
 * one whose largest layer needs more than 2 s on that GPU: the replay's findings say so in words, and the
 * diagnosis of the crash gains the matching {@code gpu-oom} and {@code tdr-timeout} evidence.
 */
class ReplayFindingsCorpusTest {

    static final Path MODEL = Path.of("../shared/corpus/model-configs/keras3-dotkeras-config-sequential-mnist-cnn.json");
    /** A 2 GiB card with 300 MiB taken by other processes (nvidia-smi's figures, as a bundle would give them). */
    static final ReproSpec.ReporterGpu CARD = new ReproSpec.ReporterGpu("NVIDIA GeForce GT 1030", 2048, 300L);

    static DiagnosisEngine engine;

    @BeforeAll
    static void load() {
        KnowledgeSource source = KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat"));
        assertThat(source.problems()).isEmpty();
        engine = new DiagnosisEngine(source.kb(), source.compat(), KbIndex.build(source.kb()));
    }

    static ReproSpec modelSpec() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(MODEL), "no ../shared/corpus/model-configs here");
        String name = MODEL.getFileName().toString();
        List<Fact> facts = ArtifactFacts.of(new ParseInput(name, new ArtifactSniffer().sniff(name, MODEL), MODEL)).facts();
        ReproSpec s = ReproSpecs.fromFacts(facts);
        assertThat(s.layers()).as("the model's convolutions").hasSizeGreaterThanOrEqualTo(2);
        return new ReproSpec(s.layers(), s.batch(), s.dtype(), s.mixedPrecision(), s.layout(), ReproSpec.Mode.TRAINING,
                s.optimizer(), CARD, s.notes());
    }

    /** The smallest power-of-two batch from the model's own for which {@code holds} is true. */
    static ReproSpec firstBatch(ReproSpec spec, java.util.function.Predicate<ReproSpec> holds) {
        for (int b = spec.batch(); b <= 1 << 22; b *= 2) {
            if (holds.test(spec.withBatch(b))) {
                return spec.withBatch(b);
            }
        }
        throw new AssertionError("no batch up to 2^22 satisfies the condition");
    }

    static ReplayResult replay(ReproSpec spec) {
        MemoryEstimate estimate = MemoryEstimator.estimate(spec);
        try (CpuConvBackend cpu = new CpuConvBackend(2)) {
            // capped at what the card had free, as the Reproduce button's suggested cap does
            return new Replay(cpu, estimate.availableBytes(), 7, null).run(spec);
        }
    }

    static Diagnosis diagnose(ReplayResult replay) {
        // through the wire and back, as the job row stores it
        JobResult result = ReproJson.readJobResult(ReproJson.write(new JobResult(replay, null, "test", "cpu")));
        List<Fact> facts = new ArrayList<>();
        ReplayOutcome outcome = ReplayOutcomes.of(42, replay.status().label(), result).orElseThrow();
        facts.add(outcome);
        return engine.diagnose(new DiagnosisInput(facts, List.of()));
    }

    static List<Evidence> evidence(Diagnosis d, String article) {
        return d.hypotheses().stream().filter(h -> h.id().equals(article)).findFirst().map(Hypothesis::evidence)
                .orElse(List.of());
    }

    @Test
    void aBatchThatCannotFitTheCardIsSaidSoAndRaisesGpuOom() throws Exception {
        ReproSpec fits = modelSpec().withBatch(1);
        ReplayResult small = replay(fits);
        assertThat(small.findings().exceedsReporterMemory()).isFalse();
        assertThat(small.findings().memory()).contains("the batch fits").contains("NVIDIA GeForce GT 1030");
        assertThat(evidence(diagnose(small), "gpu-oom")).extracting(Evidence::matcher).doesNotContain("replay-exceeds-card");

        ReproSpec big = firstBatch(modelSpec(), s -> Boolean.FALSE.equals(MemoryEstimator.estimate(s).fits()));
        ReplayResult r = replay(big);
        ReplayFindings f = r.findings();
        assertThat(f.exceedsReporterMemory()).isTrue();
        assertThat(f.largestBatchThatFits()).isLessThan(big.batch()).isGreaterThan(0);
        assertThat(Boolean.FALSE.equals(MemoryEstimator.estimate(big.withBatch(f.largestBatchThatFits() + 1)).fits())).isTrue();
        assertThat(f.memory()).contains("at batch " + big.batch()).contains("does not fit")
                .contains("the largest batch that fits is " + f.largestBatchThatFits()).contains("1.2 GiB free");
        List<Evidence> oom = evidence(diagnose(r), "gpu-oom");
        assertThat(oom).extracting(Evidence::matcher).contains("replay-exceeds-card");
        assertThat(oom).filteredOn(e -> e.matcher().equals("replay-exceeds-card")).first()
                .satisfies(e -> assertThat(e.text()).contains("does not fit"));
    }

    @Test
    void aLayerOverTwoSecondsOnTheReportersGpuIsSaidSoAndRaisesTdrTimeout() throws Exception {
        ReproSpec spec = modelSpec();
        ReplayResult quick = replay(spec.withBatch(1));
        assertThat(quick.findings().exceedsWatchdog()).isFalse();
        assertThat(quick.findings().time()).contains("under the 2 s Windows watchdog");

        ReproSpec slow = firstBatch(spec, s -> Boolean.TRUE.equals(ReplayFindings.of(s, MemoryEstimator.estimate(s)).exceedsWatchdog()));
        ReplayResult r = replay(slow);
        ReplayFindings f = r.findings();
        assertThat(f.exceedsWatchdog()).isTrue();
        // the largest layer at the GT 1030's 1.13 TFLOP/s FP32 peak: its multiply-adds, twice, over the peak
        ConvProblem largest = slow.problems().stream().max(java.util.Comparator.comparingLong(ConvProblem::macs)).orElseThrow();
        assertThat(f.longestPassMs()).isCloseTo(2.0 * largest.macs() / 1.13e12 * 1e3, org.assertj.core.api.Assertions.within(1.0));
        assertThat(f.longestPassMs()).isGreaterThan(ReplayResult.TDR_LIMIT_MS);
        assertThat(f.time()).contains("1.13 TFLOP/s (FP32)").contains(largest.name()).contains("over the 2 s Windows watchdog");
        assertThat(f.passesOverWatchdog()).contains(largest.name() + " backward-filter");
        List<Evidence> tdr = evidence(diagnose(r), "tdr-timeout");
        assertThat(tdr).extracting(Evidence::matcher).contains("replay-exceeds-watchdog");
        assertThat(tdr).filteredOn(e -> e.matcher().equals("replay-exceeds-watchdog")).first()
                .satisfies(e -> assertThat(e.text()).contains("over the 2 s Windows watchdog"));
    }
}
