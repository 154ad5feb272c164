package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each rewrite of {@code eval --perturb} changes what it says it changes, keeps the rest, and is repeatable. */
class PerturbationTest {

    static final String LOG = String.join("\n",
            "Traceback (most recent call last):",
            "  File \"C:\\Users\\alice\\anaconda3\\envs\\tf\\lib\\site-packages\\torch\\__init__.py\", line 3, in <module>",
            "  File \"/home/alice/proj/train.py\", line 9, in <module>",
            "pid=4242 at 12:30:05 on GeForce RTX 3090, torch 2.1.2, address 0x00007ffb1234abcd, code 0xC0000409",
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
            "");

    static Perturbation.Case sample() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("crash.log", LOG);
        files.put("env.txt", "os: Windows 10\npython: 3.10.4\n");
        return new Perturbation.Case("c999", files);
    }

    @Test
    void pathsMoveTheUserAndEnvironmentButNotTheLibraries() {
        String log = Perturbation.PATHS.apply(sample()).files().get("crash.log");
        assertThat(log).doesNotContain("alice").doesNotContain("envs\\tf\\").contains("site-packages\\torch\\__init__.py")
                .contains("miniconda3");
    }

    @Test
    void versionsMoveOnlyThePatchRelease() {
        Perturbation.Case c = Perturbation.VERSIONS.apply(sample());
        assertThat(c.files().get("crash.log")).doesNotContain("torch 2.1.2").containsPattern("torch 2\\.1\\.\\d");
        assertThat(c.files().get("env.txt")).doesNotContain("3.10.4").containsPattern("python: 3\\.10\\.\\d");
    }

    @Test
    void gpuStaysInItsArchitecture() {
        String log = Perturbation.GPU.apply(sample()).files().get("crash.log");
        assertThat(log).doesNotContain("RTX 3090").containsPattern("RTX 30[678]0");
    }

    @Test
    void numbersMoveButStatusCodesStay() {
        String log = Perturbation.NUMBERS.apply(sample()).files().get("crash.log");
        assertThat(log).doesNotContain("pid=4242").doesNotContain("0x00007ffb1234abcd").doesNotContain("20.00 MiB")
                .contains("0xC0000409").contains("RuntimeError: CUDA out of memory");
    }

    @Test
    void prefixGoesOnEveryLogLineOnly() {
        Perturbation.Case c = Perturbation.PREFIX.apply(sample());
        String log = c.files().get("crash.log");
        assertThat(log.lines().filter(l -> !l.isEmpty())).allSatisfy(l -> assertThat(l).doesNotStartWith("Traceback"));
        assertThat(log).contains("RuntimeError: CUDA out of memory");
        assertThat(c.files().get("env.txt")).isEqualTo(sample().files().get("env.txt"));
    }

    @Test
    void filesAreRenamedWithCrlf() {
        Perturbation.Case c = Perturbation.FILES.apply(sample());
        assertThat(c.files()).doesNotContainKeys("crash.log", "env.txt").hasSize(2);
        assertThat(c.files().values()).allSatisfy(t -> assertThat(t).contains("\r\n"));
    }

    @Test
    void lossyRewritesApplyOnlyWhereThereIsSomethingToDrop() {
        Perturbation.Case cut = Perturbation.DROP_LAST_LINE.apply(sample());
        assertThat(cut.files().get("crash.log")).doesNotContain("CUDA out of memory").contains("pid=4242");
        assertThat(Perturbation.NO_ENV.apply(sample()).files()).containsOnlyKeys("crash.log");
        Perturbation.Case oneLine = new Perturbation.Case("c1", Map.of("crash.log", "Killed\n"));
        assertThat(Perturbation.DROP_LAST_LINE.apply(oneLine)).isNull();
        assertThat(Perturbation.NO_ENV.apply(oneLine)).isNull();
    }

    @Test
    void pasteRewritesChangeHowTheLogReadsNotWhatItSays() {
        String md = Perturbation.MARKDOWN.apply(sample()).files().get("crash.log");
        assertThat(md).startsWith("```\n").contains("File &quot;/home/alice/proj/train.py&quot;, line 9, in &lt;module&gt;")
                .doesNotContain("\n  File");
        assertThat(Perturbation.QUOTED.apply(sample()).files().get("crash.log")).startsWith("> Traceback").contains("\n> RuntimeError");
        String longLog = LOG + "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; " + "x".repeat(250) + "\n";
        Perturbation.Case withLongLine = new Perturbation.Case("c999", Map.of("crash.log", longLog));
        String wrapped = Perturbation.WRAPPED.apply(withLongLine).files().get("crash.log");
        assertThat(wrapped.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
        assertThat(wrapped.lines().count()).isGreaterThan(longLog.lines().count());
        assertThat(wrapped.replace("\n", "")).isEqualTo(longLog.replace("\n", ""));
        String jupyter = Perturbation.JUPYTER.apply(sample()).files().get("crash.log");
        assertThat(jupyter).contains("\u001b[0;31mRuntimeError\u001b[0m: CUDA out of memory").contains("Traceback (most recent call last)")
                .doesNotContain("Traceback (most recent call last):");
        String utf16 = Perturbation.UTF16.apply(sample()).files().get("crash.log");
        assertThat(utf16).startsWith("\u00ff\u00fe");
        assertThat(new String(utf16.substring(2).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                java.nio.charset.StandardCharsets.UTF_16LE)).contains("Tried to allocate 20.00 MiB\r\n");
        Perturbation.Case withEnv = new Perturbation.Case("c8", Map.of("crash.log", LOG, "env.txt", "torch 2.1.0\n"));
        assertThat(Perturbation.UTF16.apply(withEnv).files().get("env.txt")).as("PowerShell writes the listing alike").startsWith("\u00ff\u00fe");
        String bare = Perturbation.UTF16_BARE.apply(withEnv).files().get("env.txt");
        assertThat(bare).doesNotStartWith("\u00ff\u00fe").doesNotStartWith("\u00fe\u00ff").hasSize(2 * "torch 2.1.0\n".length());
        String chained = Perturbation.CHAINED.apply(sample()).files().get("crash.log");
        assertThat(chained.indexOf("RuntimeError: CUDA out of memory")).isLessThan(chained.indexOf("exception"));
        assertThat(Perturbation.RANKS.apply(sample()).files().get("crash.log")).contains("[rank3]: RuntimeError: CUDA out of memory");
        String tail = Perturbation.SHUTDOWN_TAIL.apply(sample()).files().get("crash.log");
        assertThat(tail.lines().count()).isEqualTo(LOG.lines().count() + 300);
        // nothing to localise in this log; a Windows message is, in the console's code page
        assertThat(Perturbation.LOCALIZED.apply(sample())).isNull();
        Perturbation.Case win = new Perturbation.Case("c7", Map.of("crash.log", "OSError: [WinError 126] The specified module could not be found.\n"));
        assertThat(Perturbation.LOCALIZED.apply(win).files().get("crash.log")).startsWith("OSError: [WinError 126] ")
                .doesNotContain("The specified module");
    }

    @Test
    void moreWaysOfPastingKeepEveryLineOfTheLog() {
        String error = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB";
        String indented = Perturbation.INDENTED.apply(sample()).files().get("crash.log");
        assertThat(indented.lines()).allSatisfy(l -> assertThat(l).matches("(\t|    ).+"));
        assertThat(indented.lines().map(l -> l.startsWith("\t") ? l.substring(1) : l.substring(4)).toList())
                .isEqualTo(LOG.lines().toList());
        String details = Perturbation.DETAILS.apply(sample()).files().get("crash.log");
        assertThat(details).startsWith("<details>\n<summary>").contains("```shell\n" + LOG + "```\n").endsWith("</details>\n");
        String shell = Perturbation.POWERSHELL.apply(sample()).files().get("crash.log");
        assertThat(shell).startsWith("python : Traceback (most recent call last):\nAt line:1 char:1\n+ ")
                .contains("    + FullyQualifiedErrorId : NativeCommandError\n \n  File").endsWith(error + "\n");
        for (Perturbation p : List.of(Perturbation.JOURNAL, Perturbation.CRI, Perturbation.GLOG)) {
            List<String> lines = p.apply(sample()).files().get("crash.log").lines().toList();
            assertThat(lines).as(p.written()).hasSize(LOG.lines().toList().size());
            for (int i = 0; i < lines.size(); i++) {
                assertThat(lines.get(i)).as(p.written()).endsWith(LOG.lines().toList().get(i))
                        .isNotEqualTo(LOG.lines().toList().get(i));
            }
        }
        assertThat(Perturbation.CRI.apply(sample()).files().get("crash.log")).containsPattern("Z std(out|err) F Traceback");
        String doubled = Perturbation.DOUBLED.apply(sample()).files().get("crash.log");
        assertThat(doubled).contains(error + "\n" + error + "\n").hasLineCount(2 * (int) LOG.lines().count());
        assertThat(Perturbation.ELIDED.apply(sample())).as("a short log keeps its middle").isNull();
        String longLog = "start\n" + "step %d loss 0.1\n".repeat(20) + error + "\n";
        String elided = Perturbation.ELIDED.apply(new Perturbation.Case("c5", Map.of("crash.log", longLog))).files().get("crash.log");
        assertThat(elided).startsWith("start\n").contains("\n... 12 more lines (output truncated)\n").endsWith(error + "\n").hasLineCount(11);
        String soft = Perturbation.SOFT_WRAPPED.apply(new Perturbation.Case("c6", Map.of("crash.log",
                "E " + "word ".repeat(60) + "end\nshort\n"))).files().get("crash.log");
        assertThat(soft.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
        assertThat(soft.replace("\n", "")).isEqualTo("E " + "word ".repeat(60) + "endshort");
        // the env listing is a file, not a paste
        assertThat(Perturbation.INDENTED.apply(sample()).files().get("env.txt")).isEqualTo(sample().files().get("env.txt"));
    }

    @Test
    void repeatableAndNamed() {
        assertThat(Perturbation.ALL.apply(sample())).isEqualTo(Perturbation.ALL.apply(sample()));
        assertThat(Perturbation.parse("drop-last-line")).isEqualTo(Perturbation.DROP_LAST_LINE);
        assertThatThrownBy(() -> Perturbation.parse("shuffle")).hasMessageContaining("known: paths");
    }

    @Test
    void evalPrintsTheSurvivalTable(@TempDir Path dir) throws Exception {
        Path c = Files.createDirectories(dir.resolve("c001"));
        Files.writeString(c.resolve("meta.json"), "{\"labels\":[\"gpu-oom\"],\"difficulty\":\"easy\"}");
        Files.writeString(c.resolve("crash.log"), "epoch 1\nstep 2\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        Files.writeString(c.resolve("env.txt"), "os: Ubuntu 22.04\ngpu: NVIDIA GeForce RTX 3090\n");
        CrashLabCliTest.Run r = CrashLabCliTest.run("eval", dir.toString(), "--perturb", "prefix,drop-last-line",
                "--kb", "kb-articles", "--compat", "compat");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("perturbed (not very-hard").containsPattern("prefix +1 +top1 +1 -> +1")
                .containsPattern("drop-last-line +1 +top1 +1 -> ");
        CrashLabCliTest.Run bad = CrashLabCliTest.run("eval", dir.toString(), "--perturb", "shuffle");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("unknown perturbation 'shuffle'");
    }
}
