package dev.crashlab.web.ui;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import io.quarkus.test.common.http.TestHTTPResource;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gives a browser test the profile's shared Chromium ({@link Browsers#shared()}) and a fresh context and page per
 * test, and fails a test whose page threw an uncaught error. Subclasses are {@code @QuarkusTest @TestProfile(UiTestProfile.class)}.
 */
abstract class BrowserPageTest {

    static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

    @TestHTTPResource("/")
    URL index;

    @TempDir
    Path tmp;

    private static Browser browser;

    BrowserContext context;
    Page page;
    final List<String> pageErrors = new ArrayList<>();

    @BeforeAll
    static void launch() {
        Assumptions.assumeTrue(Browsers.available(), Browsers.SKIP_REASON);
        browser = Browsers.shared();
    }

    @BeforeEach
    void openPage() {
        // signed in as the admin token the %test profile provisions (the sign-in pages have their own test)
        context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900).setLocale("en-US")
                .setExtraHTTPHeaders(java.util.Map.of("Authorization", "Bearer " + dev.crashlab.testing.TestAuth.ADMIN_TOKEN)));
        page = context.newPage();
        page.onPageError(pageErrors::add);
    }

    @AfterEach
    void closePage() {
        if (context != null) context.close();
        assertTrue(pageErrors.isEmpty(), () -> "uncaught errors in the page: " + pageErrors);
    }
}
