package dev.crashlab.crashes.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.diagnose.service.BundleDiagnosis;
import dev.crashlab.diagnose.service.DiagnosisService;
import dev.crashlab.diagnose.service.ResolutionService;
import dev.crashlab.kb.service.KnowledgeService;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The past-crash index learns a stored diagnosis only after its transaction commits: a diagnosis whose transaction
 * rolls back (here: confirming a cause re-diagnoses the bundle, and storing that fails at the last observer) leaves
 * the index, the stored signature and the change log as they were.
 */
@QuarkusTest
@Tag("persistence")
class IndexAfterCommitTest {

    @Inject
    CrashSearchService crashes;

    @Inject
    ResolutionService resolutions;

    @Inject
    DiagnosisService diagnoses;

    @Inject
    KnowledgeService knowledge;

    @Inject
    FailingDiagnosisStore failing;

    @Test
    void aDiagnosisWhoseTransactionRollsBackLeavesTheIndexUnchanged() {
        String lib = PastCrashesApiTest.lib();
        long a = PastCrashesApiTest.upload("rollback.log", PastCrashesApiTest.log(lib, "train.py"));
        assertThat(crashes.search("lib:" + lib, 0, 10).hits()).extracting(h -> h.bundleId()).containsExactly(a);
        CrashSignature indexedBefore = crashes.indexedSignature(a);
        assertThat(indexedBefore).isNotNull();
        String storedBefore = storedSignature(a);
        long changesBefore = changes(a);
        String article = knowledge.current().source().kb().articles().getFirst().id();

        int failedBefore = failing.failed();
        failing.arm(a);
        try {
            // stores the confirmation, then re-diagnoses the bundle in a transaction of its own, which fails and rolls back
            assertThat(resolutions.confirm(a, article, "rollback test")).isPresent();
        } finally {
            failing.disarm();
        }
        assertThat(failing.failed()).as("the re-diagnosis reached the store and failed there").isEqualTo(failedBefore + 1);
        crashes.syncNow(); // whatever the change log holds is applied too
        assertThat(crashes.indexedSignature(a)).as("index after a rollback").isEqualTo(indexedBefore);
        assertThat(storedSignature(a)).isEqualTo(storedBefore);
        assertThat(changes(a)).isEqualTo(changesBefore);

        // the same diagnosis committed does reach the index: the check above can see a change
        diagnoses.computeQuietly(a);
        assertThat(crashes.indexedSignature(a)).as("index after a commit").isNotEqualTo(indexedBefore);
        assertThat(storedSignature(a)).isNotEqualTo(storedBefore);
    }

    private static String storedSignature(long bundleId) {
        return QuarkusTransaction.requiringNew().call(() -> BundleDiagnosis.<BundleDiagnosis>findById(bundleId).signatureJson);
    }

    private static long changes(long bundleId) {
        return QuarkusTransaction.requiringNew().call(() -> dev.crashlab.bundle.CrashChange.count("bundleId", bundleId));
    }
}
