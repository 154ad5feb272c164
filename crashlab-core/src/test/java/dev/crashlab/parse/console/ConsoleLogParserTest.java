package dev.crashlab.parse.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.fact.PythonException;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Golden-file tests of the console-log parser over its fixtures, the hostile ones included. */
class ConsoleLogParserTest {

    static final ConsoleLogParser PARSER = new ConsoleLogParser();
    static final Path DIR = GoldenFiles.FIXTURES.resolve("console-log");
    static final long SEED = 0xC0FFEE;

    /** Writes the hostile fixtures (deterministic: the same bytes every run), so they need not be edited by hand. */
    @BeforeAll
    static void writeHostileFixtures() throws IOException {
        String sample = "2023-01-01 00:00:00.000001: E tensorflow/core/kernels/conv_ops.cc:1106] could not create cudnn handle:"
                + " CUDNN_STATUS_NOT_INITIALIZED\r\nProcess finished with exit code -1073741819 (0xC0000005)\r\n"
                + "Ünïcödé path C:\\Users\\Jürgen\\x.py — “quoted”\r\n";
        byte[] le = sample.getBytes(StandardCharsets.UTF_16LE);
        writeIfChanged(DIR.resolve("hostile-utf16le-bom.txt"), concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, le));
        writeIfChanged(DIR.resolve("hostile-utf16le-nobom.txt"), le);
        writeIfChanged(DIR.resolve("hostile-cp1252.txt"), ("Traceback (most recent call last):\r\n"
                + "  File \"C:\\Users\\Jürgen\\Übung\\train.py\", line 7, in <module>\r\n"
                + "OSError: [WinError 126] Das angegebene Modul wurde nicht gefunden. Error loading \"C:\\Programme\\Python\\torch\\lib\\caffe2_nvrtc.dll\" or one of its dependencies.\r\n")
                .getBytes(Charset.forName("windows-1252")));
        Random random = new Random(SEED);
        byte[] garbage = new byte[64 * 1024];
        random.nextBytes(garbage);
        byte[] marker = "\nKilled\nCUDA_ERROR_OUT_OF_MEMORY\n".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(marker, 0, garbage, 32 * 1024, marker.length);
        writeIfChanged(DIR.resolve("hostile-binary-garbage.log"), garbage);
        // one 1 MiB line (a progress bar that never printed a newline), then a line that must still be read
        StringBuilder huge = new StringBuilder(1 << 20);
        while (huge.length() < (1 << 20)) {
            huge.append("\r 42%|████▏     | 4242/10000 [00:42<00:57, 99.9it/s] (((((((((([[[[[ File \"x\", line 9 ");
        }
        writeIfChanged(DIR.resolve("hostile-huge-line.log"), (huge.toString().replace('\r', ' ')
                + "\nSegmentation fault (core dumped)\n").getBytes(StandardCharsets.UTF_8));
    }

    static Stream<Path> fixtures() {
        return GoldenFiles.fixtures("console-log").stream();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void matchesGoldenFile(Path fixture) throws IOException {
        GoldenFiles.check(PARSER, ArtifactType.CONSOLE_LOG, fixture);
    }

    @Test
    void readsTheLineAfterAHugeLine() throws IOException {
        ParseResult r = PARSER.parse(new ParseInput("x", ArtifactType.CONSOLE_LOG, DIR.resolve("hostile-huge-line.log")));
        assertThat(r.facts()).filteredOn(ExitStatus.class::isInstance).singleElement()
                .satisfies(f -> assertThat(((ExitStatus) f).name()).isEqualTo("SIGSEGV"));
        assertThat(r.problems()).hasSize(1);
    }

    @Test
    void chainedExceptionsAreOneFactEach() throws IOException {
        ParseResult r = PARSER.parse(new ParseInput("x", ArtifactType.CONSOLE_LOG, DIR.resolve("keras-chained-traceback.txt")));
        List<Fact> exceptions = r.facts().stream().filter(PythonException.class::isInstance).toList();
        assertThat(exceptions).extracting(f -> ((PythonException) f).type())
                .containsExactly("ImportError", "ImportError", "KeyboardInterrupt");
        assertThat(((PythonException) exceptions.get(0)).frames()).hasSize(2);
    }

    @Test
    void keepsOnlyTheInnermostFrames(@TempDir Path tmp) throws IOException {
        StringBuilder log = new StringBuilder("Traceback (most recent call last):\n");
        for (int i = 1; i <= 500; i++) {
            log.append("  File \"r.py\", line ").append(i).append(", in f").append(i).append("\n    f()\n");
        }
        log.append("RecursionError: maximum recursion depth exceeded\n");
        Path file = tmp.resolve("deep.txt");
        Files.writeString(file, log);
        PythonException e = (PythonException) PARSER.parse(new ParseInput("deep.txt", ArtifactType.TEXT, file)).facts().get(0);
        assertThat(e.frames()).hasSize(PythonException.MAX_FRAMES);
        assertThat(e.frames().get(PythonException.MAX_FRAMES - 1).line()).isEqualTo(500);
    }

    @Test
    void joinsAWinErrorPathWrappedOntoTheNextLine(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("wrapped.txt");
        Files.writeString(file, "12:00:01-000001 ERROR    Could not load torch: [WinError 126] The specified module could not be found. Error loading\n"
                + "                         \"D:\\app\\venv\\lib\\site-packages\\torch\\lib\\shm.dll\" or one of its dependencies.\n");
        ParseResult r = PARSER.parse(new ParseInput("wrapped.txt", ArtifactType.TEXT, file));
        LibraryLoadFailure f = (LibraryLoadFailure) r.facts().stream().filter(LibraryLoadFailure.class::isInstance).findFirst().orElseThrow();
        assertThat(f.library()).isEqualTo("shm.dll");
        assertThat(f.sources().get(0).text()).contains("WinError 126", "shm.dll");
    }

    @Test
    void readsALibraryNameInDoubleQuotes(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("quoted.txt");
        Files.writeString(file, "pygpu.gpuarray.GpuArrayException: b'Could not load \"nvrtc64_102.dll\": The specified module could not be found.\\r\\n'\n"
                + "Could not load \"libcublas.so.9.1\"\n");
        ParseResult r = PARSER.parse(new ParseInput("quoted.txt", ArtifactType.TEXT, file));
        assertThat(r.facts()).filteredOn(LibraryLoadFailure.class::isInstance).map(LibraryLoadFailure.class::cast)
                .extracting(LibraryLoadFailure::library, LibraryLoadFailure::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("nvrtc64_102.dll", "The specified module could not be found."),
                        org.assertj.core.groups.Tuple.tuple("libcublas.so.9.1", null));
    }

    @Test
    void readsTheToolkitOfNvccOutputPastedIntoALog(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("nvcc.txt");
        Files.writeString(file, "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcufft.so.10: cannot open shared object file\n"
                + "$ nvcc -V\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131\n");
        ParseResult r = PARSER.parse(new ParseInput("nvcc.txt", ArtifactType.TEXT, file));
        assertThat(r.facts()).filteredOn(VersionFact.class::isInstance).map(VersionFact.class::cast)
                .extracting(VersionFact::component, VersionFact::version, VersionFact::origin)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("cuda-toolkit", "12.4", "log: nvcc -V"));
    }

    @Test
    void readsBothFormsOfPyTorchsCudnnRefusal(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("cudnn.txt");
        Files.writeString(file, "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7005 but linked against 7104\n"
                + "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found runtime version (9, 0, 2).\n"
                + "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 90200 but linked against 8907\n");
        ParseResult r = PARSER.parse(new ParseInput("cudnn.txt", ArtifactType.TEXT, file));
        assertThat(r.facts()).filteredOn(VersionFact.class::isInstance).map(VersionFact.class::cast)
                .extracting(VersionFact::version, VersionFact::origin)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("7.0.5", "log: compiled with"), org.assertj.core.groups.Tuple.tuple("7.1.4", "log: runtime"),
                        org.assertj.core.groups.Tuple.tuple("9.1.0", "log: compiled with"), org.assertj.core.groups.Tuple.tuple("9.0.2", "log: runtime"),
                        org.assertj.core.groups.Tuple.tuple("9.2.0", "log: compiled with"), org.assertj.core.groups.Tuple.tuple("8.9.7", "log: runtime"));
    }

    @Test
    void repeatedLinesBecomeOneFactWithBoundedSources(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("repeat.txt");
        Files.writeString(file, "Killed\n".repeat(1000));
        ParseResult r = PARSER.parse(new ParseInput("repeat.txt", ArtifactType.TEXT, file));
        assertThat(r.facts()).singleElement().satisfies(f -> assertThat(f.sources()).hasSize(FactSink.MAX_SOURCES));
    }

    @Test
    void manyDistinctFactsAreCappedWithAProblem(@TempDir Path tmp) throws IOException {
        Path file = tmp.resolve("many.txt");
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < FactSink.MAX_FACTS + 100; i++) {
                out.write(("E0101 00:00:00.000000 1 x.cc:1] error number " + i + "\n").getBytes(StandardCharsets.US_ASCII));
            }
        }
        ParseResult r = PARSER.parse(new ParseInput("many.txt", ArtifactType.TEXT, file));
        assertThat(r.facts()).hasSize(FactSink.MAX_FACTS);
        assertThat(r.problems()).singleElement().asString().contains("100 more were dropped");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void writeIfChanged(Path file, byte[] bytes) throws IOException {
        if (!Files.exists(file) || !Arrays.equals(Files.readAllBytes(file), bytes)) {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        }
    }
}
