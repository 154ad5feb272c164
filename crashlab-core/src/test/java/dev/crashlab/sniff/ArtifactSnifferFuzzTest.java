package dev.crashlab.sniff;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the sniffer with arbitrary heads and file names; it must return a type for every input.
 *
 * <p>Every build runs it in regression mode, in a JVM of its own (the pom's {@code fuzz-regression}
 * execution: Jazzer's agent hooks the whole JVM). With {@code JAZZER_FUZZ=1} Jazzer searches for inputs
 * that make a rule throw or hang; {@link HostileInputTest} covers the same contract with seeded inputs.
 */
class ArtifactSnifferFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void neverThrows(byte[] head) {
        // The last byte picks a file name, so the name hints are fuzzed too.
        String[] names = {"crash.log", "env.txt", "events.log", "dmesg.txt", "requirements.txt", "upload.bin", ""};
        String name = head.length == 0 ? "" : names[(head[head.length - 1] & 0xFF) % names.length];
        assertNotNull(ArtifactSniffer.classify(name, head));
    }
}
