package dev.crashlab.unpack;

import static dev.crashlab.unpack.ArchiveFixtures.entries;
import static dev.crashlab.unpack.ArchiveFixtures.gzip;
import static dev.crashlab.unpack.ArchiveFixtures.gzipNamed;
import static dev.crashlab.unpack.ArchiveFixtures.tar;
import static dev.crashlab.unpack.ArchiveFixtures.tgz;
import static dev.crashlab.unpack.ArchiveFixtures.write;
import static dev.crashlab.unpack.ArchiveFixtures.zip;
import static dev.crashlab.unpack.ArchiveFixtures.zipStreamedZip64;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checks what the unpacker stages from well-formed uploads: paths, bytes, hashes, order and clean-up. */
class BundleUnpackerTest {

    @TempDir
    Path temp;

    private Path uploads;
    private Path staging;
    private BundleUnpacker unpacker;

    @BeforeEach
    void setUp() throws IOException {
        uploads = Files.createDirectory(temp.resolve("uploads"));
        staging = temp.resolve("staging");
        unpacker = new BundleUnpacker(UnpackLimits.defaults(), staging);
    }

    @AfterEach
    void closeDeletesTheStagingDirectory() throws IOException {
        unpacker.close();
        assertFalse(Files.exists(staging), "staging directory left behind");
    }

