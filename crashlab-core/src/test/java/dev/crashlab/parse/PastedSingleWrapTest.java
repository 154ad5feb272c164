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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * One long line of a short paste broken by a terminal or chat client at 80, 100 or 120 columns is whole again; two real
 * lines are never glued (pastes written here; the real corpus files are read in place).
 */
class PastedSingleWrapTest {

    static String clean(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        try (InputStream in = PastedText.clean(new ByteArrayInputStream(b), PastedText.detect(b, b.length))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** {@code line} cut at {@code width} columns, the rows joined by {@code \n}. */
    static String wrap(String line, int width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < line.length(); i += width) {
            b.append(i == 0 ? "" : "\n").append(line, i, Math.min(line.length(), i + width));
        }
        return b.toString();
    }

    @Test
    void aLibraryNameCutByAn80ColumnTerminalIsWholeAgainOnItsLine() throws IOException {
        // torchrun's rank prefix puts column 80 inside the library's name: "...libcudnn_cnn_inf" + "er.so.8: ..."
        String line = "[rank0]: Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open"
                + " shared object file: No such file or directory";
        String paste = String.join("\n", "$ torchrun --nproc-per-node 1 train.py", wrap(line, 80), "Aborted (core dumped)", "");
        assertThat(wrap(line, 80)).contains("libcudnn_cnn_inf\ner.so.8");
        assertThat(clean(paste).split("\n", -1))
                .containsExactly("$ torchrun --nproc-per-node 1 train.py", line, "", "Aborted (core dumped)", "");
    }

    @Test
    void aPathCutAt100ColumnsInAnIssueBodyIsJoined() throws IOException {
        String line = "CUDA error: an illegal memory access was encountered at /home/ana/projects/seg3d/csrc/deform_conv_cuda_kernel.cu:412";
        String paste = "Running the eval script gives:\n\n" + wrap(line, 100) + "\n\nAny idea? I'm on torch 2.3.1.\n";
        assertThat(line.charAt(99)).isNotEqualTo(' ');
        assertThat(clean(paste)).isEqualTo("Running the eval script gives:\n\n" + line + "\n\n\nAny idea? I'm on torch 2.3.1.\n");
    }

    @Test
    void aStatusNameCutAt120ColumnsInAForumPostIsJoined() throws IOException {
        // glog pads its thread id: the cut at column 120 falls right after "CUDA_ERROR_OUT_"
        String tail = " 4242 cuda_driver.cc:152] failed call to cuInit: CUDA_ERROR_OUT_";
        String head = "E0301 10:22:19.118203";
        String whole = head + " ".repeat(120 - head.length() - tail.length()) + tail + "OF_MEMORY: out of memory";
        String paste = "Hi all, my training dies at start:\n" + wrap(whole, 120) + "\nThanks\n";
        assertThat(wrap(whole, 120)).contains("CUDA_ERROR_OUT_\nOF_MEMORY");
        assertThat(clean(paste)).isEqualTo("Hi all, my training dies at start:\n" + whole + "\n\nThanks\n");
    }

    @Test
    void aQuotedWindowsPathCutRightAfterItsOpeningQuoteIsJoined() throws IOException {
        // a cmd console 80 columns wide: the cut falls between the quote and the drive letter
        String line = "OSError: [WinError 126] The specified module could not be found. Error loading \""
                + "D:\\envs\\dl\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" or one of its dependencies.";
        assertThat(line.charAt(79)).isEqualTo('"');
        String paste = "(dl) D:\\work>python train.py\n" + wrap(line, 80) + "\n\n(dl) D:\\work>\n";
        // three rows: the line on the first row's number, two empty lines for the other rows, then the paste's empty line
        assertThat(clean(paste)).isEqualTo("(dl) D:\\work>python train.py\n" + line + "\n\n\n\n(dl) D:\\work>\n");
        // a row that ends where its quote closes is a line's end
        String closed = "print(\"x\")".repeat(6) + "y".repeat(80 - 6 * 10 - 3) + "\"a\"\nnext line\n";
        assertThat(closed.indexOf('\n')).isEqualTo(80);
        assertThat(clean(closed)).isEqualTo(closed);
    }

    @Test
    void twoRealLinesAreNeverGlued() throws IOException {
        List<String> pastes = List.of(
                // an event's fields: a row of exactly 80 columns, then a line that starts with a key
                "Faulting application name: python.exe, version: 3.10.11.0, time stamp: 0x642cc42\n"
                        + "Faulting module name: cudnn_cnn_infer64_8.dll, version: 6.14.11.1\n",
                // conda list: columns lined up with runs of spaces
                "pytorch                   2.1.0           py3.10_cuda11.8_cudnn8.7.0_0   pytorch\n"
                        + "tensorflow                2.8.0   gpu_py39\n",
                // prose hard-wrapped at 100 columns by an editor: words cut at a space
                "With four workers the loader ran out of the container's shared memory, which Docker sets to 64MB, is\n"
                        + "too small for DataLoader workers\n",
                // a natural line of 80 columns before an ERROR line
                "Collecting torch==2.4.0 (from -r requirements.txt (line 3)) using a cached 2.4.0\nERROR: No matching distribution\n",
                // a traceback's frame lines are indented
                "  File \"/home/u/projects/seg3d/train_segmentation.py\", line 1000, in train_epoch\n    loss.backward()\n");
        for (String p : pastes) {
            String firstRow = p.substring(0, p.indexOf('\n'));
            assertThat(firstRow.length()).as(firstRow).isIn(80, 100, 120);
            assertThat(clean(p)).as(firstRow.length() + " columns: " + p).isEqualTo(p);
        }
    }

    @Test
    void inTheRealCorpusOnlyTheOneLineATerminalCutIsJoined() throws IOException {
        Assumptions.assumeTrue(CorpusTextFiles.present(), "../shared/corpus not present: corpus tests skipped");
        List<String> joined = new ArrayList<>();
        int read = 0;
        for (Path f : CorpusTextFiles.list()) {
            byte[] b = Files.readAllBytes(f);
            int n = Math.min(b.length, 1 << 16);
            PastedText.Form form = PastedText.detect(b, n);
            read++;
            for (long row : form.wrapRows()) {
                joined.add(CorpusTextFiles.where(f, row));
            }
        }
        assertThat(read).isGreaterThan(200);
        // c210's log holds a path cut at 80 columns by the reporter's terminal (".../xmr-stak-nvi" + "dia/nvcc_code/...")
        assertThat(joined).containsExactly("corpus-fresh/crash-bundles/c210/crash.log:7");
    }
}
