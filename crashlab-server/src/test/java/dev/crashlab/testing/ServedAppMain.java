package dev.crashlab.testing;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/** The child JVM's main class: runs {@link ServedApp} (the server) with the JUnit platform, as the suite would. */
public final class ServedAppMain {

    private ServedAppMain() {}

    public static void main(String[] args) {
        Launcher launcher = LauncherFactory.create();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                // by name: Quarkus loads the test class in its own class loader
                .selectors(DiscoverySelectors.selectClass("dev.crashlab.testing.ServedApp"))
                .build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request, summary);
        // serving never ends normally: whatever got here is a start-up failure
        summary.getSummary().printFailuresTo(new PrintWriter(System.err, true), 40);
        System.err.println("child server: the application stopped or did not start");
        System.exit(3);
    }
}
