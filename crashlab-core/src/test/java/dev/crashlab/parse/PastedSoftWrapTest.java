package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.CorpusTextFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Lines a rendered page, a mail or a console broke at a blank are whole again; lines that end in a blank for their own
 * reasons stay as written (pastes written here; the real corpus files are read in place).
 */
class PastedSoftWrapTest {

    static String clean(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        try (InputStream in = PastedText.clean(new ByteArrayInputStream(b), PastedText.detect(b, b.length))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Each line wider than {@code width} broken after its last blank before that width, the blank kept (a renderer's fill). */
    static String softWrap(String text, int width) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String rest = line;
            while (rest.length() > width) {
                int cut = rest.lastIndexOf(' ', width - 1);
                if (cut <= 0 || rest.substring(0, cut).isBlank()) {
                    break;
                }
                b.append(rest, 0, cut + 1).append('\n');
                rest = rest.substring(cut + 1);
            }
            b.append(rest).append('\n');
        }
        return b.substring(0, b.length() - 1);
    }

    /** What the cleaned text of a soft-wrapped {@code text} must be: each line on its first row's number, empty lines after it. */
    static String joinedInPlace(String text, int width) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            int rows = softWrap(line, width).split("\n", -1).length;
            b.append(line).append("\n".repeat(rows - 1)).append('\n');
        }
        return b.substring(0, b.length() - 1);
    }

    // a TensorFlow start-up failure as a mail client would show it (our own lines, in TensorFlow's wording)
    static final String TF_LOG = String.join("\n",
            "2024-05-02 10:14:07.412230: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 5678 MB memory",
            "2024-05-02 10:14:09.100512: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "Traceback (most recent call last):",
            "  File \"fit.py\", line 40, in <module>",
            "    model.fit(ds, epochs=3)",
            "tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.",
            "");

    @Test
    void aLogFilledByARendererAtAnyWidthReadsAsWritten() throws IOException {
        // 80, 100 and 120 too: rows a page filled to a console's width are no console's cut (some rows are narrower)
        List<Integer> widths = new ArrayList<>(List.of(80, 120));
        for (int width = 64; width <= 110; width += 3) {
            widths.add(width);
        }
        for (int width : widths) {
            String pasted = softWrap(TF_LOG, width);
            assertThat(pasted).as("width " + width).isNotEqualTo(TF_LOG);
            assertThat(clean(pasted)).as("width " + width).isEqualTo(joinedInPlace(TF_LOG, width));
        }
        String at80 = clean(softWrap(TF_LOG, 80));
        assertThat(at80).contains("This is probably because cuDNN failed to initialize, so try looking");
    }

    @Test
    void oneRowAConsoleCutRightAfterABlankIsJoined() throws IOException {
        // a console 80 columns wide cuts right after "Error ": the row ends in the blank, the next goes on in lower case
        String line = "[rank0]: ImportError: [WinError 193] %1 is not a valid Win32 application. Error loading "
                + "\"D:\\envs\\dl\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\"";
        assertThat(line.substring(0, 80)).endsWith("Error ");
        String rows = PastedSingleWrapTest.wrap(line, 80);
        assertThat(rows.split("\n")).hasSize(2);
        String paste = "$ torchrun --nproc-per-node 2 train.py\n" + rows + "\nDone\n";
        assertThat(clean(paste)).isEqualTo("$ torchrun --nproc-per-node 2 train.py\n" + line + "\n\nDone\n");
    }

    @Test
    void aConsoleWrapWhoseCutsFallAfterBlanksIsBelieved() throws IOException {
        // a JAX start-up failure copied from a console 120 columns wide: one row is cut inside a status name, one right
        // after a blank; a line of 114 columns is not cut
        String log = String.join("\n",
                "2024-05-02 10:14:07.412230: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: "
                        + "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
                "2024-05-02 10:14:07.412291: I external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:134] retrieving CUDA "
                        + "diagnostic information for host: gpu-node-07",
                "2024-05-02 10:14:07.412302: I external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:141] hostname: gpu-node-07",
                "jaxlib.xla_extension.XlaRuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU "
                        + "devices. (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)",
                "");
        StringBuilder pasted = new StringBuilder();
        StringBuilder expected = new StringBuilder();
        for (String line : log.split("\n", -1)) {
            String rows = PastedSingleWrapTest.wrap(line, 120);
            pasted.append(rows).append('\n');
            expected.append(line).append("\n".repeat(rows.split("\n", -1).length));
        }
        assertThat(pasted.toString().split("\n")[2]).hasSize(120).endsWith("diagnostic ");
        assertThat(PastedText.detect(pasted.toString().getBytes(StandardCharsets.UTF_8), pasted.length()).wrapWidth()).isEqualTo(120);
        assertThat(clean(pasted.toString())).isEqualTo(expected.toString());
    }

    @Test
    void linesThatEndInABlankForTheirOwnReasonsStay() throws IOException {
        List<String> pastes = List.of(
                // Python's warning line ends in a blank before its indented source line
                "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:611: UserWarning: \n"
                        + "  warnings.warn(\"Can't initialize NVML\")\n"
                        + "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:611: UserWarning: \n"
                        + "  warnings.warn(\"Can't initialize NVML\")\n",
                // a shell prompt's line ends in a blank; one row alone is joined only before a lower-case start
                "(dl) user@gpu-node:~/projects/segmentation-experiments$ python collect_env.py \n"
                        + "Collecting environment information...\nPyTorch version: 2.3.1\n",
                // one row ending in a blank before a capital: a new sentence may start a line
                "The loader stopped after the first epoch because the shared memory ran out. \nNothing else was printed.\n",
                // two rows ending in blanks, but a wider line of the same file holds blanks: no fill width explains the rows
                "a".repeat(40) + " " + "b".repeat(29) + " \nccc ddd\n" + "e".repeat(40) + " " + "f".repeat(29) + " \nggg hhh\n"
                        + "word ".repeat(30) + "end\n");
        for (String p : pastes) {
            assertThat(clean(p)).as(p).isEqualTo(p);
        }
    }

    @Test
    void aSeededRandomLogFilledAtASeededWidthIsWholeAgain() throws IOException {
        long seed = Long.getLong("crashlab.test.seed", new Random().nextLong());
        Random r = new Random(seed);
        String[] words = {"cuda", "error:", "out", "of", "memory", "tried", "to", "allocate", "2.00", "GiB", "/opt/conda/lib/x.so",
            "CUDA_ERROR_ILLEGAL_ADDRESS", "while", "the", "kernel", "ran", "(pid", "4242)", "in", "module"};
        StringBuilder log = new StringBuilder();
        for (int line = 0; line < 12; line++) {
            int n = 3 + r.nextInt(30);
            for (int w = 0; w < n; w++) {
                log.append(w == 0 ? "" : " ").append(words[r.nextInt(words.length)]);
            }
            log.append('\n');
        }
        int width = 72 + r.nextInt(29);
        String pasted = softWrap(log.toString(), width);
        // two rows broken at a blank are needed for a width to be believed
        Assumptions.assumeTrue(pasted.lines().filter(l -> l.endsWith(" ")).count() >= 2, "seed " + seed + ": fewer than two rows broken");
        assertThat(clean(pasted)).as("seed " + seed + ", width " + width).isEqualTo(joinedInPlace(log.toString(), width));
    }

    @Test
    void inTheRealCorpusNoLineIsJoinedAtABlank() throws IOException {
        Assumptions.assumeTrue(CorpusTextFiles.present(), "../shared/corpus not present: corpus tests skipped");
        List<String> joined = new ArrayList<>();
        int read = 0;
        for (Path f : CorpusTextFiles.list()) {
            byte[] b = Files.readAllBytes(f);
            int n = Math.min(b.length, 1 << 16);
            int end = n;
            while (end > 0 && b[end - 1] != '\n') {
                end--;
            }
            read++;
            for (long row : PastedText.blankWrapRows(b, 0, end == 0 ? n : end)) {
                joined.add(CorpusTextFiles.where(f, row));
            }
        }
        assertThat(read).isGreaterThan(200);
        assertThat(joined).isEmpty();
    }
}
