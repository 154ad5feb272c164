package dev.crashlab.unpack;

import static dev.crashlab.unpack.ArchiveFixtures.entries;
import static dev.crashlab.unpack.ArchiveFixtures.gzip;
import static dev.crashlab.unpack.ArchiveFixtures.tar;
import static dev.crashlab.unpack.ArchiveFixtures.tgz;
import static dev.crashlab.unpack.ArchiveFixtures.zip;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feeds the unpacker valid archives with bytes flipped, overwritten or cut off, one seed per variant, and checks
 * that it either unpacks them or refuses them, and never fails another way, hangs, or leaves files behind.
 *
 * <p>Run more seeds with {@code -Dcrashlab.corruption.seeds=5000}; a failure names the seed to replay.
 */
class BundleUnpackerCorruptionTest {

    private static final int SEEDS = Integer.getInteger("crashlab.corruption.seeds", 150);
    /** Small limits, so that a mutated size or ratio costs milliseconds, not a gigabyte of disk. */
    private static final UnpackLimits LIMITS = new UnpackLimits(16L << 20, 200, 3, 100, 256 << 10);

    @TempDir
    Path temp;

    static Stream<Arguments> samples() {
        String log = "2024-05-01 12:00:00 E tensorflow/stream_executor/cuda/cuda_dnn.cc:389] Could not create cudnn handle\n";
        byte[] text = log.repeat(40).getBytes(UTF_8);
        byte[] random = new byte[3000];
        new Random(42).nextBytes(random);
        return Stream.of(
                Arguments.of("bundle.zip", zip(entries("logs/train.log", text, "smi.txt", "GPU 0: RTX 3060", "dir/", "",
                        "bin.dat", random, "empty", ""))),
                Arguments.of("streamed.zip", ArchiveFixtures.zipStreamedZip64("a.log", log, "b.bin", random)),
                Arguments.of("nested.zip", zip(entries("inner/x.tgz", tgz("deep.log", log), "in.zip", zip("z.txt", log),
                        "c.log.gz", gzip(text)))),
                Arguments.of("bundle.tar", tar(entries("a.log", text, "d/", "", "ü/名前.txt", "unicode", "b.bin", random))),
                Arguments.of("bundle.tgz", gzip(tar(entries("a.log", text, "b.bin", random, "z.zip", zip("q", "q"))))),
                Arguments.of("train.log.gz", gzip(text)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void corruptedArchivesAreUnpackedOrRefusedNeverWorse(String name, byte[] original) throws Exception {
        Path upload = temp.resolve("upload");
        Path staging = temp.resolve("staging");
        for (int seed = 0; seed < SEEDS; seed++) {
            byte[] mutated = mutate(original, new Random(seed * 1_000_003L + name.hashCode()));
            Files.write(upload, mutated);
            int s = seed;
            try {
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                    try (BundleUnpacker unpacker = new BundleUnpacker(LIMITS, staging)) {
                        unpacker.add(name, upload, true);
                    } catch (BundleRejectedException expected) {
                        assertFalse(expected.getMessage().contains("\n") || expected.getMessage().contains(temp.toString()),
                                expected.getMessage());
                    }
                }, () -> "seed " + s + " of " + name + " hangs");
            } catch (Throwable t) {
                fail("seed " + s + " of " + name + " failed with " + t, t);
            }
            assertFalse(Files.exists(staging), "seed " + s + " of " + name + " left the staging directory behind");
        }
    }

    static Stream<Path> fuzzInputs() throws Exception {
        Path inputs = Path.of(BundleUnpackerCorruptionTest.class.getResource("BundleUnpackerFuzzTestInputs/unpack").toURI());
        try (Stream<Path> files = Files.list(inputs)) {
            return files.sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fuzzInputs")
    void fuzzInputsAreUnpackedOrRefused(Path input) throws Exception {
        byte[] data = Files.readAllBytes(input);

        assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> BundleUnpackerFuzzTest.unpackOrRefuse(data, temp, BundleUnpackerFuzzTest.LIMITS));
    }

    /** Returns a copy of {@code bytes} damaged in one of the ways real uploads and hostile ones are. */
    static byte[] mutate(byte[] bytes, Random random) {
        byte[] out = bytes.clone();
        switch (random.nextInt(5)) {
            case 0 -> flip(out, random, 1 + random.nextInt(8));
            case 1 -> out = Arrays.copyOf(out, random.nextInt(out.length));
            case 2 -> {
                flip(out, random, 1 + random.nextInt(4));
                out = Arrays.copyOf(out, out.length - random.nextInt(Math.max(1, out.length / 4)));
            }
            case 3 -> {
                // Size and offset fields are 2, 4 or 8 bytes: extreme values there find the missing bounds checks.
                int[] extremes = {0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x7fff, 1};
                int at = random.nextInt(Math.max(1, out.length - 4));
                int value = extremes[random.nextInt(extremes.length)];
                for (int i = 0; i < 4 && at + i < out.length; i++) {
                    out[at + i] = (byte) (value >>> (8 * i));
                }
            }
            default -> {
                int from = random.nextInt(out.length);
                int length = random.nextInt(Math.min(64, out.length - from) + 1);
                byte[] longer = new byte[out.length + length];
                System.arraycopy(out, 0, longer, 0, from + length);
                System.arraycopy(out, from, longer, from + length, out.length - from);
                out = longer; // a stretch repeated, shifting everything after it
            }
        }
        return out;
    }

    private static void flip(byte[] bytes, Random random, int count) {
        for (int i = 0; i < count && bytes.length > 0; i++) {
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
        }
    }
}
