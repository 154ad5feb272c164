package dev.crashlab.unpack;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the unpacker with arbitrary bytes: it may unpack them or refuse them, and must do nothing else.
 *
 * <p>Every build runs it in regression mode over {@code BundleUnpackerFuzzTestInputs/unpack/} (seeds, and
 * any crash a fuzzing run found and saved there), in a JVM of its own (the pom's {@code fuzz-regression}
 * execution: Jazzer's agent hooks the whole JVM). Fuzz for real with
 * {@code JAZZER_FUZZ=1 scripts/mvn test -Dtest=BundleUnpackerFuzzTest}.
 */
class BundleUnpackerFuzzTest {

    /** Small limits, so that each input costs little whatever its headers claim. */
    static final UnpackLimits LIMITS = new UnpackLimits(8L << 20, 100, 3, 100, 64 << 10);

    private static Path temp;

    @BeforeAll
    static void createTemp() throws IOException {
        temp = Files.createTempDirectory("crashlab-unpacker-fuzz-");
    }

    @AfterAll
    static void deleteTemp() throws IOException {
        try (Stream<Path> paths = Files.walk(temp)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @FuzzTest(maxDuration = "2m")
    void unpack(byte[] data) throws IOException {
        unpackOrRefuse(data, temp, LIMITS);
    }

    /** Unpacks {@code data} as one upload and closes the unpacker; refusing is a correct answer to arbitrary bytes. */
    static void unpackOrRefuse(byte[] data, Path temp, UnpackLimits limits) throws IOException {
        Path upload = temp.resolve("upload");
        Path staging = temp.resolve("staging");
        Files.write(upload, data);
        try (BundleUnpacker unpacker = new BundleUnpacker(limits, staging)) {
            unpacker.add("upload.bin", upload, true);
        } catch (BundleRejectedException expected) {
            assertFalse(expected.getMessage().isBlank());
        }
        assertFalse(Files.exists(staging), "the staging directory outlived close()");
    }
}
