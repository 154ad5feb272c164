package dev.crashlab.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A log pasted from an issue page, a reply, a notebook or a wrapping console reads as the program wrote it. */
class PastedTextTest {

    static PastedText.Form detect(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return PastedText.detect(b, b.length);
    }

    static String clean(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        try (InputStream in = PastedText.clean(new ByteArrayInputStream(b), PastedText.detect(b, b.length))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aPlainLogIsReadAsItIs() throws IOException {
        String log = String.join("\n",
                ">>> import torch",
                "Traceback (most recent call last):",
                "  File \"train.py\", line 3, in <module>",
                "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\\\x\\\\caffe2_nvrtc.dll\"",
                "see https://example.org/q?a=1&b=2",
                "```",
                "a Markdown note's code block, fenced: read as written",
                "```",
                "");
        assertThat(detect(log).any()).isFalse();
        assertThat(clean(log)).isEqualTo(log);
    }

    @Test
    void colourCodesGo() throws IOException {
        String log = "\u001b[0;31mRuntimeError\u001b[0m: CUDA error: no kernel image is available\n"
                + "Cell \u001b[0;32mIn[3], line 5\u001b[0m\n\u001b]8;;file:///x\u0007link\u001b]8;;\u0007\n";
        assertThat(detect(log).ansi()).isTrue();
        assertThat(clean(log)).isEqualTo("RuntimeError: CUDA error: no kernel image is available\nCell In[3], line 5\nlink\n");
    }

    @Test
    void anIssuePagesEntitiesAndFencesGoAndLinesKeepTheirNumbers() throws IOException {
        String log = String.join("\n",
                "```python",
                "File &quot;&lt;frozen importlib._bootstrap&gt;&quot;, line 1176, in _find_and_load",
                "ImportError: DLL load failed while importing _C: The specified module could not be found. &#39;x&#39; &#x27;y&#x27; &amp; &#8212;",
                "```",
                "");
        assertThat(detect(log).entities()).isTrue();
        assertThat(detect(log).fenced()).isTrue();
        List<String> lines = clean(log).lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).isEmpty();
        assertThat(lines.get(1)).isEqualTo("File \"<frozen importlib._bootstrap>\", line 1176, in _find_and_load");
        // an entity for a character above ASCII stays as written (the transform touches ASCII bytes only)
        assertThat(lines.get(2)).endsWith("'x' 'y' & &#8212;");
        assertThat(lines.get(3)).isEmpty();
    }

    @Test
    void aRepliesQuotePrefixGoesButAPythonPromptStays() throws IOException {
        String log = "> Traceback (most recent call last):\n>   File \"a.py\", line 1, in <module>\n>\n> > Killed\n";
        assertThat(detect(log).quoted()).isTrue();
        assertThat(clean(log)).isEqualTo("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n\nKilled\n");
        assertThat(detect(">>> import tensorflow as tf\n>>> tf.test.is_gpu_available()\nFalse\n").quoted()).isFalse();
    }

    static String row(char c, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append((char) (c + i % 20));
        }
        return b.toString();
    }

    /** Appends {@code line} as a console 80 columns wide shows it: rows of 80, each ended by {@code eol}. */
    private static void cutAt80(StringBuilder log, String line, String eol) {
        for (int i = 0; i < line.length(); i += 80) {
            log.append(line, i, Math.min(line.length(), i + 80)).append(eol);
        }
    }

    @Test
    void aConsolesWrappedRowsAreJoinedOnTheFirstRowsLine() throws IOException {
        String long1 = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126 " + row('a', 100);
        String long2 = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll' " + row('A', 30);
        StringBuilder log = new StringBuilder("2025-03-14 start\n");
        for (String l : List.of(long1, long2)) {
            cutAt80(log, l, "\r\n");
        }
        log.append("done\n");
        assertThat(detect(log.toString()).wrapWidth()).isEqualTo(80);
        List<String> lines = clean(log.toString()).lines().toList();
        // long1 was cut into three rows (80, 80, 4 columns), long2 into two
        assertThat(lines).containsExactly("2025-03-14 start", long1, "", "", long2, "", "done");
    }

    @Test
    void anEmptyLineInAWrappedCopyKeepsItsPlaceSoLaterLinesKeepTheirNumbers() throws IOException {
        String long1 = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126 " + row('a', 100);
        String long2 = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll' " + row('A', 30);
        StringBuilder log = new StringBuilder("first\n\n");
        for (String l : List.of(long1, long2)) {
            cutAt80(log, l, "\n");
            log.append("\n");
        }
        log.append("done\n");
        assertThat(detect(log.toString()).wrapWidth()).isEqualTo(80);
        List<String> in = log.toString().lines().toList();
        List<String> out = clean(log.toString()).lines().toList();
        assertThat(out).hasSameSizeAs(in);
        assertThat(out).containsExactly("first", "", long1, "", "", "", long2, "", "", "done");
    }

