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
 * Tests skip themselves when {@link #available()} is false.
 */
final class Browsers {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final String SKIP_REASON = "Debian chromium not installed (/usr/bin/chromium): browser test skipped";

    private Browsers() {}

    static boolean available() {
        return Files.isExecutable(CHROMIUM);
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
