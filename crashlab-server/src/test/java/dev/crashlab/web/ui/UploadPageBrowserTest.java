package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Drives the real UI (built by Quinoa, served by the app) in headless Debian Chromium. */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class UploadPageBrowserTest extends BrowserPageTest {

    @Test
    void uploadsAZipAndShowsItsArtifacts() throws Exception {
        Path zip = TestZips.crashBundle(tmp);

        page.navigate(index.toString());
        assertThat(page.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Upload a crash bundle"))).isVisible();
        // the collector scripts are linked from the page, and the links download them
        Locator linux = page.getByTestId("collector-hint").getByRole(AriaRole.LINK,
                new Locator.GetByRoleOptions().setName("collect-crash-bundle.sh"));
        assertThat(linux).hasAttribute("href", "/collector/collect-crash-bundle.sh");
        assertEquals(Files.readString(Path.of("collector/collect-crash-bundle.sh")),
                page.request().get(index.toURI().resolve("/collector/collect-crash-bundle.sh").toString()).text());
        page.getByTestId("file-input").setInputFiles(zip);
        assertThat(page.getByTestId("chosen-files")).containsText("crash-bundle.zip");
        page.getByLabel("Bundle name").fill("ui-crash-bundle");
        page.getByLabel("Notes").fill("RTX 3060 laptop, died at epoch 3");
        uploadButton().click();

        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));
        assertThat(page.getByTestId("bundle-name")).hasText("ui-crash-bundle");
        assertThat(page.getByText("RTX 3060 laptop, died at epoch 3")).isVisible();
        Locator rows = page.getByTestId("artifacts").getByTestId("artifact-row");
        assertThat(rows).hasCount(3);
        for (String path : List.of("crash.log", "nvidia-smi.txt", "env/pip-freeze.txt")) {
            assertThat(row(path)).hasCount(1);
        }

        row("crash.log").getByRole(AriaRole.BUTTON).click();
        Locator content = page.getByTestId("artifact-content");
        assertThat(content).containsText("Traceback (most recent call last):");
        assertThat(content).containsText("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 784.00 MiB.");
        assertThat(page).hasURL(Pattern.compile(".*/bundles/\\d+\\?artifact=\\d+$"));

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("bundle-page.png")).setFullPage(true));

        // the page survives a reload on its deep link (SPA routing serves index.html for /bundles/N)
        page.reload();
        assertThat(page.getByTestId("artifact-content")).containsText("Traceback (most recent call last):");
    }

    @Test
    void refusesAnArchiveThatEscapesTheBundle() throws Exception {
        int before = bundleTotal();
        Path zip = TestZips.evilBundle(tmp);

        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        uploadButton().click();

        Locator alert = page.getByRole(AriaRole.ALERT);
        assertThat(alert).isVisible();
        assertThat(alert).containsText("../evil.txt");
        assertThat(alert).not().containsText("Exception");
        // still on the upload page, with the file kept for a retry
        assertThat(page).hasURL(index.toString());
        assertThat(page.getByTestId("chosen-files")).containsText("evil.zip");
        assertThat(uploadButton()).isEnabled();
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("upload-refused.png")).setFullPage(true));

        assertEquals(before, bundleTotal(), "a refused upload must not create a bundle");
        assertThat(page.getByTestId("bundle-row").filter(new Locator.FilterOptions().setHasText("evil.zip"))).hasCount(0);
    }

    @Test
    void refusesAnOversizedUploadWithoutSendingIt() throws Exception {
        // the %test request limit is 4 MiB (application.properties); the page reads it from /api/limits
        Path big = Files.write(tmp.resolve("core.dump"), new byte[5 << 20]);
        List<String> posts = new ArrayList<>();
        page.onRequest(r -> {
            if (r.method().equals("POST")) posts.add(r.url());
        });

        page.waitForResponse(r -> r.url().endsWith("/api/limits"), () -> page.navigate(index.toString()));
        page.getByTestId("file-input").setInputFiles(big);
        uploadButton().click();

        Locator alert = page.getByRole(AriaRole.ALERT);
        assertThat(alert).containsText("5.0 MiB");
        assertThat(alert).containsText("at most 4.0 MiB");
        assertThat(page.getByTestId("chosen-files")).containsText("core.dump");
        assertEquals(List.of(), posts, "nothing is sent when the page already knows it is too large");
    }

    /** Needs SPA routing on the server: a deep link is answered with index.html, not a 404 problem. */
    @Test
    void unknownBundleShowsAFriendlyMessage() {
        page.navigate(index.toString() + "bundles/987654321");
        assertThat(page.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setLevel(1))).hasText("No bundle 987654321");
    }

    private Locator uploadButton() {
        return page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true));
    }

    private Locator row(String path) {
        return page.getByTestId("artifact-row").filter(new Locator.FilterOptions().setHasText(path));
    }

    /** The total the Bundles page shows, reached through the top bar as a user would. */
    private int bundleTotal() {
        page.navigate(index.toString());
        page.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Main"))
                .getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName("Bundles")).click();
        assertThat(page).hasURL(index + "bundles");
        return Integer.parseInt(page.getByTestId("bundles-total").getAttribute("data-total"));
    }
}
