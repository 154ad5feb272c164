package dev.crashlab.sniff;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Fuzzes the sniffer with arbitrary heads and file names; it must return a type for every input.
 *
 * <p>Run it with {@code JAZZER_FUZZ=1}; Jazzer then searches for inputs that make a rule throw or hang.
 * It is skipped otherwise, because loading Jazzer's agent costs about ten seconds and installs hooks
 * into the whole test JVM, which the Quarkus tests sharing that JVM must not see; the seeded random and
 * hostile inputs of {@link HostileInputTest} cover the same contract in every build.
 */
@EnabledIfEnvironmentVariable(named = "JAZZER_FUZZ", matches = "1",
        disabledReason = "fuzzing runs only with JAZZER_FUZZ=1 (its agent would hook the shared test JVM); HostileInputTest covers the contract in every build")
class ArtifactSnifferFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void neverThrows(byte[] head) {
        // The last byte picks a file name, so the name hints are fuzzed too.
        String[] names = {"crash.log", "env.txt", "events.log", "dmesg.txt", "requirements.txt", "upload.bin", ""};
        String name = head.length == 0 ? "" : names[(head[head.length - 1] & 0xFF) % names.length];
        assertNotNull(ArtifactSniffer.classify(name, head));
    }
}
