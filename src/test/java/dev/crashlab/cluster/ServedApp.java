package dev.crashlab.cluster;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * The application served in a child JVM for {@link ServerProcess}: {@link #main} runs {@link #serve} through the
 * JUnit launcher, so that Quarkus boots exactly as for {@code @QuarkusTest} (same build, same {@code %test} profile;
 * system properties override settings). Not a test of its own: its name keeps surefire away, and {@link #serve} does
 * nothing without the {@link #READY} property.
 */
@QuarkusTest
public class ServedApp {

    /** The file the child writes its base URL into once it serves. */
    static final String READY = "served-app.ready-file";

    @TestHTTPResource("/")
    URL url;

    @Test
    void serve() throws Exception {
        String ready = System.getProperty(READY);
        Assumptions.assumeTrue(ready != null, "only run as a child server by ServerProcess");
        Path file = Path.of(ready);
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        String base = url.toString().replaceAll("/+$", "");
        Files.writeString(temp, base);
        Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Thread.sleep(Long.MAX_VALUE); // serves until the parent stops or kills this process
    }

    public static void main(String[] args) {
        // by name, so that discovery loads the class through Quarkus' facade class loader (the session sets it up)
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectMethod(ServedApp.class.getName() + "#serve")).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        try (LauncherSession session = LauncherFactory.openSession()) {
            Launcher launcher = session.getLauncher();
            launcher.execute(request, summary);
        }
        summary.getSummary().printFailuresTo(new java.io.PrintWriter(System.err, true), 30);
        System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
    }
}
