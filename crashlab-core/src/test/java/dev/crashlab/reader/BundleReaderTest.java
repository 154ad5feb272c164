package dev.crashlab.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.TextLine;
import dev.crashlab.diagnose.TextLines;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.parse.PastedText;
import dev.crashlab.parse.TextDecoding;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleReaderTest {

    static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/fixtures");
    static final Path CORPUS = Path.of("../shared/corpus");
    /** Corpus files larger than this are left to the benchmarks (the test runs the old path too). */
    static final long CORPUS_MAX = 2L << 20;

    /** The reading before: every parser for the type opened the file itself, then the text window read it again. */
    record OldReading(ArtifactType type, ParseResult parsed, List<TextLine> window) {}

    static OldReading oldReading(String path, Path file) throws IOException {
        ArtifactType type = new ArtifactSniffer().sniff(path, file);
        ParseResult parsed = Parsers.parse(new ParseInput(path, type, file));
        List<TextLine> window = new ArrayList<>();
        if (TextLines.hasText(type)) {
            List<TextLine> head = new ArrayList<>();
            Deque<TextLine> tail = new ArrayDeque<>();
            try (BufferedReader r = TextDecoding.open(file)) {
                long n = 0;
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    n++;
                    TextLine t = new TextLine(path, n, line.length() > TextLines.MAX_LINE ? line.substring(0, TextLines.MAX_LINE) : line);
                    if (n <= TextLines.HEAD_LINES) {
                        head.add(t);
                    } else {
                        tail.addLast(t);
                        if (tail.size() > TextLines.TAIL_LINES) {
                            tail.removeFirst();
                        }
                    }
                }
            }
            window.addAll(head);
            window.addAll(tail);
        }
        return new OldReading(type, parsed, window);
    }

    /**
     * The file as the reader hands it to its parsers: where its head shows a paste's forms (a console's wrap, colour
     * codes, a reply's quotes: {@link PastedText}), the same text with them undone, as {@link BundleReader} undoes them
     * before its one scan (a UTF-16 file first read as UTF-8 there); else the file itself. The old reading is made from
     * this, so that both sides read the same text.
     */
    static Path asTheReaderPresentsIt(String path, Path file) throws IOException {
        ArtifactType type = new ArtifactSniffer().sniff(path, file);
        if (type != ArtifactType.CONSOLE_LOG && type != ArtifactType.TEXT) {
            return file;
        }
        byte[] bytes = Files.readAllBytes(file);
        byte[] head = Arrays.copyOf(bytes, Math.min(bytes.length, ArtifactSniffer.HEAD_BYTES));
        TextDecoding.Detected encoding = TextDecoding.detect(head, head.length);
        if (TextDecoding.isUtf16(encoding)) {
            head = TextDecoding.toUtf8(new ByteArrayInputStream(head), encoding).readAllBytes();
            bytes = TextDecoding.toUtf8(new ByteArrayInputStream(bytes), encoding).readAllBytes();
        }
        PastedText.Form form = PastedText.detect(head, head.length);
        if (!form.any()) {
            return file;
        }
        Path presented = file.resolveSibling("presented-" + file.getFileName());
        try (InputStream cleaned = PastedText.clean(new ByteArrayInputStream(bytes), form)) {
            Files.write(presented, cleaned.readAllBytes());
        }
        return presented;
    }

    static List<Path> files(Path root, long maxSize) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().endsWith(".facts.json"))
                    .filter(p -> {
                        try {
                            return Files.size(p) <= maxSize;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .sorted().toList();
        }
    }

    /** Counts how often each artifact's bytes are opened and how many bytes are read. */
    static final class Counting {
        final AtomicInteger opens = new AtomicInteger();
        long bytes;

        BundleReader.Item item(String path, Path file) throws IOException {
            return new BundleReader.Item(path, null, Files.size(file), () -> {
                opens.incrementAndGet();
                return new java.io.FilterInputStream(Files.newInputStream(file)) {
                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        int n = super.read(b, off, len);
                        if (n > 0) {
                            bytes += n;
                        }
                        return n;
                    }
                };
            });
        }
    }

    @Test
    void onePassGivesWhatEveryParserAndTheWindowGaveReadingSeparately() throws IOException {
        List<Path> files = new ArrayList<>(files(FIXTURES, Long.MAX_VALUE));
        List<Path> corpus = files(CORPUS, CORPUS_MAX);
        if (corpus.isEmpty()) {
            System.out.println("BundleReaderTest: ../shared/corpus absent; fixtures only");
        }
        files.addAll(corpus);
        assertThat(files).hasSizeGreaterThan(20);
        int multiParser = 0;
        for (Path f : files) {
            String path = f.getFileName().toString();
            OldReading old = oldReading(path, f);
            Counting counting = new Counting();
            BundleFacts read = new BundleReader(ReadBudget.defaults()).read(List.of(counting.item(path, f)));
            ArtifactRead a = read.artifacts().getFirst();
            assertThat(a.type()).as(f.toString()).isEqualTo(old.type().name());
            assertThat(a.facts()).as(f.toString()).isEqualTo(old.parsed().facts());
            assertThat(a.problems()).as(f.toString()).isEqualTo(old.parsed().problems());
            assertThat(a.window()).as(f.toString()).isEqualTo(old.window());
            assertThat(counting.opens.get()).as("opens of " + f).isEqualTo(1);
            assertThat(counting.bytes).as("bytes read of " + f).isEqualTo(Files.size(f));
            assertThat(read.budgetHits()).isEmpty();
            if (Parsers.forType(old.type()).size() + (TextLines.hasText(old.type()) ? 1 : 0) > 1) {
                multiParser++;
            }
        }
        assertThat(multiParser).as("files fed to several consumers from one pass").isGreaterThan(5);
    }

    /**
     * The shared scan on hostile text: seeded random logs spliced from every console-log parser's literals and the
     * shapes they wait on (tracebacks, summary tables, ConvolutionParams blocks, open statements), with lines past every
     * cap (8,192 characters, 32 KiB kept, 64 KiB chunks), undecodable bytes, lone {@code \r} and {@code \r\n} at chunk
     * ends, some in UTF-16: the one pass gives what each parser and the window gave reading alone.
     */
    @Test
    void theSharedScanGivesWhatEachParserGaveAloneOnHostileLogs(@TempDir Path dir) throws IOException {
        long seed = Long.getLong("crashlab.test.seed", new java.util.Random().nextLong()); // -Dcrashlab.test.seed=N repeats a run
        java.util.Random r = new java.util.Random(seed);
        List<byte[]> pieces = new ArrayList<>();
        for (String lit : dev.crashlab.parse.console.SharedLineScan.literals(Parsers.forType(ArtifactType.CONSOLE_LOG))) {
            pieces.add(lit.getBytes(StandardCharsets.UTF_8));
        }
        for (String s : List.of("Traceback (most recent call last):", "  File \"train.py\", line 42, in <module>",
                "    x = self.conv1(x)", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 8.00 GiB total capacity;",
                "You can try to repro this exception using the following code snippet. If that doesn't trigger the error,",
                "data = torch.randn([8, 1, 256, 256], dtype=torch.half, device='cuda', requires_grad=True)",
                "net = torch.nn.Conv2d(1, 64, kernel_size=[3, 3], padding=[1, 1], stride=[1, 1], dilation=[1, 1], groups=1)",
                "net = net.cuda().half()", "ConvolutionParams ", "    data_type = CUDNN_DATA_HALF", "    padding = [1, 1, 0]",
                "input: TensorDescriptor 0x7f", "    dimA = 8, 1, 256, 256,", "weight: FilterDescriptor 0x7f", "Pointer addresses: ",
                "Layer (type)                 Output Shape              Param #", "conv2d (Conv2D)              (None, 26, 26, 32)        320",
                "=================================================================", "Total params: 320", "model.fit(x, y, batch_size=64,",
                "    epochs=3)", "BATCH = 32", "optimizer = 'adam'", "2026-11-22 10:00:01.000001: W tensorflow/core/x.cc:82] Allocation of 4 exceeds 10% of free system memory.",
                "Killed", "|   0  NVIDIA GeForce RTX 2070    Off  |", "W ", "E1209 16:36:56.860446 1 a.py:2] bad", "\u00e9", "\u00ff", "\u2028", " ", "#")) {
            pieces.add(s.getBytes(StandardCharsets.UTF_8));
        }
        byte[][] raw = {{'\n'}, {'\r'}, {'\r', '\n'}, {(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0x81}, {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD},
            {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}};
        int consoleTyped = 0;
        for (int run = 0; run < 24; run++) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            if (run % 6 == 0) {
                out.write(0xEF);
                out.write(0xBB);
                out.write(0xBF);
            }
            int target = run % 4 == 0 ? 300_000 : 20_000 + r.nextInt(60_000);
            while (out.size() < target) {
                int k = r.nextInt(10);
                if (k < 5) {
                    out.writeBytes(pieces.get(r.nextInt(pieces.size())));
                } else if (k < 8) {
                    out.writeBytes(raw[r.nextInt(3)]);
                } else if (k < 9) {
                    out.writeBytes(raw[3 + r.nextInt(raw.length - 3)]);
                } else if (r.nextInt(12) == 0) {
                    // a long line: past the 8,192-character cap, sometimes past the 32 KiB kept, with bytes to decode late
                    int n = 8_000 + r.nextInt(r.nextBoolean() ? 2_000 : 90_000);
                    for (int i = 0; i < n; i++) {
                        int c = r.nextInt(500);
                        if (c >= 3 && c < 150) {
                            out.write(0xC3); // é: a character a chunk's end can split
                            out.write(0xA9);
                        } else {
                            out.write(c == 0 ? 0xC3 : c == 1 ? 0x81 : c == 2 ? '=' : 'a' + c % 26);
                        }
                    }
                }
            }
            Path f = dir.resolve("random-" + run + ".log");
            byte[] bytes = out.toByteArray();
            if (run % 8 == 3) {
                // UTF-16 text takes the per-consumer pipes after the shared scan's look at its head
                bytes = new String(bytes, StandardCharsets.UTF_8).getBytes(run % 16 == 3 ? StandardCharsets.UTF_16 : StandardCharsets.UTF_16LE);
            }
            Files.write(f, bytes);
            String path = f.getFileName().toString();
            try {
                OldReading old = oldReading(path, asTheReaderPresentsIt(path, f));
                // types whose parsers all share the scan (a sniffed summary table is read by model-text alone)
                assertThat(old.type()).as("type").isIn(ArtifactType.CONSOLE_LOG, ArtifactType.TEXT, ArtifactType.KERAS_MODEL_SUMMARY);
                if (old.type() != ArtifactType.KERAS_MODEL_SUMMARY) {
                    consoleTyped++;
                }
                ArtifactRead a = new BundleReader(ReadBudget.defaults()).read(List.of(new Counting().item(path, f))).artifacts().getFirst();
                assertThat(a.facts()).as("facts").isEqualTo(old.parsed().facts());
                assertThat(a.problems()).as("problems").isEqualTo(old.parsed().problems());
                assertThat(a.window()).as("window").isEqualTo(old.window());
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", run " + run + ": " + e.getMessage(), e);
            }
        }
        assertThat(consoleTyped).as("logs read by all three console-log parsers, seed " + seed).isGreaterThan(12);
    }

    @Test
    void storedFormReadsBackEqual() throws IOException {
        List<Path> files = new ArrayList<>(files(FIXTURES, Long.MAX_VALUE));
        files.addAll(files(CORPUS, CORPUS_MAX));
        int facts = 0;
        for (Path f : files) {
            ArtifactRead a = new BundleReader(ReadBudget.defaults()).read(List.of(new Counting().item(f.getFileName().toString(), f)))
                    .artifacts().getFirst();
            assertThat(FactsJson.readFacts(FactsJson.facts(a.facts()))).as(f.toString()).isEqualTo(a.facts());
            assertThat(FactsJson.readProblems(FactsJson.problems(a.problems()))).as(f.toString()).isEqualTo(a.problems());
            assertThat(FactsJson.readWindow(a.path(), FactsJson.window(a.window()))).as(f.toString()).isEqualTo(a.window());
            facts += a.facts().size();
        }
        assertThat(facts).isGreaterThan(100);
    }

    static Path log(Path dir, String name, int lines) throws IOException {
        Path p = dir.resolve(name);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            sb.append("Epoch ").append(i).append(": loss=0.").append(i % 97).append(" step ").append(i * 7).append('\n');
        }
        sb.append("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n")
                .append("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor\n");
        Files.writeString(p, sb, StandardCharsets.UTF_8);
        return p;
    }

    @Test
    void aReadBudgetCutsTheFileWhereItRunsOutAndSaysSo(@TempDir Path dir) throws IOException {
        Path big = log(dir, "train.log", 100_000);
        Path next = log(dir, "second.log", 10);
        long budget = Files.size(big) / 3;
        Counting c = new Counting();
        BundleFacts read = new BundleReader(new ReadBudget(budget, 1_000_000, 1L << 30, 1_000_000, Duration.ofHours(1)))
                .read(List.of(c.item("train.log", big), c.item("second.log", next)));
        assertThat(read.artifacts().get(0).bytesRead()).isEqualTo(budget);
        assertThat(read.artifacts().get(1).bytesRead()).isZero();
        assertThat(c.bytes).isLessThanOrEqualTo(budget + 1 + 64 * 1024); // the budget, plus one byte to see there was more
        assertThat(read.budgetHits()).singleElement().satisfies(h -> {
            assertThat(h.budget()).isEqualTo("bytes");
            assertThat(h.artifact()).isEqualTo("train.log");
            assertThat(h.message()).startsWith("read the first ").contains("of train.log");
        });
        assertThat(read.artifacts().get(0).problems()).anyMatch(p -> p.message().contains("read budget"));
    }

    @Test
    void onceTheReadBudgetIsSpentTheRestAreRecordedAsNotReadWithoutBeingOpened(@TempDir Path dir) throws IOException {
        Path big = log(dir, "train.log", 100_000);
        Counting first = new Counting();
        Counting rest = new Counting();
        List<BundleReader.Item> items = new ArrayList<>();
        items.add(first.item("train.log", big));
        for (int i = 0; i < 50; i++) {
            items.add(rest.item("worker-" + i + ".log", log(dir, "worker-" + i + ".log", 10)));
        }
        BundleFacts read = new BundleReader(new ReadBudget(Files.size(big) / 3, 1_000_000, 1L << 30, 1_000_000, Duration.ofHours(1)))
                .read(items);
        assertThat(first.opens.get()).isEqualTo(1);
        assertThat(rest.opens.get()).as("files after the budget ran out are not opened").isZero();
        assertThat(read.artifacts()).hasSize(51);
        assertThat(read.artifacts().subList(1, 51)).allSatisfy(a -> {
            assertThat(a.bytesRead()).isZero();
            assertThat(a.facts()).isEmpty();
            assertThat(a.problems()).anyMatch(p -> p.message().contains("read the first 0 KB only (read budget)"));
        });
        assertThat(read.budgetHits()).singleElement().satisfies(h -> {
            assertThat(h.budget()).isEqualTo("bytes");
            assertThat(h.artifact()).isEqualTo("train.log");
        });
    }

    @Test
    void theTextBudgetBoundsTheWindowsOfTheWholeBundle(@TempDir Path dir) throws IOException {
        List<BundleReader.Item> items = new ArrayList<>();
        Counting c = new Counting();
        for (int i = 0; i < 5; i++) {
            items.add(c.item("log" + i + ".txt", log(dir, "log" + i + ".txt", 3_000)));
        }
        BundleFacts read = new BundleReader(new ReadBudget(1L << 30, 7_000, 1L << 30, 1_000_000, Duration.ofHours(1))).read(items);
        assertThat(read.lines()).hasSizeLessThanOrEqualTo(7_000).hasSizeGreaterThan(6_000);
        assertThat(read.budgetHits()).extracting(BudgetHit::budget).containsExactly("lines");
        // the facts are still read from every file
        assertThat(read.artifacts()).allSatisfy(a -> assertThat(a.facts()).isNotEmpty());
    }

    @Test
    void theFactsBudgetKeepsTheFirstFacts(@TempDir Path dir) throws IOException {
        List<BundleReader.Item> items = new ArrayList<>();
        Counting c = new Counting();
        for (int i = 0; i < 4; i++) {
            items.add(c.item("log" + i + ".txt", log(dir, "log" + i + ".txt", 10)));
        }
        int perFile = new BundleReader(ReadBudget.defaults()).read(items.subList(0, 1)).artifacts().getFirst().facts().size();
        assertThat(perFile).isGreaterThan(1);
        long max = perFile + perFile / 2;
        BundleFacts read = new BundleReader(new ReadBudget(1L << 30, 1_000_000, 1L << 30, max, Duration.ofHours(1))).read(items);
        assertThat(read.artifacts().stream().mapToInt(a -> a.facts().size()).sum()).isEqualTo((int) max);
        assertThat(read.budgetHits()).extracting(BudgetHit::budget).containsExactly("facts");
    }

    @Test
    void aTimeBudgetOfZeroReadsNothingAndSaysSo(@TempDir Path dir) throws IOException {
        Counting c = new Counting();
        BundleFacts read = new BundleReader(new ReadBudget(1L << 30, 1_000, 1L << 30, 1_000, Duration.ZERO))
                .read(List.of(c.item("train.log", log(dir, "train.log", 100))));
        assertThat(read.budgetHits()).extracting(BudgetHit::budget).containsExactly("time");
        assertThat(read.artifacts().getFirst().bytesRead()).isZero();
    }

    @Test
    void aParserThatStopsEarlyDoesNotStallTheOthers(@TempDir Path dir) throws IOException {
        // a Keras model JSON parser reads a document; the text window reads every line: both from one pass
        Path f = dir.resolve("model.json");
        StringBuilder sb = new StringBuilder("{\"class_name\": \"Sequential\", \"config\": {\"layers\": []}}\n");
        for (int i = 0; i < 200_000; i++) {
            sb.append("  \n");
        }
        Files.writeString(f, sb);
        Counting c = new Counting();
        BundleFacts read = new BundleReader(ReadBudget.defaults()).read(List.of(c.item("model.json", f)));
        assertThat(c.opens.get()).isEqualTo(1);
        assertThat(read.artifacts()).hasSize(1);
    }

}
