package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's minor items on the report: the diagnosed verdict is shown, "To be sure" exists whenever the verdict
 * refers to it, article ids read as titles, KB snippets carry no Markdown, and on a phone (375 x 812) the header
 * is one short row and no log line runs off the screen. Screenshots go to target/ui-screenshots.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class ReportWordsBrowserTest extends BrowserPageTest {

    static final String LONG_PATH = "/home/ml/experiments/2026-11-21/resnet50-imagenet-amp-off/checkpoints/"
            + "very/deeply/nested/output/directory/that/never/ends/epoch-0003-step-000123456-loss-1.2345678.pt";

    private long upload(String name) throws Exception {
        Path zip = Files.write(tmp.resolve(name), Zips.zip()
                .text("crash.log", TestZips.TRACEBACK + "saving a checkpoint to " + LONG_PATH + " " + LONG_PATH + "\n")
                .text("nvidia-smi.txt", TestZips.NVIDIA_SMI)
                .text("env/pip-freeze.txt", TestZips.PIP_FREEZE)
                .build());
        return given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
    }

    @Test
    void aDiagnosedVerdictIsShownAndToBeSureExistsWheneverItIsReferredTo() throws Exception {
        long bundle = upload("oom.zip");
        page.navigate(index.toString() + "bundles/" + bundle);
        Locator verdict = page.getByTestId("verdict");
        assertThat(verdict).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
        String kind = verdict.getAttribute("data-verdict");
        if ("diagnosed".equals(kind)) {
            assertThat(verdict).containsText("Diagnosed:");
            assertThat(verdict).containsText(page.getByTestId("hypothesis-title").first().textContent());
        }
        if (verdict.textContent().contains("To be sure")) {
            assertThat(page.getByTestId("ask")).isVisible();
        }
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("report-verdict.png")));
        assertTrue(page.locator("[data-testid=evidence]").allTextContents().stream().noneMatch(t -> t.contains("?") && t.contains("requested")),
                "evidence with '? requested'");
    }

    @Test
    void aWeakVerdictsToBeSureSectionExistsAndSaysWhatTellsTheEqualsApart() throws Exception {
        Path bundle = Path.of("../shared/corpus/crash-bundles/c020");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(bundle), "../shared/corpus is not present in this checkout");
        Path zip = Files.write(tmp.resolve("c020.zip"), Zips.zip()
                .text("crash.log", Files.readString(bundle.resolve("crash.log")))
                .text("env.txt", Files.readString(bundle.resolve("env.txt")))
                .build());
        long id = given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        page.navigate(index.toString() + "bundles/" + id);
        Locator verdict = page.getByTestId("verdict");
        assertThat(verdict).hasAttribute("data-verdict", "weak", new LocatorAssertions.HasAttributeOptions().setTimeout(30_000));
        assertThat(verdict).containsText("To be sure");
        Locator ask = page.getByTestId("ask");
        assertThat(ask).isVisible();
        assertThat(ask.getByRole(com.microsoft.playwright.options.AriaRole.HEADING)).hasText("To be sure");
        // the equals are named by title, and each gets the question that would confirm it
        assertThat(page.getByTestId("verdict-equals")).not().containsText("-mismatch");
        Locator items = page.getByTestId("tell-apart-item");
        assertThat(items).not().hasCount(0);
        assertThat(items.first()).not().containsText("loading");
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("weak-to-be-sure.png")).setFullPage(true));
    }

    @Test
    void weakVerdictsShowAsWeakGuessesInTheListAndTheTrendChartHasALegendWithValues() throws Exception {
        Path c020 = Path.of("../shared/corpus/crash-bundles/c020");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(c020), "../shared/corpus is not present in this checkout");
        upload("trend-oom.zip");
        Path zip = Files.write(tmp.resolve("c020-list.zip"), Zips.zip()
                .text("crash.log", Files.readString(c020.resolve("crash.log")))
                .text("env.txt", Files.readString(c020.resolve("env.txt")))
                .build());
        long weak = given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        page.navigate(index.toString() + "bundles/" + weak);
        assertThat(page.getByTestId("verdict")).hasAttribute("data-verdict", "weak", new LocatorAssertions.HasAttributeOptions().setTimeout(30_000));
        page.navigate(index.toString() + "bundles");
        Locator row = page.getByTestId("bundle-row").filter(new Locator.FilterOptions().setHasText("c020-list.zip"));
        Locator cause = row.getByTestId("bundle-row-cause");
        assertThat(cause).not().containsText("no likely cause", new LocatorAssertions.ContainsTextOptions().setTimeout(30_000));
        assertThat(cause.locator("[data-weak=true]")).containsText("weak");

        Locator chart = page.getByTestId("trends-chart");
        assertThat(chart).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
        Locator legend = chart.locator(".u-legend");
        assertThat(legend).isVisible();
        assertThat(legend).containsText("Weak evidence");
        // hovering today's point shows each series' count in the legend
        var box = chart.locator(".u-over").boundingBox();
        page.mouse().move(box.x + box.width - 2, box.y + box.height / 2);
        assertThat(legend).containsText(java.util.regex.Pattern.compile("\\d+ crash(es)?"));
        Files.createDirectories(SCREENSHOTS);
        chart.screenshot(new Locator.ScreenshotOptions().setPath(SCREENSHOTS.resolve("trends-legend.png")));
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("list-weak.png")));
    }

    @Test
    void onAPhoneTheHeaderIsOneRowAndLogLinesWrap() throws Exception {
        long bundle = upload("phone.zip");
        long artifact = given().get("/api/bundles/" + bundle).then().statusCode(200)
                .extract().jsonPath().getLong("artifacts.find { it.path == 'crash.log' }.id");
        page.setViewportSize(375, 812);
        page.navigate(index.toString() + "bundles/" + bundle + "?artifact=" + artifact + "&line=1");
        Locator content = page.getByTestId("artifact-content");
        assertThat(content).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
        assertThat(content).containsText("epoch-0003");
        double header = ((Number) page.evaluate("document.querySelector('header.topbar').getBoundingClientRect().height")).doubleValue();
        assertTrue(header <= 64, "the header is " + header + " px high on a phone");
        // every nav link is still there (the row scrolls sideways), and the account is reachable
        assertThat(page.locator("header nav a")).not().hasCount(0);
        assertThat(page.getByTestId("account-link")).isVisible();
        Number overflowing = (Number) page.evaluate("""
                [...document.querySelectorAll('[data-testid=artifact-content] .line')]
                  .filter(l => l.getBoundingClientRect().right > window.innerWidth + 1 || l.scrollWidth > l.clientWidth + 1).length""");
        assertTrue(overflowing.intValue() == 0, overflowing + " log lines run past the screen");
        Number pageWidth = (Number) page.evaluate("document.documentElement.scrollWidth");
        assertTrue(pageWidth.intValue() <= 375, "the page is " + pageWidth + " px wide");
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("phone-log.png")));
    }

    @Test
    void articleIdsReadAsTitlesAndSnippetsHaveNoMarkdown() throws Exception {
        page.navigate(index.toString() + "kb/nccl-failure");
        Locator ref = page.locator("[data-testid=article-ref][data-id=shm-too-small]").first();
        assertThat(ref).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
        assertThat(ref).not().hasText("shm-too-small");
        page.navigate(index.toString() + "kb?q=" + java.net.URLEncoder.encode("shm-size ipc host", java.nio.charset.StandardCharsets.UTF_8));
        Locator snippets = page.getByTestId("kb-snippet");
        assertThat(snippets.first()).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
        for (String s : snippets.allTextContents()) {
            assertTrue(!s.contains("`") && !s.contains("**") && !s.matches("(?s).*\\]\\(.*"), "Markdown in a snippet: " + s);
        }
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("kb-snippets.png")));
    }
}
