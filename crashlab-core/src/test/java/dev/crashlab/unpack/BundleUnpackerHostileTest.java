package dev.crashlab.unpack;

import static dev.crashlab.unpack.ArchiveFixtures.entries;
import static dev.crashlab.unpack.ArchiveFixtures.gzip;
import static dev.crashlab.unpack.ArchiveFixtures.tar;
import static dev.crashlab.unpack.ArchiveFixtures.tarOf;
import static dev.crashlab.unpack.ArchiveFixtures.tgz;
import static dev.crashlab.unpack.ArchiveFixtures.write;
import static dev.crashlab.unpack.ArchiveFixtures.zip;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crashlab.unpack.ArchiveFixtures.TarItem;
import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks that every kind of hostile or broken upload is refused with a precise message and leaves nothing behind. */
class BundleUnpackerHostileTest {

    private static final long MiB = 1L << 20;

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
    void closeLeavesNothingBehind() throws IOException {
        unpacker.close();
        assertFalse(Files.exists(staging), "staging directory left behind");
    }

    private void useLimits(UnpackLimits limits) throws IOException {
        unpacker.close();
        unpacker = new BundleUnpacker(limits, staging);
    }

    /** Adds one upload, expects a refusal of {@code kind}, and checks the message and that nothing stays staged. */
    private BundleRejectedException refused(Kind kind, String name, byte[] bytes) throws IOException {
        Path file = write(uploads, "upload.bin", bytes);
        BundleRejectedException e = assertThrows(BundleRejectedException.class, () -> unpacker.add(name, file, true));
        assertEquals(kind, e.kind(), e.getMessage());
        assertMessageIsForUsers(e.getMessage());
        assertStagingHoldsNoFiles();
        return e;
    }

    private void assertMessageIsForUsers(String message) {
        assertFalse(message.contains(temp.toString()), "server path in message: " + message);
        assertFalse(message.contains("Exception") || message.contains("\tat ") || message.contains("\n"),
                "stack trace text in message: " + message);
    }

    private void assertStagingHoldsNoFiles() throws IOException {
        assertTrue(unpacker.files().isEmpty(), "files kept after a refusal: " + unpacker.files());
        if (Files.exists(staging)) {
            try (Stream<Path> left = Files.list(staging)) {
                assertEquals(List.of(), left.toList(), "staged files left after a refusal");
            }
        }
    }

    // ---- paths ----

    @ParameterizedTest
    @ValueSource(strings = {"../../etc/passwd", "logs/../../x", "..", "a/..", "..\\..\\windows\\win.ini"})
    void refusesEntriesThatEscapeTheBundle(String name) throws Exception {
        BundleRejectedException zip = refused(Kind.UNSAFE_PATH, "bundle.zip", zip("ok.txt", "fine", name, "owned"));
        assertTrue(zip.getMessage().contains("escapes the bundle"), zip.getMessage());

        BundleRejectedException tar = refused(Kind.UNSAFE_PATH, "bundle.tar", tar("ok.txt", "fine", name, "owned"));
        assertTrue(tar.getMessage().contains("escapes the bundle"), tar.getMessage());
    }

    @Test
    void refusesAnEscapeHiddenInAPaxPath() throws Exception {
        String name = "../" + "x".repeat(150) + "/owned.txt"; // too long for the ustar field: written as a PAX path

        refused(Kind.UNSAFE_PATH, "bundle.tgz", tgz("ok.txt", "fine", name, "owned"));
    }

