package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Past crashes in the browser: the report lists a similar crash with what it shares and links to it, and the
 * bundles page searches past crashes with highlighted snippets.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class PastCrashesBrowserTest extends BrowserPageTest {

    static long upload(String name, String lib, String script) {
        String log = "Traceback (most recent call last):\n  File \"" + script + "\", line 3, in <module>\n    import torch\n"
                + "OSError: " + lib + ": cannot open shared object file: No such file or directory\n";
        long id = given().multiPart("file", name, log.getBytes(), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id); // diagnosed, so indexed as a past crash, in the background
        return id;
    }

    @Test
    void theReportListsTheSimilarCrashAndTheBundlesPageFindsBoth() throws Exception {
        String lib = "libuitest" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + ".so";
        long first = upload("first-run.log", lib, "train.py");
        long second = upload("second-run.log", lib, "finetune.py");

        page.navigate(index.toURI().resolve("/bundles/" + second).toString());
        Locator similar = page.getByTestId("similar-crash").filter(new Locator.FilterOptions().setHasText("first-run.log"));
        assertThat(similar).hasCount(1);
        assertThat(similar.getByTestId("shared-term").filter(new Locator.FilterOptions().setHasText(lib))).hasCount(1);
        assertThat(similar).containsText("% alike");
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("similar-crashes.png")).setFullPage(true));
        similar.getByRole(com.microsoft.playwright.options.AriaRole.LINK,
                new Locator.GetByRoleOptions().setName("first-run.log")).click();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/" + first + "$"));
        assertThat(page.getByTestId("similar-crash").filter(new Locator.FilterOptions().setHasText("second-run.log"))).hasCount(1);

        page.navigate(index.toURI().resolve("/bundles").toString());
        page.getByTestId("crash-search-input").fill(lib);
        page.getByTestId("crash-search-input").press("Enter");
        assertThat(page).hasURL(Pattern.compile(".*/bundles\\?q=" + lib.replace(".", "\\.") + "$"));
        assertThat(page.getByTestId("crash-results-heading")).hasAttribute("data-total", "2");
        Locator hits = page.getByTestId("crash-hit");
        assertThat(hits).hasCount(2);
        assertThat(page.getByTestId("crash-snippet").locator("mark").first()).hasText(lib);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("crash-search.png")).setFullPage(true));

        // a search that finds nothing says so and offers the knowledge base
        page.getByTestId("crash-search-input").fill(lib + " nosuchwordanywhere");
        page.getByTestId("crash-search-input").press("Enter");
        assertThat(page.getByTestId("crash-results-heading")).containsText("No crash matches");
        assertThat(page.getByText("search the knowledge base")).isVisible();

        // at 390 px neither page scrolls sideways
        page.setViewportSize(390, 844);
        for (String path : new String[] {"/bundles?q=" + lib, "/bundles/" + second}) {
            page.navigate(index.toURI().resolve(path).toString());
            assertThat(page.getByTestId(path.contains("?q=") ? "crash-hit" : "similar-crash").first()).isVisible();
            Object overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
            assertTrue(((Number) overflow).intValue() <= 0, () -> path + " scrolls sideways at 390 px by " + overflow + " px");
        }
    }

    @Test
    void confirmingACauseShowsOnTheReportAndOnSimilarCrashesAndCanBeTakenBack() throws Exception {
        String lib = "libuiconfirm" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + ".so";
        long first = upload("solved.log", lib, "train.py");
        long second = upload("unsolved.log", lib, "train2.py");
        String title = DiagnosisReportBrowserTest.title("corrupt-install");

        page.navigate(index.toURI().resolve("/bundles/" + first).toString());
        page.getByTestId("confirm-cause").click();
        page.getByTestId("resolution-article").selectOption("corrupt-install");
        page.getByTestId("resolution-note").fill("a clean reinstall of the wheel fixed it");
        page.getByTestId("resolution-save").click();
        assertThat(page.getByTestId("confirmed-cause")).hasText(title);
        assertThat(page.getByTestId("confirmed-note")).hasText("a clean reinstall of the wheel fixed it");
        page.reload();
        assertThat(page.getByTestId("confirmed-cause")).hasText(title);

        // the article lists it among its confirmed crashes, with the note
        page.navigate(index.toURI().resolve("/kb/corrupt-install").toString());
        Locator listed = page.getByTestId("kb-confirmed-bundle").filter(new Locator.FilterOptions().setHasText("solved.log"));
        assertThat(listed.first()).containsText("a clean reinstall of the wheel fixed it");

        page.navigate(index.toURI().resolve("/bundles/" + second).toString());
        Locator similar = page.getByTestId("similar-crash").filter(new Locator.FilterOptions().setHasText("solved.log"));
        assertThat(similar.getByTestId("similar-cause")).hasText("Confirmed cause: " + title);
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("confirmed-similar.png")).setFullPage(true));

        // the confirmation is evidence in the other crash's report, and its source opens the confirmed bundle
        Locator confirmedEvidence = page.getByTestId("evidence").filter(new Locator.FilterOptions().setHasText("was confirmed as this cause"));
        assertThat(confirmedEvidence.first()).isVisible();
        confirmedEvidence.first().getByTestId("evidence-source").click();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/" + first + "$"));
        page.getByTestId("undo-confirmation").click();
        assertThat(page.getByTestId("confirm-cause")).isVisible();
        page.reload();
        assertThat(page.getByTestId("confirm-cause")).isVisible();
        assertThat(page.getByTestId("confirmed-cause")).hasCount(0);
    }
}
