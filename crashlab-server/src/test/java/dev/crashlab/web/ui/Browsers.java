package dev.crashlab.web.ui;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Launches the machine's Debian Chromium through Playwright without ever downloading a browser.
 * Tests skip themselves when {@link #available()} is false. {@link #shared()} is the one Chromium of the test
 * JVM's current Quarkus application (its class loader): each launch costs a Playwright driver (node) and a Chromium
 * start, so the browser classes of one test profile share one and open a fresh {@code BrowserContext} (no
 * cookies, storage or pages in common) per test.
 */
final class Browsers {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final String SKIP_REASON = "Debian chromium not installed (/usr/bin/chromium): browser test skipped";

    private Browsers() {}

    static boolean available() {
        return Files.isExecutable(CHROMIUM);
    }

    private static Browser shared;

    /** This class loader's one Chromium, launched on first use and closed when the JVM exits. */
    static synchronized Browser shared() {
        if (shared == null || !shared.isConnected()) {
            Playwright playwright = playwright();
            shared = chromium(playwright);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    playwright.close();
                } catch (RuntimeException | LinkageError e) {
                    // a later profile closed this class loader: the driver (node) exits when our end of its pipe
                    // closes with the JVM, and takes its Chromium with it
                }
            }, "close-chromium"));
        }
        return shared;
    }

    static Playwright playwright() {
        return Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    }

    static Browser chromium(Playwright playwright) {
        return playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(CHROMIUM).setHeadless(true).setChromiumSandbox(false)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run")));
    }
}