    @Test
    void explainsAZipSlipNamingTheEntryAndTheArchive() throws Exception {
        BundleRejectedException e = refused(Kind.UNSAFE_PATH, "bundle.zip", zip("../../etc/passwd", "root:x:0:0"));

        assertEquals("archive entry `../../etc/passwd` in `bundle.zip` escapes the bundle: refused", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "C:\\Windows\\x", "C:/Windows/x", "c:relative", "\\\\server\\share\\x", "//x"})
    void refusesAbsoluteEntries(String name) throws Exception {
        BundleRejectedException zip = refused(Kind.UNSAFE_PATH, "bundle.zip", zip(name, "owned"));
        assertTrue(zip.getMessage().contains("absolute path"), zip.getMessage());

        BundleRejectedException tar = refused(Kind.UNSAFE_PATH, "bundle.tar", tar(name, "owned"));
        assertTrue(tar.getMessage().contains("absolute path"), tar.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bell\u0007.txt", "nul\u0000.txt", "c1\u0085.txt", "rlo-\u202Egnp.exe", "isolate\u2066.txt",
            "dir/\u007F", "."})
    void refusesEntriesWithNamesThatAreNotAccepted(String name) throws Exception {
        refused(Kind.BAD_NAME, "bundle.zip", zip(name, "x"));
    }

    @Test
    void refusesAnEntryPathOver1024Characters() throws Exception {
        String name = ("d".repeat(200) + "/").repeat(6) + "x.log";

        refused(Kind.BAD_NAME, "bundle.zip", zip(name, "x"));
    }

    // ---- links and special files ----

    @Test
    void refusesASymlinkInAZip() throws Exception {
        BundleRejectedException e = refused(Kind.LINK, "bundle.zip", ArchiveFixtures.zipWithSymlink("lib/libcudnn.so", "/etc/shadow"));

        assertTrue(e.getMessage().startsWith("archive entry `lib/libcudnn.so` in `bundle.zip` is a symbolic link"), e.getMessage());
    }

    @Test
    void refusesASymlinkInATar() throws Exception {
        BundleRejectedException e = refused(Kind.LINK, "bundle.tar", tarOf(List.of(TarItem.file("ok.txt", "ok"),
                TarItem.special("passwd", TarConstants.LF_SYMLINK, "/etc/passwd"))));

        assertTrue(e.getMessage().contains("symbolic link (to `/etc/passwd`)"), e.getMessage());
    }

    @Test
    void refusesAHardLinkInATar() throws Exception {
        BundleRejectedException e = refused(Kind.LINK, "bundle.tar", tarOf(List.of(
                TarItem.special("shadow", TarConstants.LF_LINK, "/etc/shadow"))));

        assertTrue(e.getMessage().contains("hard link"), e.getMessage());
    }

    static Stream<Arguments> specialTarEntries() {
        return Stream.of(Arguments.of(TarConstants.LF_CHR, "character device"), Arguments.of(TarConstants.LF_BLK, "block device"),
                Arguments.of(TarConstants.LF_FIFO, "FIFO"));
    }

    @ParameterizedTest
    @MethodSource("specialTarEntries")
    void refusesDevicesAndFifosInATar(byte flag, String what) throws Exception {
        BundleRejectedException e = refused(Kind.SPECIAL_FILE, "bundle.tgz", gzip(tarOf(List.of(TarItem.special("dev/x", flag, null)))));

        assertTrue(e.getMessage().contains(what), e.getMessage());
    }

    @Test
    void refusesASparseFileInATar() throws Exception {
        TarArchiveEntry sparse = new TarArchiveEntry("disk.img");
        sparse.addPaxHeader("GNU.sparse.major", "1");
        sparse.addPaxHeader("GNU.sparse.minor", "0");
        sparse.addPaxHeader("GNU.sparse.realsize", "1000000000");
        sparse.setSize(512);

        byte[] data = Arrays.copyOf("1\n0\n512\n".getBytes(UTF_8), 512);

        refused(Kind.SPECIAL_FILE, "bundle.tar", tarOf(List.of(new TarItem(sparse, data))));
    }

