package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KbArticle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 11, acceptance 7: for every KB article, runs the real Linux collector ({@code collector/collect-crash-bundle.sh})
 * on this machine around a log of our own that ends in the cause's canonical framework error message
 * ({@code src/test/resources/collector/canonical-errors/<id>.log}) and diagnoses the zip it writes offline: the
 * article ranks first. The collector's real {@code env.txt}, {@code pip list}, {@code nvcc -V} and kernel log of this
 * machine are the noise around the message.
 *
 * <p>Causes named by the kernel (Xid 54, 63, 94, 119) have their kernel lines in {@code canonical-errors/kernel/<id>.log},
 * which the collector reads through its {@code --kernel-log} option (as a user passes {@code /var/log/kern.log} where
 * dmesg needs root); the collector keeps only the NVIDIA/Xid/OOM lines of it, as it does with dmesg. Windows-only causes
 * are logs of a native-Windows run (a {@code C:\...\python.exe} interpreter, a Windows exit status) that the Linux
 * collector wraps, as it does when run in WSL2 beside the Windows job; the WSL2 cause's log shows WSL2's driver folder.
 * The collector's own env.txt then describes this machine, not the job's: the job's output decides its OS.
 *
 * <p>Each run names the interpreter with the collector's {@code --python} option: the one the collector would pick
 * itself ({@code python}, else {@code python3}, on the PATH), resolved once to the file it runs. Where that is a
 * version manager's shim (pyenv here), every call through it starts a shell script first, and the collector calls
 * Python five times per run; the env.txt, pip list and framework notes are the same either way. The collector's own
 * choice of interpreter is tested by {@code CollectorScriptTest} (crashlab-server), with a stub {@code python}.
 *
 * <p>The machine is the same for every article, so its interpreter is asked each question once: {@code --python}
 * names {@link #replaying a script} that runs the real interpreter the first time it gets an argument list (the
 * version, {@code pip list}, the framework probes) and afterwards prints what it printed then, stdout and stderr apart,
 * and exits with its status. The collector itself, and every other tool it calls, still runs for every article; what
 * it reads from the interpreter is byte for byte what the interpreter said (a {@code pip list} alone costs about a CPU
 * second, 39 times).
 */
@org.junit.jupiter.api.Tag("slow")
class CollectorPerArticleTest {

    static final Path SCRIPT = Path.of("collector/collect-crash-bundle.sh").toAbsolutePath();
    static final Path LOGS = Path.of("crashlab-server/src/test/resources/collector/canonical-errors");
    static final Path KERNEL_LOGS = LOGS.resolve("kernel");

    static DiagnosisEngine engine;
    /** The file the collector's default interpreter runs, or null where there is none (it then says so). */
    static String python;
    private boolean collectedPipList;

    @TempDir
    Path tmp;

    /** Where {@link #replaying} keeps the interpreter's answers, shared by every article's run. */
    @TempDir
    static Path answers;

    @BeforeAll
    static void load() throws Exception {
        engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
        String real = interpreter();
        python = real == null ? null : replaying(real, answers);
    }

    /**
     * Writes an executable stand-in for the interpreter {@code real} into {@code dir} and returns its path: given an
     * argument list for the first time, it runs {@code real} with it and records stdout, stderr and the exit status in
     * {@code dir}; given it again, it prints the recorded output (stdout and stderr apart) and exits with the recorded
     * status. Nothing is read from its standard input (the collector sends none).
     */
    static String replaying(String real, Path dir) throws Exception {
        Path script = dir.resolve("python");
        // bash: the answer's name is made from the arguments without starting a process (each start costs ~10 ms of
        // system time here); '%', '/' and ' ' are escaped so that different argument lists never share a name
        Files.writeString(script, String.join("\n",
                "#!/bin/bash",
                "# " + real + ", run once per argument list; later calls replay what it printed and its exit status",
                "key=",
                "for a in \"$@\"; do a=${a//\\%/%25}; a=${a//\\//%2F}; key+=\"${a// /%20} \"; done",
                "if [ ${#key} -gt 200 ]; then exec " + shellQuoted(real) + " \"$@\"; fi",
                "key=" + shellQuoted(dir.toString()) + "/\"answer $key\"",
                "if [ ! -f \"$key.status\" ]; then",
                "  " + shellQuoted(real) + " \"$@\" </dev/null >\"$key.out\" 2>\"$key.err\"",
                "  echo $? >\"$key.status\"",
                "fi",
                "cat \"$key.out\"",
                "if [ -s \"$key.err\" ]; then cat \"$key.err\" >&2; fi",
                "read -r status <\"$key.status\"",
                "exit \"$status\"",
                ""), StandardCharsets.UTF_8);
        assertThat(script.toFile().setExecutable(true)).as("made " + script + " executable").isTrue();
        return script.toString();
    }

