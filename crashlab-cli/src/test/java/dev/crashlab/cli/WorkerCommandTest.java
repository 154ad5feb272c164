package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/crashlab worker}'s checks before it talks to a server (the protocol itself: WorkerProtocolTest). */
class WorkerCommandTest {

    @TempDir
    Path dir;

    @Test
    void theCommandIsListed() {
        assertThat(CrashLabCliTest.run("help").out()).contains("worker");
        assertThat(CrashLabCliTest.run("help", "worker").out()).contains("--server", "--token-file", "--backend", "--once");
    }

    @Test
    void anEmptyTokenFileIsRefusedWithWhatToDo() throws Exception {
        Path empty = Files.writeString(dir.resolve("token"), "  \n");
        CrashLabCliTest.Run r = CrashLabCliTest.run("worker", "--server", "http://127.0.0.1:9", "--token-file", empty.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no token", "worker token");
    }

    @Test
    void anUnknownBackendIsRefused() {
        CrashLabCliTest.Run r = CrashLabCliTest.run("worker", "--server", "http://127.0.0.1:9", "--token", "t", "--backend", "tpu");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("cpu or cuda");
    }

    @Test
    void anUnreachableServerIsReportedNotThrown() {
        CrashLabCliTest.Run r = CrashLabCliTest.run("worker", "--server", "http://127.0.0.1:9", "--token", "t", "--once",
                "--scratch", dir.toString(), "--child-heap", "128m");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).contains("cpu backend on");
        assertThat(r.err()).startsWith("crashlab worker: ");
    }
}
