package dev.crashlab.testing;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The CrashLab server that {@link ChildServer} runs in a child JVM: the real application, started the way every
 * {@code @QuarkusTest} starts it (test profile, PostgreSQL), serving until the process is killed. Its name does not
 * end in {@code Test}, so the suite does not run it; {@link ServedAppMain} selects it inside the child.
 */
@QuarkusTest
public class ServedApp {

    /** System property naming the file the child writes its base URL to once it serves. */
    public static final String URL_FILE = "child-server.url-file";

    @TestHTTPResource("/")
    URL base;

    @Test
    void serveUntilKilled() throws Exception {
        String file = System.getProperty(URL_FILE);
        Assumptions.assumeTrue(file != null, "runs only inside ChildServer's child JVM");
        Path target = Path.of(file);
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(temp, base.toString());
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        Thread.sleep(Long.MAX_VALUE); // until the parent kills this JVM (kill -9, or SIGTERM to stop)
    }
}
