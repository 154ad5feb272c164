package dev.crashlab.sniff;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the sniffer against synthetic samples: the fixture files under {@code fixtures/sniff/<TYPE>/}
 * (each must get the type its folder names, under any encoding and any file name) and the inline cases
 * below, which cover binary input and the rules where the file name or the order of formats matters.
 */
class ArtifactSnifferTest {

    private static final String FIXTURES = "fixtures/sniff";
    private final ArtifactSniffer sniffer = new ArtifactSniffer();

    static Stream<Arguments> fixtures() {
        URL url = ArtifactSnifferTest.class.getClassLoader().getResource(FIXTURES);
        if (url == null) {
            throw new IllegalStateException("test resource folder " + FIXTURES + " is missing");
        }
        try (Stream<Path> files = Files.walk(Path.of(url.toURI()))) {
            List<Arguments> out = new ArrayList<>();
            files.filter(Files::isRegularFile).sorted().forEach(f -> out.add(Arguments.of(
                    f.getParent().getFileName() + "/" + f.getFileName(), f,
                    ArtifactType.valueOf(f.getParent().getFileName().toString()))));
            return out.stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixtureGetsTheTypeOfItsFolder(String name, Path file, ArtifactType expected) throws IOException {
        assertEquals(expected, sniffer.sniff(file.getFileName().toString(), file), name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixtureTypeDoesNotDependOnItsName(String name, Path file, ArtifactType expected) throws IOException {
        // The content alone must decide every fixture; names only break ties (see the inline cases).
        assertEquals(expected, sniffer.sniff("upload.bin", file), name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixtureTypeSurvivesReencoding(String name, Path file, ArtifactType expected) throws IOException {
        String text = Files.readString(file, UTF_8);
        Encodings.variants(text).forEach((encoding, bytes) ->
                assertEquals(expected, sniffer.sniff(file.getFileName().toString(), bytes), name + " as " + encoding));
    }

    @Test
    void everyTypeButEvtxAndBinaryHasAFixtureFolder() {
        List<String> covered = fixtures().map(a -> ((ArtifactType) a.get()[2]).name()).distinct().toList();
        for (ArtifactType t : ArtifactType.values()) {
            if (t != ArtifactType.EVTX && t != ArtifactType.BINARY) {
                assertTrue(covered.contains(t.name()), "no fixture folder for " + t);
            }
        }
    }

    static Stream<Arguments> inlineCases() {
        String table = """
                +-----------------------------------------------------------------------------+
                | NVIDIA-SMI 470.103.01   Driver Version: 470.103.01   CUDA Version: 11.4     |
                |-------------------------------+----------------------+----------------------+
                """;
        String traceback = """
                Traceback (most recent call last):
                  File "train.py", line 12, in <module>
                RuntimeError: CUDA error: an illegal memory access was encountered
                """;
        String collectEnv = """
                Collecting environment information...
                PyTorch version: 2.0.1+cu118
                Is debug build: False
                """;
        String envListing = "os: Windows 10\npython: 3.9.13\ngpu: RTX 3060 Laptop\n";
        String prose = "The card crashed again after about an hour.\nI will try a lower clock tomorrow.\n";
        String dotnetEvent = """
                Log Name:      Application
                Source:        .NET Runtime
                Event ID:      1026
                Description:
                Application: Trainer.exe
                Exception Info: System.InvalidOperationException: Sequence contains no elements
                System.InvalidOperationException: Sequence contains no elements
                   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)
                """;
        return Stream.of(
                // --- bytes: EVTX and binary ---
                Arguments.of("evtx file header", "logs/System.evtx", evtx(true, true), ArtifactType.EVTX),
                Arguments.of("evtx with a damaged file header but an intact first chunk", "x.evtx", evtx(false, true), ArtifactType.EVTX),
                Arguments.of("evtx cut after its magic", "x.evtx", "ElfFile\0".getBytes(ISO_8859_1), ArtifactType.EVTX),
                Arguments.of("evtx magic under any name", "notes.txt", evtx(true, false), ArtifactType.EVTX),
                Arguments.of("png image", "screenshot.png", png(), ArtifactType.BINARY),
                Arguments.of("zip archive (.keras)", "model.keras", zipHeader(), ArtifactType.BINARY),
                Arguments.of("UTF-32 text is not taken for UTF-16", "a.txt",
                        "Killed\n".getBytes(java.nio.charset.Charset.forName("UTF-32LE")), ArtifactType.BINARY),
                // --- degenerate text ---
                Arguments.of("empty file", "empty.txt", new byte[0], ArtifactType.TEXT),
                Arguments.of("UTF-8 BOM only", "a.txt", new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, ArtifactType.TEXT),
                Arguments.of("UTF-16LE BOM only", "a.txt", new byte[] {(byte) 0xFF, (byte) 0xFE}, ArtifactType.TEXT),
                Arguments.of("white space only", "a.txt", " \n\t\r\n\n".getBytes(UTF_8), ArtifactType.TEXT),
                Arguments.of("console log followed by the NUL padding a crash leaves", "run.txt",
                        Encodings.concat(traceback.getBytes(UTF_8), new byte[3000]), ArtifactType.CONSOLE_LOG),
                Arguments.of("cp1252 text (not UTF-8) with a traceback", "a.txt",
                        ("Fehler in Schicht \u00fcber \u00e4u\u00dferem Block\n" + traceback).getBytes(ISO_8859_1),
                        ArtifactType.CONSOLE_LOG),
                Arguments.of("UTF-16LE without BOM cut at an odd byte", "a.txt", oddCut(traceback.getBytes(UTF_16LE)),
                        ArtifactType.CONSOLE_LOG),
                Arguments.of("head cut inside a multi-byte UTF-8 character", "a.txt",
                        Arrays.copyOf((traceback + "\u00e9").getBytes(UTF_8), traceback.getBytes(UTF_8).length + 1),
                        ArtifactType.CONSOLE_LOG),
                // --- the earliest format wins ---
                Arguments.of("collect_env pasted below a traceback", "issue.txt",
                        (traceback + collectEnv).getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("traceback pasted below collect_env", "issue.txt",
                        (collectEnv + traceback).getBytes(UTF_8), ArtifactType.TORCH_COLLECT_ENV),
                Arguments.of(".NET stack trace inside event details text", "events.log",
                        dotnetEvent.getBytes(UTF_8), ArtifactType.EVENTLOG_TEXT),
                // --- the name breaks ties, never against clear content ---
                Arguments.of("table then traceback, named as a console log", "logs/crash.log",
                        (table + traceback).getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("table then traceback, named as nvidia-smi output", "nvidia-smi.txt",
                        (table + traceback).getBytes(UTF_8), ArtifactType.NVIDIA_SMI_TABLE),
                Arguments.of("environment listing named crash.log", "crash.log",
                        envListing.getBytes(UTF_8), ArtifactType.ENV_KEY_VALUE),
                Arguments.of("prose named crash.log", "c001/crash.log", prose.getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("prose named train_output.txt", "train_output.txt", prose.getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("prose named dmesg.txt", "dmesg.txt", prose.getBytes(UTF_8), ArtifactType.KERNEL_LOG),
                Arguments.of("prose named requirements.txt", "requirements.txt", prose.getBytes(UTF_8), ArtifactType.PIP_FREEZE),
                Arguments.of("prose named events.log", "events.log", prose.getBytes(UTF_8), ArtifactType.TEXT),
                Arguments.of("prose with no name", null, prose.getBytes(UTF_8), ArtifactType.TEXT),
                // --- a few lines of another format inside a console log ---
                Arguments.of("two pip freeze lines among console lines", "out.txt",
                        "GPU not compatible with this build.\ntorch==1.8.0\ntorchvision==0.9.0\nPlease reinstall.\nDone.\n"
                                .getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                // --- a one-line log in "key: value" shape is a message, not a setting ---
                Arguments.of("pip's ERROR line", "out.txt",
                        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
                                .getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("a failed check with its message", "out.txt",
                        "Check failed: error == cudaSuccess (35 vs. 0) CUDA driver version is insufficient\n"
                                .getBytes(UTF_8), ArtifactType.CONSOLE_LOG),
                Arguments.of("a sentence after a short label", "out.txt",
                        ("Loaded runtime library: 5103 (compatibility version 5100) but source was compiled with 4007"
                                + " (compatibility version 4000).  If using a binary install, upgrade your library to match the build.\n").getBytes(UTF_8),
                        ArtifactType.CONSOLE_LOG),
                Arguments.of("one Xid line above a traceback", "a.txt",
                        ("[ 99.1] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n" + traceback + traceback)
                                .getBytes(UTF_8), ArtifactType.CONSOLE_LOG));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inlineCases")
    void inlineCase(String description, String path, byte[] bytes, ArtifactType expected) {
        assertEquals(expected, sniffer.sniff(path, bytes), description);
    }

    @Test
    void readsOnlyTheHeadOfAFile(@TempDir Path dir) throws IOException {
        // A recognisable head followed by megabytes of binary: only the head may count.
        byte[] head = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.2, V12.2.140\n".getBytes(UTF_8);
        byte[] big = Arrays.copyOf(head, 3 * 1024 * 1024);
        Arrays.fill(big, head.length + ArtifactSniffer.HEAD_BYTES, big.length, (byte) 1);
        Path file = dir.resolve("nvcc.txt");
        Files.write(file, big);
        assertEquals(ArtifactType.NVCC_VERSION, sniffer.sniff("nvcc.txt", file));
        assertEquals(ArtifactType.NVCC_VERSION, sniffer.sniff("nvcc.txt", big), "a head array longer than HEAD_BYTES");
    }

    @Test
    void sniffsAnEmptyFile(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("empty"));
        assertEquals(ArtifactType.TEXT, sniffer.sniff("empty", file));
    }

    @Test
    void labelsAreShortAndDistinct() {
        assertEquals(ArtifactType.values().length,
                Arrays.stream(ArtifactType.values()).map(ArtifactType::label).distinct().count());
        for (ArtifactType t : ArtifactType.values()) {
            assertTrue(!t.label().isBlank() && t.label().length() <= 40, t + ": " + t.label());
        }
    }

    /** Builds the first 4 KiB + 8 bytes of an .evtx: file header magic and/or first chunk magic. */
    private static byte[] evtx(boolean fileHeader, boolean chunk) {
        byte[] b = new byte[4096 + 512];
        byte[] header = fileHeader ? "ElfFile\0".getBytes(ISO_8859_1) : "\u00ff\u00ffle\0\0\0\0".getBytes(ISO_8859_1);
        System.arraycopy(header, 0, b, 0, 8);
        b[8] = 1; // oldest chunk 1, a plausible non-zero header field
        if (chunk) {
            System.arraycopy("ElfChnk\0".getBytes(ISO_8859_1), 0, b, 4096, 8);
        }
        return b;
    }

    private static byte[] png() {
        byte[] b = new byte[600];
        byte[] sig = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
        System.arraycopy(sig, 0, b, 0, sig.length);
        for (int i = sig.length; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    private static byte[] zipHeader() {
        byte[] b = new byte[300];
        byte[] sig = {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0};
        System.arraycopy(sig, 0, b, 0, sig.length);
        System.arraycopy("config.json".getBytes(ISO_8859_1), 0, b, 30, 11);
        return b;
    }

    private static byte[] oddCut(byte[] utf16) {
        return Arrays.copyOf(utf16, utf16.length - 1);
    }
}
