package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The home page's trends chart draws the crashes per day by cause the API counts (under the server's CSP), and the
 * Bundles list's rows say the cause, group and setting of each crash and can be pinned from the bundle page.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class HomeTrendsBrowserTest extends BrowserPageTest {

    static final Path CUDNN = Path.of("crashlab-core/src/test/resources/kb-fixtures/cudnn-version-mismatch");

    static long uploadCudnnCrash(String logName) throws Exception {
        long id = given().multiPart("file", logName, Files.readAllBytes(CUDNN.resolve("console.log")), "text/plain")
                .multiPart("file", "env.txt", Files.readAllBytes(CUDNN.resolve("env.txt")), "text/plain")
                .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        return id;
    }

    List<String> watchCsp() {
        List<String> violations = new ArrayList<>();
        page.onConsoleMessage(m -> {
            if (m.text().contains("Content Security Policy")) {
                violations.add(m.text());
            }
        });
        return violations;
    }

    @Test
    void theTrendsChartDrawsTheCrashesPerDayByCause() throws Exception {
        List<String> csp = watchCsp();
        uploadCudnnCrash("crash.log");
        uploadCudnnCrash("crash.log");
        JsonPath trends = given().queryParam("days", 30).get("/api/bundles/trends").then().statusCode(200).extract().jsonPath();
        long total = trends.getLong("total");
        assertTrue(total >= 2, "the two uploads are counted: " + total);

        page.navigate(index.toURI().resolve("/").toString());
        Locator chart = page.getByTestId("trends-chart");
        assertThat(chart.locator("canvas")).hasCount(1);
        assertThat(chart).hasAttribute("data-days", "30");
        assertThat(page.getByTestId("trends")).containsText(String.format(java.util.Locale.US, "%,d in all", total));

        // the legend lists the biggest causes with the API's totals, the cudnn mismatch among them
        Locator items = page.getByTestId("trends-legend-item");
        int series = Integer.parseInt(chart.getAttribute("data-series"));
        assertEquals(series, items.count());
        long legendSum = 0;
        for (int i = 0; i < items.count(); i++) {
            legendSum += Long.parseLong(items.nth(i).getAttribute("data-total"));
        }
        assertEquals(total, legendSum, "the legend adds up to every crash of the period");
        // the six biggest causes have a line of their own (the API sorts them biggest first), the rest one "Other causes"
        List<String> causes = trends.getList("series.causeId", String.class);
        int rank = causes.indexOf("cudnn-version-mismatch");
        assertTrue(rank >= 0, "the uploads' cause is counted: " + causes);
        if (rank < 6) {
            assertThat(items.filter(new Locator.FilterOptions().setHas(
                    page.locator("a[href='/bundles?q=cause%3Acudnn-version-mismatch']")))).hasCount(1);
        } else {
            assertThat(items.last()).containsText("Other causes");
        }
        assertEquals(Math.min(causes.size(), 7), series);

        // the canvas has lines drawn on it: pixels in the first series' colour (#2563eb), not a blank plot
        page.waitForFunction("() => { const c = document.querySelector('[data-testid=trends-chart] canvas');"
                + " return c && c.width > 0 && c.height > 0; }");
        Number drawn = (Number) page.evaluate("() => { const c = document.querySelector('[data-testid=trends-chart] canvas');"
                + " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;"
                + " for (let i = 0; i < d.length; i += 4) { if (Math.abs(d[i] - 37) < 40 && Math.abs(d[i + 1] - 99) < 40"
                + " && Math.abs(d[i + 2] - 235) < 40 && d[i + 3] > 0) n++; } return n; }");
        assertTrue(drawn.intValue() > 20, "pixels of the first series drawn: " + drawn);

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("home-trends.png")).setFullPage(true));
        assertTrue(csp.isEmpty(), () -> "the chart broke the page's policy: " + csp);
    }

    @Test
    void bundleRowsSayTheCauseGroupAndSettingAndAPinShows() throws Exception {
        String tag = "rowui" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        long id = uploadCudnnCrash("crash.log");
        long named = uploadCudnnCrash(tag + ".log");

        page.navigate(index.toURI().resolve("/bundles").toString());
        Locator row = page.getByTestId("bundle-row").filter(new Locator.FilterOptions()
                .setHas(page.locator("a[href='/bundles/" + id + "']")));
        assertThat(row).hasCount(1);
        assertThat(row.getByTestId("bundle-row-name")).hasText(java.util.regex.Pattern.compile("^crash\\.log · .*2080.*"));
        assertThat(row.getByTestId("bundle-row-cause")).containsText("cuDNN");
        assertThat(row.getByTestId("bundle-row-group")).hasText(java.util.regex.Pattern.compile("^group [0-9a-f]{12}$"));
        assertThat(row.getByTestId("bundle-row-setting")).containsText("2080");
        assertThat(row.getByTestId("bundle-row-setting")).containsText("tensorflow 2.6");
        assertThat(row.getByTestId("bundle-row-status")).hasAttribute("data-status", "READY");
        assertThat(row.getByTestId("bundle-row-status")).hasText("Ready");
        Locator namedRow = page.getByTestId("bundle-row").filter(new Locator.FilterOptions()
                .setHas(page.locator("a[href='/bundles/" + named + "']")));
        assertThat(namedRow.getByTestId("bundle-row-name")).hasText(tag + ".log");

        // pin it on its page; the list says so
        row.getByTestId("bundle-row-name").click();
        page.getByTestId("pin-button").click();
        assertThat(page.getByTestId("pinned-note")).isVisible();
        assertThat(page.getByTestId("pin-button")).hasText("Unpin");
        page.navigate(index.toURI().resolve("/bundles").toString());
        assertThat(row.getByTestId("bundle-row-pinned")).isVisible();
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("bundle-rows.png")).setFullPage(true));
    }
}
