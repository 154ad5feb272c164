package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.options.AriaRole;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's last minor items in the browser: a problem's `code` shows as code (no raw backticks), nothing in the
 * Fix box runs past it at desktop and phone widths, counts are written with the one plural helper ("1 crash",
 * never "these 1 crashes"), and a collector's {@code crash-bundle-<date>.zip} has on its report the name the list
 * gives it. Screenshots go to target/ui-screenshots.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class MinorItemsBrowserTest extends BrowserPageTest {

    static final LocatorAssertions.IsVisibleOptions SLOW = new LocatorAssertions.IsVisibleOptions().setTimeout(30_000);

    @Test
    void aProblemsCodeShowsAsCodeNotAsBackticks() throws Exception {
        Path empty = Files.write(tmp.resolve("empty.zip"), new byte[0]);
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(empty);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        Locator detail = page.getByRole(AriaRole.ALERT).getByTestId("alert-detail");
        assertThat(detail).isVisible(SLOW);
        assertThat(detail).containsText("empty.zip");
        assertThat(detail.locator("code")).hasText("empty.zip");
        assertFalse(detail.innerText().contains("`"), "backticks in the message: " + detail.innerText());
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("problem-code.png")));
    }

    @Test
    void nothingInTheFixBoxRunsPastItOnADesktopOrAPhone() throws Exception {
        // c073 is a TDR reset: its fix names the long registry path HKLM\System\CurrentControlSet\Control\GraphicsDrivers
        Path c073 = Path.of("../shared/corpus/crash-bundles/c073");
        Assumptions.assumeTrue(Files.isDirectory(c073), "../shared/corpus is not present in this checkout");
        Path zip = Files.write(tmp.resolve("c073.zip"), Zips.zip()
                .text("crash.log", Files.readString(c073.resolve("crash.log")))
                .text("env.txt", Files.readString(c073.resolve("env.txt")))
                .build());
        long id = given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        for (int[] size : List.of(new int[] {1280, 900}, new int[] {375, 812})) {
            page.setViewportSize(size[0], size[1]);
            page.navigate(index.toString() + "bundles/" + id);
            Locator remedies = page.getByTestId("remedies");
            assertThat(remedies).isVisible(SLOW);
            assertThat(remedies).containsText("GraphicsDrivers");
            Object overflowing = page.evaluate("""
                    () => {
                      const box = document.querySelector('[data-testid=remedies]').getBoundingClientRect();
                      return [...document.querySelectorAll('[data-testid=remedies] *')]
                        .filter(e => e.getBoundingClientRect().right > box.right + 1 || e.scrollWidth > e.clientWidth + 1
                                     && getComputedStyle(e).display !== 'inline')
                        .map(e => e.tagName + ': ' + e.textContent.slice(0, 60));
                    }""");
            assertEquals(List.of(), overflowing, "elements past the Fix box at " + size[0] + " px");
            Number pageWidth = (Number) page.evaluate("document.documentElement.scrollWidth");
            assertTrue(pageWidth.intValue() <= size[0], "the page is " + pageWidth + " px wide at " + size[0] + " px");
            Files.createDirectories(SCREENSHOTS);
            remedies.screenshot(new Locator.ScreenshotOptions().setPath(SCREENSHOTS.resolve("fix-box-" + size[0] + ".png")));
        }
    }

    @Test
    void countsAreWrittenWithTheRightNoun() throws Exception {
        String word = "zqxplural" + System.nanoTime() % 100_000;
        upload("plural-one.zip", word);
        awaitSearchTotal(word, 1);
        page.navigate(index.toString() + "bundles?q=" + word);
        Locator heading = page.getByTestId("crash-results-heading");
        assertThat(heading).hasText(Pattern.compile("^1 crash matches "), new LocatorAssertions.HasTextOptions().setTimeout(30_000));
        assertThat(page.getByTestId("export-links")).containsText("Download 1 crash as");
        assertNoWrongPlural();

        upload("plural-two.zip", word);
        awaitSearchTotal(word, 2);
        page.navigate(index.toString() + "bundles?q=" + word);
        assertThat(heading).hasText(Pattern.compile("^2 crashes match "), new LocatorAssertions.HasTextOptions().setTimeout(30_000));
        assertThat(page.getByTestId("export-links")).containsText("Download 2 crashes as");
        assertNoWrongPlural();
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("plurals.png")));
    }

    @Test
    void aCollectorBundleHasOnItsPageTheNameTheListGivesIt() throws Exception {
        String file = "crash-bundle-20261129-101500.zip";
        Path zip = Files.write(tmp.resolve(file), Zips.zip()
                .text("crash.log", TestZips.TRACEBACK)
                .text("nvidia-smi.txt", TestZips.NVIDIA_SMI)
                .text("env/pip-freeze.txt", TestZips.PIP_FREEZE)
                .build());
        long id = given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        String shown = awaitDisplayName(id, file);
        assertFalse(shown.contains("crash-bundle-"), shown);

        page.navigate(index.toString() + "bundles");
        Locator row = page.getByTestId("bundle-row").filter(new Locator.FilterOptions().setHas(
                page.locator("a[href='/bundles/" + id + "']")));
        assertThat(row.getByTestId("bundle-row-name")).hasText(shown, new LocatorAssertions.HasTextOptions().setTimeout(30_000));

        page.navigate(index.toString() + "bundles/" + id);
        assertThat(page.getByTestId("bundle-name")).hasText(shown, new LocatorAssertions.HasTextOptions().setTimeout(30_000));
        assertThat(page.getByTestId("bundle-file-name")).hasText(file);
        assertThat(page).hasTitle(shown + " · CrashLab");
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("collector-name.png")));
    }

    private void upload(String name, String word) throws Exception {
        Path zip = Files.write(tmp.resolve(name), Zips.zip()
                .text("crash.log", "Traceback (most recent call last):\n  File \"train.py\", line 7, in <module>\n"
                        + "RuntimeError: " + word + " went wrong in step " + name.length() + "\n")
                .build());
        given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201);
    }

    private static void awaitSearchTotal(String q, int total) throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        int seen = -1;
        while (System.nanoTime() < end) {
            seen = given().queryParam("q", q).get("/api/bundles/search").then().statusCode(200).extract().<Integer>path("total");
            if (seen == total) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the search for " + q + " found " + seen + " crashes, not " + total);
    }

    private static String awaitDisplayName(long id, String name) throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        String shown = name;
        while (System.nanoTime() < end) {
            shown = given().get("/api/bundles/" + id).then().statusCode(200).extract().path("displayName");
            if (!name.equals(shown)) {
                return shown;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("bundle " + id + " is still shown as " + shown);
    }

    // "1 crashes", "1 files": a count of one with a plural noun, anywhere on the page
    private void assertNoWrongPlural() {
        String text = page.locator("main").innerText();
        assertFalse(Pattern.compile("(?<![\\d.,])1 (crashes|bundles|files|lines|artifacts|facts|days|matches)\\b").matcher(text).find(), text);
    }
}
