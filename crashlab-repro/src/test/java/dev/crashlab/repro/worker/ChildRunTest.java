package dev.crashlab.repro.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real child JVMs that crash, get killed, hang past their limit, or talk too much. */
class ChildRunTest {

    @TempDir
    Path dir;

    private ChildRun start(String behaviour) throws Exception {
        Path spec = Files.writeString(dir.resolve("spec.json"), ScriptedChild.spec(behaviour));
        return ChildJvm.likeThisJvm("64m", ScriptedChild.class.getName(), List.of(ChildProtocol.SPEC, spec.toString(),
                ChildProtocol.RESULT, dir.resolve("result.json").toString(), ChildProtocol.BACKEND, "cpu"))
                .start(dir.resolve("child.log"));
    }

    private static void awaitLine(ChildRun run, String line) throws InterruptedException {
        for (int i = 0; i < 600 && !run.logTail().contains(line); i++) {
            Thread.sleep(50);
        }
        assertThat(run.logTail()).as("the child printed %s", line).contains(line);
    }

    @Test
    void aChildThatHaltsWith134IsRecordedWithItsStatusAndLog() throws Exception {
        ChildExit exit = start("halt-134").await(Duration.ofSeconds(60));
        assertThat(exit.ending()).isEqualTo(ChildExit.Ending.EXITED);
        assertThat(exit.exitCode()).isEqualTo(134);
        assertThat(exit.signal()).isEqualTo("SIGABRT");
        assertThat(exit.logTail()).contains("fatal: simulated abort in native code");
        assertThat(exit.describe()).contains("exit status 134", "SIGABRT");
    }

    @Test
    void aChildKilledWithSigkillFromOutsideIsRecordedAsSuch() throws Exception {
        ChildRun run = start("hang");
        awaitLine(run, "ready");
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(run.pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        ChildExit exit = run.await(Duration.ofSeconds(60));
        assertThat(exit.ending()).as("the worker did not kill it").isEqualTo(ChildExit.Ending.EXITED);
        assertThat(exit.exitCode()).isEqualTo(137);
        assertThat(exit.signal()).isEqualTo("SIGKILL");
        assertThat(exit.logTail()).contains("ready");
    }

    @Test
    void aChildThatHangsPastItsLimitIsKilled() throws Exception {
        ChildRun run = start("hang");
        awaitLine(run, "ready");
        ChildExit exit = run.await(run.elapsed().plusMillis(300));
        assertThat(exit.ending()).isEqualTo(ChildExit.Ending.TIMED_OUT);
        assertThat(run.isAlive()).isFalse();
        assertThat(exit.exitCode()).isEqualTo(137);
        assertThat(exit.describe()).contains("wall-clock limit");
    }

    @Test
    void aCancelledChildIsKilledAndRecordedAsCancelled() throws Exception {
        ChildRun run = start("progress-then-hang");
        awaitLine(run, "ready");
        assertThat(LogTail.lastProgress(run.logTail())).isEqualTo("layer 1/2 forward");
        run.kill(ChildExit.Ending.CANCELLED);
        ChildExit exit = run.exit();
        assertThat(exit.ending()).isEqualTo(ChildExit.Ending.CANCELLED);
        assertThat(run.isAlive()).isFalse();
    }

    @Test
    void aNormalChildExitsZeroAndWritesItsResult() throws Exception {
        ChildExit exit = start("pass").await(Duration.ofSeconds(60));
        assertThat(exit.ending()).isEqualTo(ChildExit.Ending.EXITED);
        assertThat(exit.exitCode()).isZero();
        assertThat(exit.signal()).isNull();
        assertThat(Files.readString(dir.resolve("result.json"))).contains("\"passed\"");
    }

    @Test
    void theLogTailIsBoundedAndEndsWithTheLastLine() throws Exception {
        ChildExit exit = start("chatty").await(Duration.ofSeconds(60));
        assertThat(exit.exitCode()).isZero();
        assertThat(Files.size(dir.resolve("child.log"))).isGreaterThan(LogTail.DEFAULT_BYTES * 10L);
        assertThat(exit.logTail().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(LogTail.DEFAULT_BYTES);
        assertThat(exit.logTail()).startsWith("line ").contains("line 4999 of a long log");
    }

    @Test
    void progressIsTheLastProgressLineOnly() {
        assertThat(LogTail.lastProgress("a\nprogress: one\nb\nprogress: two\nc\n")).isEqualTo("two");
        assertThat(LogTail.lastProgress("x progress: not at a line start\n")).isNull();
        assertThat(LogTail.lastProgress("")).isNull();
    }

    @Test
    void aFastJarLauncherIsReplacedByItsJarFolders() {
        assertThat(ChildJvm.classpathOf("/opt/app/quarkus-run.jar"))
                .isEqualTo("/opt/app/app/*:/opt/app/lib/main/*");
        assertThat(ChildJvm.classpathOf("/a.jar:/b.jar")).isEqualTo("/a.jar:/b.jar");
    }

    @Test
    void signalNamesCoverTheCommonOnes() {
        assertThat(ChildExit.signalFor(139)).isEqualTo("SIGSEGV");
        assertThat(ChildExit.signalFor(143)).isEqualTo("SIGTERM");
        assertThat(ChildExit.signalFor(1)).isNull();
        assertThat(ChildExit.signalFor(255)).isNull();
    }
}