    @Test
    void rowsOfOneWidthThatAreNotAWrapStayApart() {
        // an nvidia-smi table: every row as wide as the next
        String table = "+-----------------------------------------------------------------------------+\n"
                + "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
                + "|-------------------------------+----------------------+----------------------+\n"
                + "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n";
        assertThat(detect(table).wrapWidth()).isZero();
        // the same long warning printed twice, and lines of every length around it
        String warning = "W0314 09:00:01.000000 1 dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7' x";
        StringBuilder log = new StringBuilder(warning + "\n" + warning + "\n");
        for (int n = 60; n < warning.length(); n++) {
            log.append(row('a', n)).append(' ').append("end").append('\n');
        }
        assertThat(detect(log.toString()).wrapWidth()).isZero();
        // a device assert per thread: lines of one format and one width, each ending where a line ends
        StringBuilder asserts = new StringBuilder();
        for (int t = 0; t < 8; t++) {
            asserts.append("/src/Loss.cu:106: void nll_kernel(): block: [0,0,0], thread: [").append(t)
                    .append(",0,0] Assertion `t >= 0 && t < n_classes` failed.\n");
        }
        assertThat(detect(asserts.toString()).wrapWidth()).isZero();
        // one line of a usual width that ends at a word's end is no wrap either
        assertThat(detect(row('a', 79) + ".\nnext line\n").wrapWidth()).isZero();
    }

    @Test
    void aCodeBlocksIndentGoesButAProgramsOwnIndentStays() throws IOException {
        // a forum's code box: a tab before every line, the traceback's own indent behind it
        String tabbed = String.join("\n",
                "\tpython main.py --save run1",
                "\tTraceback (most recent call last):",
                "\t  File \"main.py\", line 50, in <module>",
                "\t    model = Net().cuda()",
                "",
                "\tAssertionError: Found no NVIDIA driver on your system.",
                "");
        assertThat(detect(tabbed).indent()).isEqualTo("\t");
        assertThat(clean(tabbed)).isEqualTo(String.join("\n", "python main.py --save run1", "Traceback (most recent call last):",
                "  File \"main.py\", line 50, in <module>", "    model = Net().cuda()", "",
                "AssertionError: Found no NVIDIA driver on your system.", ""));
        // a Markdown code block quoted in a reply: "> " and then four blanks
        String quotedBlock = ">     RuntimeError: CUDA error: out of memory\n>     Killed\n";
        assertThat(clean(quotedBlock)).isEqualTo("RuntimeError: CUDA error: out of memory\nKilled\n");
        // a traceback alone: its frames are indented, its head and error line are not
        String traceback = "Traceback (most recent call last):\n    x()\n    y()\n    z()\nRuntimeError: boom\n";
        assertThat(detect(traceback).indent()).isEmpty();
        assertThat(clean(traceback)).isEqualTo(traceback);
    }

    static final String COMMAND = "python train.py 2>&1 | Tee-Object log.txt";

    /** A PowerShell 5.1 error record around {@code first}, as the console shows a native program's first stderr line. */
    static String shellRecord(String name, String first) {
        return String.join("\r\n",
                name + " : " + first,
                "At line:1 char:1",
                "+ " + COMMAND,
                "+ " + "~".repeat(COMMAND.length()),
                "    + CategoryInfo          : NotSpecified: (" + first + ":String) [], RemoteException",
                "    + FullyQualifiedErrorId : NativeCommandError",
                " ");
    }

    @Test
    void aPowerShellErrorRecordGivesBackTheProgramsLineAndBlanksItsOwn() throws IOException {
        String log = "epoch 1 step 10 loss 2.31\r\n"
                + shellRecord("python", "Traceback (most recent call last):") + "\r\n"
                + "  File \"train.py\", line 7, in <module>\r\n"
                + "RuntimeError: CUDA error: an illegal memory access was encountered\r\n";
        PastedText.Form form = detect(log);
        assertThat(form.shellRecord()).containsEntry(2L, "python : ".length()).containsEntry(3L, 0).containsEntry(7L, 0)
                .doesNotContainKeys(1L, 8L, 9L);
        List<String> in = log.lines().toList();
        List<String> out = clean(log).lines().toList();
        assertThat(out).hasSameSizeAs(in);
        assertThat(out).containsExactly("epoch 1 step 10 loss 2.31", "Traceback (most recent call last):", "", "", "", "", "", " ",
                "  File \"train.py\", line 7, in <module>", "RuntimeError: CUDA error: an illegal memory access was encountered");
        // run by its path, the program's one-line error
        String byPath = shellRecord("D:\\envs\\py310\\python.exe", "ImportError: DLL load failed while importing _C") + "\r\n";
        assertThat(clean(byPath).lines().findFirst()).contains("ImportError: DLL load failed while importing _C");
        // quoted in a reply, the record is seen behind the quote
        String quoted = shellRecord("python", "Killed").lines().map(l -> "> " + l).reduce((a, b) -> a + "\n" + b).orElseThrow() + "\n";
        assertThat(clean(quoted).lines().findFirst()).contains("Killed");
    }

    @Test
    void aLineThatOnlyLooksLikeARecordIsLeftAsWritten() throws IOException {
        // no NativeCommandError under it: a program's own "name : text" line and a position line stay
        String log = "loader : waiting for workers\nAt line:3 char:7\n+ x\nRuntimeError: boom\n";
        assertThat(detect(log).shellRecord()).isEmpty();
        assertThat(clean(log)).isEqualTo(log);
        // the id without a record's head line above its position line
        String partial = "At line:1 char:1\n+ python a.py\n    + FullyQualifiedErrorId : NativeCommandError\n";
        assertThat(detect(partial).shellRecord()).isEmpty();
    }

    @Test
    void utf16IsLeftAsItIs() {
        byte[] b = "\uFEFF> quoted\r\n> again\r\n".getBytes(StandardCharsets.UTF_16LE);
        assertThat(PastedText.detect(b, b.length).any()).isFalse();
    }
}
