package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.Zips;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The offline command line, driven in-process (no server, no database). */
class CrashLabCliTest {

    @TempDir
    Path dir;

    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = CrashLabCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute(args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void helpListsTheCommands() {
        Run r = run("help");
        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("version", "inspect", "facts");
    }

    /** {@code main} builds only the command it is given: that command must look and parse exactly as in the whole line. */
    @Test
    void aCommandBuiltAloneIsTheSameAsInTheWholeCommandLine() {
        CommandLine whole = CrashLabCli.commandLine();
        assertThat(whole.getSubcommands()).hasSizeGreaterThan(5);
        whole.getSubcommands().forEach((name, sub) -> {
            if (name.equals("help")) {
                return;
            }
            CommandLine alone = CrashLabCli.commandLine(name);
            assertThat(alone.getSubcommands()).as(name).containsOnlyKeys(name);
            CommandLine.Model.CommandSpec spec = alone.getSubcommands().get(name).getCommandSpec();
            assertThat(alone.getSubcommands().get(name).getUsageMessage()).as(name).isEqualTo(sub.getUsageMessage());
            assertThat(spec.findOption("--help")).as(name + " inherits --help").isNotNull();
            assertThat(spec.findOption("--version")).as(name + " inherits --version").isNotNull();
            assertThat(alone.getSubcommands().get(name).isCaseInsensitiveEnumValuesAllowed()).as(name).isTrue();
        });
        // help, a misspelt command or none: the whole line, so that help lists everything and picocli can suggest
        assertThat(CrashLabCli.commandLine("help").getSubcommands()).containsOnlyKeys(whole.getSubcommands().keySet());
        assertThat(CrashLabCli.commandLine("evtxx").getSubcommands()).containsOnlyKeys(whole.getSubcommands().keySet());
        assertThat(CrashLabCli.commandLine((String) null).getSubcommands()).containsOnlyKeys(whole.getSubcommands().keySet());
    }

    @Test
    void versionComesFromTheBuild() {
        assertThat(CrashLabCli.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    }

    @Test
    void inspectTypesEveryFileOfAnArchive() throws Exception {
        Path zip = Files.write(dir.resolve("bundle.zip"), Zips.zip()
                .text("crash.log", "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nValueError: boom\n")
                .text("env/requirements.txt", "numpy==1.26.4\ntorch==2.3.1\n")
                .build());
        Run r = run("inspect", zip.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("CONSOLE_LOG\\s+\\d+\\s+crash\\.log")
                .containsPattern("PIP_FREEZE\\s+\\d+\\s+env/requirements\\.txt")
                .contains("2 file(s)");
    }

    @Test
    void factsReadsAFolderAsOneBundleAndPrintsJson() throws Exception {
        Path bundle = Files.createDirectories(dir.resolve("bundle/logs"));
        Files.writeString(bundle.resolve("crash.log"), "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
                + "RuntimeError: CUDA error: an illegal memory access was encountered\n"
                + "Process finished with exit code -1073740791 (0xC0000409)\n");
        Run text = run("facts", dir.resolve("bundle").toString());
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).contains("== logs/crash.log  (CONSOLE_LOG)", "ExitStatus", "PythonException");

        Run json = run("facts", "--json", dir.resolve("bundle").toString());
        assertThat(json.status()).as(json.err()).isZero();
        var tree = dev.crashlab.fact.Facts.json().readTree(json.out());
        var facts = tree.path("artifacts").get(0).path("facts");
        assertThat(facts.findValuesAsText("kind")).contains("ExitStatus", "PythonException");
        assertThat(tree.path("artifacts").get(0).path("path").asText()).isEqualTo("logs/crash.log");

        Run stats = run("facts", "--stats", dir.resolve("bundle").toString());
        assertThat(stats.err()).containsPattern("stats: bytes=\\d+ seconds=[0-9.]+ cpu_seconds=[0-9.]+ mb_per_s=[0-9.]+ peak_heap_mib=[0-9.]+");
    }

    @Test
    void factsPrintsThePrefilterLiteralsForTheBenchmarksPeer() throws Exception {
        Run r = run("facts", "--print-prefilter");
        assertThat(r.status()).as(r.err()).isZero();
        List<String> literals = r.out().lines().toList();
        // the union the reading pass's one scan looks for in a console log: every parser of the type, each literal's start
        assertThat(literals).isEqualTo(dev.crashlab.parse.console.SharedLineScan.literals(
                        dev.crashlab.parse.Parsers.forType(dev.crashlab.sniff.ArtifactType.CONSOLE_LOG)))
                .contains("Could not lo", "Traceback (m", "==9", "Killed", "bad_alloc", "Layer (type)", "ConvolutionP", "=0")
                .doesNotContain("", "==", "=")
                .allMatch(l -> l.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 12);
        Run none = run("facts");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).contains("give at least one file, folder or archive");
    }

    @Test
    void inspectSaysWhyAnUploadWouldBeRefused() throws Exception {
        Path zip = Files.write(dir.resolve("evil.zip"), Zips.zip().text("../outside.txt", "x").build());
        Run r = run("inspect", zip.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("refused", "`../outside.txt`");
        Run missing = run("inspect", dir.resolve("nope.zip").toString());
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).contains("no such file");
    }

}