    private static String shellQuoted(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * The real file behind the interpreter the collector picks by default ({@code python}, else {@code python3}):
     * what it says {@code sys.executable} is; null where neither is on the PATH or it cannot say.
     */
    static String interpreter() throws Exception {
        String name = onPath("python") ? "python" : onPath("python3") ? "python3" : null;
        if (name == null) {
            return null;
        }
        Process p = new ProcessBuilder(name, "-c", "import sys; print(sys.executable)").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(name + " answers").isTrue();
        return p.exitValue() == 0 && !out.isEmpty() && Files.isExecutable(Path.of(out)) ? out : null;
    }

    static Stream<String> articles() {
        return KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")).kb().articles().stream().map(KbArticle::id);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("articles")
    void theCollectorsBundleAroundTheCanonicalMessageRanksTheArticleFirst(String id) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash to run the collector");
        assumeTrue(onPath("zip") || onPath("python3") || onPath("python"), "the collector needs zip or python to write its archive");
        Path log = LOGS.resolve(id + ".log");
        assertThat(log).as("every article needs a canonical log " + log).isRegularFile();
        Path zip = collect(log);

        Diagnosis d = engine.diagnose(OfflineBundle.read(List.of(zip), p -> false));

        List<String> ranked = d.hypotheses().stream().map(Hypothesis::id).toList();
        assertThat(ranked).as("ranking of the collector's bundle around " + log + " (top: " + d.hypotheses().stream().limit(3)
                .map(h -> h.id() + "=" + String.format("%.3f", h.score())).toList() + ")").first().isEqualTo(id);
        // the canonical message is specific evidence; whether it is decisive enough for `diagnosed` is the
        // verdict policy's call, measured on the corpus (VerdictPolicy)
        assertThat(d.hypotheses().getFirst().strength()).as("the top cause has specific evidence")
                .isIn(Hypothesis.Strength.STRONG, Hypothesis.Strength.MODERATE);
        assertThat(d.verdict()).isNotEqualTo(Diagnosis.Verdict.NO_EVIDENCE);
        if (collectedPipList) {
            assertThat(d.ask()).as("'To be sure' never asks for pip list / nvcc -V when the collector put them in the zip")
                    .noneMatch(a -> a.artifact().contains("pip list"));
        }
    }

    @Test
    void everyArticleHasACanonicalLogAndEveryLogAnArticle() throws Exception {
        List<String> ids = KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")).kb().articles().stream()
                .map(KbArticle::id).toList();
        for (Path dir : List.of(LOGS, KERNEL_LOGS)) {
            try (Stream<Path> logs = Files.list(dir)) {
                assertThat(logs.filter(Files::isRegularFile).map(p -> p.getFileName().toString().replaceFirst("\\.log$", "")).toList())
                        .as("logs in " + dir).allMatch(ids::contains);
            }
        }
        assertThat(ids).allMatch(id -> Files.isRegularFile(LOGS.resolve(id + ".log")), "has a canonical log");
    }

    /** Runs the real collector with this machine's tools around a copy of {@code log}; returns the zip it wrote. */
    private Path collect(Path log) throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path copy = home.resolve("train.log");
        Files.copy(log, copy);
        Path zip = tmp.resolve("bundle.zip");
        List<String> command = new ArrayList<>(List.of("/bin/bash", SCRIPT.toString(), "-o", zip.toString()));
        if (python != null) {
            command.addAll(List.of("--python", python));
        }
        Path kernel = KERNEL_LOGS.resolve(log.getFileName());
        if (Files.isRegularFile(kernel)) {
            command.addAll(List.of("--kernel-log", kernel.toAbsolutePath().toString()));
        }
        command.add(copy.toString());
        ProcessBuilder pb = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true);
        pb.environment().put("TMPDIR", tmp.toString());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("the collector finishes").isTrue();
        String output = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(zip).as(output).isRegularFile();
        collectedPipList = output.contains("collected pip list");
        return zip;
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
    }
}