    /** Returns path -> content of what was staged, checking each staged file's size and hash on the way. */
    private Map<String, String> staged() throws Exception {
        Map<String, String> contents = new LinkedHashMap<>();
        for (StagedFile f : unpacker.files()) {
            byte[] bytes = Files.readAllBytes(f.file());
            assertEquals(bytes.length, f.size(), f.path());
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), f.sha256(), f.path());
            assertEquals(staging, f.file().getParent(), "staged outside the staging directory: " + f.file());
            contents.put(f.path(), new String(bytes, UTF_8));
        }
        return contents;
    }

    @Test
    void expandsAZipAtTheRootWhenItIsTheWholeUpload() throws Exception {
        unpacker.add("crash.zip", write(uploads, "crash.zip", zip("logs/train.log", "epoch 1\n", "nvidia-smi.txt", "GPU 0")), true);

        assertEquals(Map.of("logs/train.log", "epoch 1\n", "nvidia-smi.txt", "GPU 0"), staged());
    }

    @Test
    void expandsAZipUnderItsNameWhenOtherFilesCameWithIt() throws Exception {
        unpacker.add("crash.zip", write(uploads, "crash.zip", zip("logs/train.log", "epoch 1\n")), false);

        assertEquals(Map.of("crash.zip/logs/train.log", "epoch 1\n"), staged());
    }

    @Test
    void neverNamesAStagedFileAfterItsEntry() throws Exception {
        unpacker.add("crash.zip", write(uploads, "crash.zip", zip("train.log", "x", "b/evil.sh", "y")), true);

        for (StagedFile f : unpacker.files()) {
            String fileName = f.file().getFileName().toString();
            assertTrue(fileName.matches("\\d+\\.staged"), fileName);
        }
    }

    @Test
    void expandsATar() throws Exception {
        unpacker.add("crash.tar", write(uploads, "crash.tar", tar("env.txt", "tensorflow 2.10.1", "logs/", "", "logs/a.log", "a")), true);

        assertEquals(Map.of("env.txt", "tensorflow 2.10.1", "logs/a.log", "a"), staged());
    }

    @Test
    void expandsATgzAndATarGz() throws Exception {
        unpacker.add("one.tgz", write(uploads, "one.tgz", tgz("a.log", "first")), false);
        unpacker.add("two.tar.gz", write(uploads, "two.tar.gz", tgz("b.log", "second")), false);

        assertEquals(Map.of("one.tgz/a.log", "first", "two.tar.gz/b.log", "second"), staged());
    }

    @Test
    void decompressesAGzippedFileInPlace() throws Exception {
        unpacker.add("train.log.gz", write(uploads, "train.log.gz", gzip("Traceback".getBytes(UTF_8))), true);

        assertEquals(Map.of("train.log", "Traceback"), staged());
    }

    @Test
    void namesAGzippedFileAfterItsHeaderWhenTheNameHasNoGzSuffix() throws Exception {
        unpacker.add("download", write(uploads, "download", gzipNamed("x".getBytes(UTF_8), "/tmp/../events.evtx.xml")), true);
        unpacker.add("blob", write(uploads, "blob", gzip("y".getBytes(UTF_8))), true);

        assertEquals(Map.of("events.evtx.xml", "x", "blob.out", "y"), staged());
    }

    @Test
    void decompressesGzippedEntriesInPlaceInsideAnArchive() throws Exception {
        byte[] bundle = zip(entries("x/foo.log.gz", gzip("inner log".getBytes(UTF_8)), "x/bar.txt", "bar"));
        unpacker.add("b.zip", write(uploads, "b.zip", bundle), true);

        assertEquals(Map.of("x/foo.log", "inner log", "x/bar.txt", "bar"), staged());
    }

    @Test
    void expandsArchivesNestedInArchivesInPlace() throws Exception {
        byte[] innerTgz = tgz("deep.log", "deep", "cfg/model.json", "{}");
        byte[] innerZip = zip("z.txt", "zipped");
        unpacker.add("a.zip", write(uploads, "a.zip",
                zip(entries("inner/b.tar.gz", innerTgz, "c.zip", innerZip, "top.txt", "top"))), true);

        assertEquals(Map.of("inner/b.tar.gz/deep.log", "deep", "inner/b.tar.gz/cfg/model.json", "{}",
                "c.zip/z.txt", "zipped", "top.txt", "top"), staged());
    }

    @Test
    void expandsAZipInsideATgzInsideAZipUpToTheDepthLimit() throws Exception {
        byte[] level3 = zip("bottom.txt", "three levels down");
        byte[] level2 = ArchiveFixtures.gzip(tar(entries("l3.zip", level3)));
        unpacker.add("l1.zip", write(uploads, "l1.zip", zip(entries("l2.tgz", level2))), false);

        assertEquals(Map.of("l1.zip/l2.tgz/l3.zip/bottom.txt", "three levels down"), staged());
    }

    @Test
    void expandsAGzippedZipAtTheRootWhenItIsTheWholeUpload() throws Exception {
        unpacker.add("bundle.zip.gz", write(uploads, "bundle.zip.gz", gzip(zip("a.log", "a"))), true);

        assertEquals(Map.of("a.log", "a"), staged());
    }

    @Test
    void keepsFilesOfEveryAddCallInOrder() throws Exception {
        unpacker.add("logs.zip", write(uploads, "logs.zip", zip("1.log", "one", "2.log", "two")), false);
        unpacker.add("C:\\fakepath\\smi.txt", write(uploads, "smi.txt", "nvidia-smi".getBytes(UTF_8)), false);
        unpacker.add("events.tar", write(uploads, "events.tar", tar("e.xml", "<Event/>")), false);

        assertEquals(List.of("logs.zip/1.log", "logs.zip/2.log", "smi.txt", "events.tar/e.xml"),
                unpacker.files().stream().map(StagedFile::path).toList());
    }

    @Test
    void acceptsUnicodeNames() throws Exception {
        byte[] bundle = zip("日本語/ログ.txt", "ja", "émoji 🚀 run.log", "rocket", "with space/ä ö.txt", "umlaut");
        unpacker.add("Über bundle ✓.zip", write(uploads, "u.zip", bundle), false);
        unpacker.add("тар.tar", write(uploads, "t.tar", tar("данные/файл.log", "ru", "中文.txt", "zh")), false);

        assertEquals(Map.of("Über bundle ✓.zip/日本語/ログ.txt", "ja", "Über bundle ✓.zip/émoji 🚀 run.log", "rocket",
                "Über bundle ✓.zip/with space/ä ö.txt", "umlaut", "тар.tar/данные/файл.log", "ru", "тар.tar/中文.txt", "zh"),
                staged());
    }

    @Test
    void numbersDuplicatePathsBeforeTheExtension() throws Exception {
        unpacker.add("train.log", write(uploads, "1", "a".getBytes(UTF_8)), false);
        unpacker.add("train.log", write(uploads, "2", "b".getBytes(UTF_8)), false);
        unpacker.add("train.log", write(uploads, "3", "c".getBytes(UTF_8)), false);
        unpacker.add(".bashrc", write(uploads, "4", "d".getBytes(UTF_8)), false);
        unpacker.add(".bashrc", write(uploads, "5", "e".getBytes(UTF_8)), false);
        unpacker.add("x.zip", write(uploads, "x.zip", zip("./dir/a.txt", "f", "dir//a.txt", "g", "dir\\a.txt", "h")), true);

        assertEquals(List.of("train.log", "train (2).log", "train (3).log", ".bashrc", ".bashrc (2)",
                "dir/a.txt", "dir/a (2).txt", "dir/a (3).txt"), unpacker.files().stream().map(StagedFile::path).toList());
    }

    @Test
    void keepsEmptyEntriesAndSkipsDirectories() throws Exception {
        unpacker.add("x.zip", write(uploads, "x.zip", zip("empty.log", "", "dir/", "", "dir/sub/", "", "dir/f.txt", "f")), true);

        assertEquals(Map.of("empty.log", "", "dir/f.txt", "f"), staged());
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", unpacker.files().getFirst().sha256());
    }

    @Test
    void readsZip64EntriesWithDataDescriptors() throws Exception {
        byte[] big = new byte[3 << 20];
        new java.util.Random(3).nextBytes(big);
        unpacker.add("s.zip", write(uploads, "s.zip", zipStreamedZip64("a.log", "alpha", "big.bin", big, "c/", "")), true);

        assertEquals(List.of("a.log", "big.bin"), unpacker.files().stream().map(StagedFile::path).toList());
        assertEquals(big.length, unpacker.files().get(1).size());
        assertTrue(java.util.Arrays.equals(big, Files.readAllBytes(unpacker.files().get(1).file())));
    }

    @Test
    void trustsContentOverTheNameWhenBothAreArchives() throws Exception {
        // A browser may gunzip a .tar.gz download and keep its name; the bytes are what counts.
        unpacker.add("logs.tar.gz", write(uploads, "l.tar.gz", tar("a.log", "a")), true);
        unpacker.add("really-a-tar.zip", write(uploads, "r.zip", tar("b.log", "b")), false);

        assertEquals(Map.of("a.log", "a", "really-a-tar.zip/b.log", "b"), staged());
    }

    @Test
    void stagesAFileThatIsNoArchiveAsItIs() throws Exception {
        unpacker.add("model.json", write(uploads, "m", "{\"layers\": []}".getBytes(UTF_8)), true);

        assertEquals(Map.of("model.json", "{\"layers\": []}"), staged());
    }

    @Test
    void leavesStagedFilesThatWereMovedOutAlone() throws Exception {
        unpacker.add("x.zip", write(uploads, "x.zip", zip("keep.txt", "kept")), true);
        Path kept = temp.resolve("kept.txt");
        Files.move(unpacker.files().getFirst().file(), kept);

        unpacker.close();

        assertEquals("kept", Files.readString(kept));
    }

    @Test
    void toleratesAFolderLeftInTheStagingDirectory() throws Exception {
        unpacker.add("a.log", write(uploads, "a.log", "a".getBytes(UTF_8)), true);
        Files.createDirectories(staging.resolve("left/behind"));
        Files.writeString(staging.resolve("left/behind/x"), "x");
        // @AfterEach closes and checks that all of it is gone
    }

    @Test
    void tellsArchivesByTheirFirstBytes() throws Exception {
        assertTrue(BundleUnpacker.isArchive(write(uploads, "a.bin", zip("a", "a"))));
        assertTrue(BundleUnpacker.isArchive(write(uploads, "b.bin", tar("a", "a"))));
        assertTrue(BundleUnpacker.isArchive(write(uploads, "c.bin", tgz("a", "a"))));
        assertTrue(BundleUnpacker.isArchive(write(uploads, "d.bin", gzip(new byte[0]))));
        assertTrue(BundleUnpacker.isArchive(write(uploads, "e.bin", zip(new LinkedHashMap<>()))));
        assertFalse(BundleUnpacker.isArchive(write(uploads, "f.zip", "PK but not a zip".getBytes(UTF_8))));
        assertFalse(BundleUnpacker.isArchive(write(uploads, "g.bin", new byte[0])));
        assertFalse(BundleUnpacker.isArchive(write(uploads, "h.bin", new byte[1024])));
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void addOwnedMovesALooseFileIntoStagingWithTheHashItWasGiven() throws Exception {
        byte[] log = "epoch 1\nRuntimeError: CUDA error: out of memory\n".getBytes(UTF_8);
        Path upload = write(uploads, "train.log", log);

        unpacker.addOwned("train.log", upload, sha256(log), true);

        assertEquals(Map.of("train.log", new String(log, UTF_8)), staged()); // size and hash checked against the bytes
        assertFalse(Files.exists(upload), "a handed-over loose file is moved, not copied");
    }

    @Test
    void addOwnedExpandsAnArchiveAsAddDoes() throws Exception {
        byte[] zip = zip("logs/train.log", "epoch 1\n", "nvidia-smi.txt", "GPU 0");

        unpacker.addOwned("crash.zip", write(uploads, "crash.zip", zip), sha256(zip), true);

        assertEquals(Map.of("logs/train.log", "epoch 1\n", "nvidia-smi.txt", "GPU 0"), staged());
    }

    @Test
    void addOwnedCountsAMovedFileAgainstTheBundleLimit() throws Exception {
        unpacker.close();
        unpacker = new BundleUnpacker(new UnpackLimits(100, 10, 3, 100, 100), staging);
        byte[] sixty = new byte[60];
        java.util.Arrays.fill(sixty, (byte) 'a');
        unpacker.addOwned("a.log", write(uploads, "a.log", sixty), sha256(sixty), false);

        Path second = write(uploads, "b.log", sixty);
        BundleRejectedException e = assertThrows(BundleRejectedException.class,
                () -> unpacker.addOwned("b.log", second, sha256(sixty), false));

        assertEquals(BundleRejectedException.Kind.TOO_LARGE, e.kind());
        assertEquals("`b.log` makes the bundle expand beyond 100 bytes, the most one bundle may hold: refused", e.getMessage());
        assertEquals(List.of("a.log"), unpacker.files().stream().map(StagedFile::path).toList());
        try (java.util.stream.Stream<Path> left = Files.list(staging)) {
            assertEquals(1, left.count(), "the refused file left nothing in staging");
        }
    }

    @Test
    void refusesAddAfterClose() throws Exception {
        unpacker.close();

        assertThrows(IllegalStateException.class, () -> unpacker.add("a.log", write(uploads, "a.log", new byte[1]), true));
    }

    @Test
    void hasTheDocumentedDefaultLimits() {
        assertEquals(new UnpackLimits(4L * 1024 * 1024 * 1024, 10_000, 3, 100, 16 * 1024 * 1024), UnpackLimits.defaults());
    }

    @Test
    void refusesUnusableLimits() {
        assertThrows(IllegalArgumentException.class, () -> new UnpackLimits(0, 1, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new UnpackLimits(1, 0, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new UnpackLimits(1, 1, 0, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new UnpackLimits(1, 1, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new UnpackLimits(1, 1, 1, 1, -1));
    }
}