    @Test
    void refusesADeviceInAZip() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(bytes)) {
            ZipArchiveEntry fifo = new ZipArchiveEntry("pipe");
            fifo.setUnixMode(0010644);
            zip.putArchiveEntry(fifo);
            zip.closeArchiveEntry();
        }

        refused(Kind.SPECIAL_FILE, "bundle.zip", bytes.toByteArray());
    }

    // ---- bombs and limits ----

    @Test
    void refusesAZipBombAfterWritingLittleMoreThanTheGrace() throws Exception {
        Path bomb = uploads.resolve("bomb.zip");
        ArchiveFixtures.writeZipBomb(bomb, "zeros.bin", 1024);
        assertTrue(Files.size(bomb) < 2 * MiB, "the bomb should be small: " + Files.size(bomb));

        BundleRejectedException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(BundleRejectedException.class, () -> unpacker.add("bomb.zip", bomb, true)));

        assertEquals(Kind.RATIO, e.kind());
        assertEquals("`bomb.zip` expands beyond 100:1 (entry `zeros.bin`): refused as a possible zip bomb", e.getMessage());
        long grace = UnpackLimits.defaults().ratioGraceBytes();
        assertTrue(unpacker.peakStagedBytes() <= 2 * grace, "staged " + unpacker.peakStagedBytes() + " bytes before refusing");
        assertStagingHoldsNoFiles();
    }

    @Test
    void refusesAGzipBombAndATgzBomb() throws Exception {
        byte[] zeros = new byte[(int) (64 * MiB)];
        byte[] gz = gzip(zeros);

        refused(Kind.RATIO, "zeros.log.gz", gz);
        assertTrue(unpacker.peakStagedBytes() <= 2 * UnpackLimits.defaults().ratioGraceBytes(), "peak " + unpacker.peakStagedBytes());

        refused(Kind.RATIO, "zeros.tgz", gzip(tar(entries("zeros.bin", zeros))));
    }

    @Test
    void refusesABombNestedInAZip() throws Exception {
        Path bomb = uploads.resolve("inner.zip");
        ArchiveFixtures.writeZipBomb(bomb, "zeros.bin", 64);
        byte[] inner = Files.readAllBytes(bomb);

        BundleRejectedException e = refused(Kind.RATIO, "outer.zip", zip(entries("a/inner.zip", inner, "b/inner.zip", inner)));

        assertTrue(e.getMessage().startsWith("`outer.zip/a/inner.zip` expands beyond 100:1 (entry `zeros.bin`)"), e.getMessage());
    }

    @Test
    void refusesArchivesNestedDeeperThanTheLimit() throws Exception {
        byte[] archive = zip("bottom.txt", "x");
        for (int level = 4; level >= 2; level--) {
            archive = zip(entries("level" + level + ".zip", archive));
        }

        BundleRejectedException e = refused(Kind.TOO_DEEP, "level1.zip", archive);

        assertEquals("`level1.zip/level2.zip/level3.zip/level4.zip` nests archives more than 3 levels deep: refused; "
                + "unpack the inner archives and upload their files", e.getMessage());
    }

    @Test
    void refusesAChainOfGzipsDeeperThanTheLimit() throws Exception {
        byte[] data = "x".getBytes(UTF_8);
        for (int i = 0; i < 4; i++) {
            data = gzip(data);
        }

        refused(Kind.TOO_DEEP, "x.gz", data);
    }

    @Test
    void refusesMoreFilesThanTheLimit() throws Exception {
        useLimits(new UnpackLimits(MiB, 3, 3, 100, MiB));

        BundleRejectedException e = refused(Kind.TOO_MANY_FILES, "many.zip", zip("1", "a", "2", "b", "3", "c", "4", "d"));

        assertEquals("the bundle holds more than 3 files (reached at `many.zip/4`), the most one bundle may hold: refused", e.getMessage());
    }

    @Test
    void refusesMoreEntriesThanTheLimitBeforeParsingTheCentralDirectory() throws Exception {
        useLimits(new UnpackLimits(MiB, 3, 3, 100, MiB));
        Object[] folders = new Object[14];
        for (int i = 0; i < 7; i++) {
            folders[2 * i] = "dir" + i + "/";
            folders[2 * i + 1] = "";
        }

        refused(Kind.TOO_MANY_FILES, "dirs.zip", zip(folders));
        refused(Kind.TOO_MANY_FILES, "dirs.tar", tar(folders));
    }

    @Test
    void refusesABundleLargerThanTheTotalLimitAcrossUploads() throws Exception {
        useLimits(new UnpackLimits(MiB, 100, 3, 100, MiB));
        byte[] random = new byte[(int) (MiB * 6 / 10)];
        new Random(1).nextBytes(random);
        unpacker.add("first.bin", write(uploads, "first.bin", random), false);

        Path second = write(uploads, "second.zip", zip(entries("a.bin", random)));
        BundleRejectedException e = assertThrows(BundleRejectedException.class, () -> unpacker.add("second.zip", second, false));

        assertEquals(Kind.TOO_LARGE, e.kind());
        assertEquals("`second.zip` makes the bundle expand beyond 1 MiB (at entry `a.bin`), the most one bundle may hold: refused",
                e.getMessage());
        assertEquals(List.of("first.bin"), unpacker.files().stream().map(StagedFile::path).toList(), "the first upload stays");
        try (Stream<Path> left = Files.list(staging)) {
            assertEquals(1, left.count(), "only the first upload's file stays staged");
        }
    }

    @Test
    void boundsTheDecompressedTarStreamEvenWhereNoFileIsWritten() throws Exception {
        useLimits(new UnpackLimits(MiB, 100, 3, 1_000_000, MiB));
        // A volume label carrying 4 MiB of data: skipped, not staged, so only the stream cap can see it.
        TarArchiveEntry label = new TarArchiveEntry("label", (byte) 'V', true);
        label.setSize(4 * MiB);

        refused(Kind.TOO_LARGE, "x.tgz", gzip(tarOf(List.of(new TarItem(label, new byte[(int) (4 * MiB)])))));
    }

    // ---- damage ----

    @Test
    void refusesATruncatedZip() throws Exception {
        byte[] zip = zip("a.txt", "alpha", "b.txt", "beta".repeat(100));

        int second = indexOf(zip, new byte[] {'P', 'K', 3, 4}, 1);

        assertEquals("`logs.zip` is truncated or corrupt (unexpected end of archive after entry `a.txt`)",
                refused(Kind.CORRUPT, "logs.zip", Arrays.copyOf(zip, second)).getMessage());
        assertEquals("`logs.zip` is truncated or corrupt (unexpected end of archive in entry `b.txt`)",
                refused(Kind.CORRUPT, "logs.zip", Arrays.copyOf(zip, second + 40)).getMessage());
        assertEquals("`logs.zip` is truncated or corrupt (its central directory, after entry `b.txt`, is damaged or cut off)",
                refused(Kind.CORRUPT, "logs.zip", Arrays.copyOf(zip, zip.length - 30)).getMessage());
    }

    @Test
    void refusesAStreamedZipWithoutItsCentralDirectory() throws Exception {
        byte[] zip = ArchiveFixtures.zipStreamedZip64("a.txt", "alpha", "b.txt", "beta");
        int central = lastIndexOf(zip, new byte[] {'P', 'K', 1, 2});

        assertEquals("`s.zip` is truncated or corrupt (its central directory is missing or damaged; the file may have been cut off)",
                refused(Kind.CORRUPT, "s.zip", Arrays.copyOf(zip, central)).getMessage());
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        for (int i = from; i <= haystack.length - needle.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    @Test
    void refusesATarCutAtARecordBoundary() throws Exception {
        byte[] tar = tar("a.txt", "alpha", "b.txt", "beta");

        BundleRejectedException e = refused(Kind.CORRUPT, "logs.tar", Arrays.copyOf(tar, 1024));

        assertEquals("`logs.tar` is truncated or corrupt (unexpected end of archive after entry `a.txt`)", e.getMessage());
    }

    @Test
    void refusesATarCutInsideAHeaderOrInsideData() throws Exception {
        byte[] tar = tar("a.txt", "alpha", "b.txt", "beta".repeat(300));

        refused(Kind.CORRUPT, "logs.tar", Arrays.copyOf(tar, 1500));
        refused(Kind.CORRUPT, "logs.tar", Arrays.copyOf(tar, 2048));
    }

    @Test
    void refusesATarWithABadHeaderChecksum() throws Exception {
        byte[] tar = tar("a.txt", "alpha", "b.txt", "beta");
        tar[1024 + 3] ^= 0x20; // in the second header's name

        BundleRejectedException e = refused(Kind.CORRUPT, "logs.tar", tar);

        assertEquals("`logs.tar` is truncated or corrupt (bad header checksum after entry `a.txt`)", e.getMessage());
    }

    @Test
    void refusesATruncatedGzipAndTgz() throws Exception {
        byte[] text = "line of a log\n".repeat(2000).getBytes(UTF_8);
        byte[] gz = gzip(text);
        byte[] tgz = tgz("a.log", "alpha", "b.log", new String(text, UTF_8));

        refused(Kind.CORRUPT, "train.log.gz", Arrays.copyOf(gz, gz.length / 2));
        refused(Kind.CORRUPT, "train.log.gz", Arrays.copyOf(gz, gz.length - 4)); // the trailer's length, not the data
        refused(Kind.CORRUPT, "logs.tgz", Arrays.copyOf(tgz, tgz.length - 9));
    }

    @Test
    void refusesAZipEntryWithABadCrc() throws Exception {
        byte[] zip = zip("a.txt", "stored? no, deflated but that is fine");
        // The CRC in the central directory: 16 bytes into the record.
        int central = lastIndexOf(zip, new byte[] {'P', 'K', 1, 2});
        zip[central + 16] ^= 1;

        BundleRejectedException e = refused(Kind.CORRUPT, "logs.zip", zip);

        assertEquals("`logs.zip` is truncated or corrupt (bad CRC for entry `a.txt`)", e.getMessage());
    }

    @Test
    void refusesEncryptedAndUnsupportedZipEntries() throws Exception {
        byte[] encrypted = zip("a.txt", "secret");
        setFlagAndMethod(encrypted, 1, -1);
        BundleRejectedException e = refused(Kind.CORRUPT, "secret.zip", encrypted);
        assertTrue(e.getMessage().contains("encrypted"), e.getMessage());

        byte[] lzma = zip("a.txt", "lzma");
        setFlagAndMethod(lzma, 0, 14);
        e = refused(Kind.CORRUPT, "lzma.zip", lzma);
        assertTrue(e.getMessage().contains("compression method"), e.getMessage());
    }

    /** Sets flag bits and, unless -1, the method of the first entry, in its local header and its central record. */
    private static void setFlagAndMethod(byte[] zip, int flagBits, int method) {
        ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        int central = lastIndexOf(zip, new byte[] {'P', 'K', 1, 2});
        b.putShort(6, (short) (b.getShort(6) | flagBits));
        b.putShort(central + 8, (short) (b.getShort(central + 8) | flagBits));
        if (method >= 0) {
            b.putShort(8, (short) method);
            b.putShort(central + 10, (short) method);
        }
    }

    private static int lastIndexOf(byte[] haystack, byte[] needle) {
        for (int i = haystack.length - needle.length; i >= 0; i--) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    @Test
    void refusesAnOversizedLongNameHeaderWithoutReadingItIntoMemory() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
            // What LONGFILE_GNU writes for a 2 MiB name, written directly: the writer is slow on huge names.
            TarArchiveEntry longName = new TarArchiveEntry("././@LongLink", TarConstants.LF_GNUTYPE_LONGNAME);
            longName.setSize(2 << 20);
            tar.putArchiveEntry(longName);
            tar.write("n".repeat(2 << 20).getBytes(UTF_8));
            tar.closeArchiveEntry();
            TarArchiveEntry entry = new TarArchiveEntry("n");
            tar.putArchiveEntry(entry);
            tar.closeArchiveEntry();
        }

        BundleRejectedException e = refused(Kind.CORRUPT, "long.tgz", gzip(bytes.toByteArray()));

        assertTrue(e.getMessage().contains("long-name or PAX header"), e.getMessage());
    }

    @Test
    void skipsAGzipHeaderNameOfManyMegabytes() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(new byte[] {0x1f, (byte) 0x8b, 8, 8, 0, 0, 0, 0, 0, 3});
        bytes.write("n".repeat(8 << 20).getBytes(UTF_8));
        bytes.write(0);
        byte[] body = gzip("payload".getBytes(UTF_8));
        bytes.write(body, 10, body.length - 10);

        unpacker.add("huge-name.gz", write(uploads, "h.gz", bytes.toByteArray()), true);

        assertEquals(List.of("huge-name"), unpacker.files().stream().map(StagedFile::path).toList());
    }

    // ---- uploads that are not what they say ----

    @Test
    void refusesAnEmptyArchiveUpload() throws Exception {
        BundleRejectedException e = refused(Kind.EMPTY, "empty.zip", new byte[0]);

        assertEquals("`empty.zip` is empty (0 bytes): there is nothing in it to read", e.getMessage());
    }

    @Test
    void keepsAnEmptyLogAsAnArtifactAloneOrBesideOthers() throws Exception {
        unpacker.add("empty.log", write(uploads, "e.log", new byte[0]), true);
        assertEquals(List.of("empty.log"), unpacker.files().stream().map(StagedFile::path).toList());
        assertEquals(0L, unpacker.files().getFirst().size());

        try (BundleUnpacker two = new BundleUnpacker(UnpackLimits.defaults(), temp.resolve("staging-two"))) {
            two.add("console.log", write(uploads, "c.log", new byte[0]), false);
            two.add("env.txt", write(uploads, "env.txt", "os: Ubuntu 22.04\n".getBytes(UTF_8)), false);
            assertEquals(List.of("console.log", "env.txt"), two.files().stream().map(StagedFile::path).toList());
        }
    }

    @Test
    void refusesAnArchiveWithNoFiles() throws Exception {
        refused(Kind.EMPTY, "empty.zip", zip(new java.util.LinkedHashMap<>()));
        refused(Kind.EMPTY, "folders.zip", zip("a/", "", "b/", ""));
    }

    @Test
    void refusesABinaryNamedLikeAZip() throws Exception {
        byte[] binary = new byte[4096];
        new Random(7).nextBytes(binary);
        binary[0] = 0x4d; // 'M', as in an .exe

        BundleRejectedException e = refused(Kind.NOT_AN_ARCHIVE, "x.zip", binary);

        assertEquals("`x.zip` is not a zip archive (its content does not start with a zip signature); "
                + "upload the real archive, or rename the file if it is not meant to be one", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"x.tar", "x.tgz", "x.tar.gz", "x.gz", "X.ZIP"})
    void refusesTextNamedLikeAnArchive(String name) throws Exception {
        refused(Kind.NOT_AN_ARCHIVE, name, "just a log line\n".repeat(100).getBytes(UTF_8));
    }

    @Test
    void refusesAnArchiveThatIsOnlyASignature() throws Exception {
        refused(Kind.CORRUPT, "x.zip", new byte[] {'P', 'K', 3, 4});
        refused(Kind.CORRUPT, "x.gz", new byte[] {0x1f, (byte) 0x8b, 8});
    }

    @Test
    void refusesAGoodFileAfterABadOneOnlyForTheBadOne() throws Exception {
        unpacker.add("good.zip", write(uploads, "good.zip", zip("a.txt", "a")), false);
        Path bad = write(uploads, "bad.zip", zip("../x", "x"));

        assertThrows(BundleRejectedException.class, () -> unpacker.add("bad.zip", bad, false));

        assertEquals(List.of("good.zip/a.txt"), unpacker.files().stream().map(StagedFile::path).toList());
    }
}
