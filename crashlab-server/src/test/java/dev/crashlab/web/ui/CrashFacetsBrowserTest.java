package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** The Bundles search in the browser: facet clicks add filters to the query, and the hits download as CSV. */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class CrashFacetsBrowserTest extends BrowserPageTest {

    static long upload(String name, String lib, boolean withSmi) throws Exception {
        String log = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import torch\n"
                + "OSError: " + lib + ": cannot open shared object file: No such file or directory\n";
        Zips z = Zips.zip().text("crash.log", log);
        if (withSmi) {
            z.text("nvidia-smi.txt", Files.readString(Path.of("crashlab-core/src/test/resources/fixtures/nvidia-smi-table/modern-550-two-gpus.txt")));
        }
        long id = given().multiPart("file", name, z.build(), "application/zip").when().post("/api/bundles").then().statusCode(201)
                .extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id); // read, diagnosed and indexed in the background
        return id;
    }

    /** Signs a fresh viewer in and gives the browser its session cookie, as the sign-in page would. */
    void signInWithCookie() throws java.net.URISyntaxException {
        String user = "facet-viewer-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String password = "pw-" + java.util.UUID.randomUUID();
        given().contentType("application/json")
                .body(java.util.Map.of("username", user, "password", password, "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201);
        String session = given().header("Authorization", "").contentType("application/json")
                .body(java.util.Map.of("username", user, "password", password)).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
        page.context().addCookies(List.of(new com.microsoft.playwright.options.Cookie("crashlab_session", session)
                .setUrl(index.toURI().resolve("/").toString())));
    }

    @Test
    void threeFacetClicksMakeAThreeFilterQueryAndTheHitsDownload() throws Exception {
        String tag = "facetui" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String lib = "lib" + tag + ".so";
        upload(tag + "-a.zip", lib, true);
        upload(tag + "-b.zip", lib, true);
        upload(tag + "-c.zip", lib, false);

        page.navigate(index.toURI().resolve("/bundles").toString());
        page.getByTestId("crash-search-input").fill(tag);
        page.getByTestId("crash-search-input").press("Enter");
        assertThat(page.getByTestId("crash-results-heading")).hasAttribute("data-total", "3");
        assertThat(page.getByTestId("facets")).isVisible();

        for (int click = 1; click <= 3; click++) {
            String q = currentQuery();
            Locator candidate = null;
            Locator values = page.getByTestId("facet-value");
            for (int i = 0; i < values.count(); i++) {
                String filter = values.nth(i).getAttribute("data-filter");
                if (!q.contains(filter)) {
                    candidate = values.nth(i);
                    break;
                }
            }
            assertTrue(candidate != null, "no facet value left to add to " + q);
            String filter = candidate.getAttribute("data-filter");
            String count = candidate.locator("xpath=following-sibling::span[@class='count']").textContent().strip();
            candidate.click();
            assertThat(page.getByTestId("crash-results-heading")).hasAttribute("data-total", count);
            assertTrue(currentQuery().endsWith(" " + filter), () -> currentQuery() + " should end with " + filter);
        }
        String q = currentQuery();
        assertEquals(4, q.split(" (?=[a-z-]+:)").length, q); // the tag and three filters
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("crash-facets.png")).setFullPage(true));

        signInWithCookie(); // a download is fetched by the browser itself, with the session cookie a user has
        Download download = page.waitForDownload(() -> page.getByTestId("export-csv").click());
        List<String> lines = Files.readAllLines(download.path());
        assertTrue(lines.getFirst().startsWith("bundleId,name,uploadedAt"), lines::toString);
        String total = page.getByTestId("crash-results-heading").getAttribute("data-total");
        assertEquals(Integer.parseInt(total), lines.size() - 1, lines::toString);
        assertTrue(lines.stream().skip(1).allMatch(l -> l.contains(tag)), lines::toString);
    }

    @Test
    void aGroupPageShowsItsCorrelationTable() throws Exception {
        String tag = "groupui" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String lib = "lib" + tag + ".so";
        upload(tag + "-a.zip", lib, true);
        upload(tag + "-b.zip", lib, true);
        String key = given().queryParam("q", "lib:" + lib).when().get("/api/bundles/search").then().statusCode(200)
                .extract().jsonPath().getString("hits[0].group");

        page.navigate(index.toURI().resolve("/groups").toString());
        Locator row = page.getByTestId("group-row").filter(new Locator.FilterOptions().setHasText(lib));
        assertThat(row).hasCount(1);
        assertThat(row.locator(".sparkline")).isVisible();
        row.getByRole(com.microsoft.playwright.options.AriaRole.LINK).click();
        assertThat(page).hasURL(java.util.regex.Pattern.compile(".*/groups/" + key + "$"));
        assertThat(page.getByTestId("group-heading")).containsText(lib);
        Locator driver = page.getByTestId("correlation-row").filter(new Locator.FilterOptions().setHasText("driver 550.127"));
        assertThat(driver).hasCount(1);
        assertThat(driver.locator("td").nth(1)).hasText("100 %");
        assertThat(page.getByTestId("group-bundles").locator("li")).hasCount(2);
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("crash-group.png")).setFullPage(true));
    }

    private String currentQuery() {
        String url = page.url();
        int at = url.indexOf("?q=");
        String q = url.substring(at + 3);
        int amp = q.indexOf('&');
        return URLDecoder.decode(amp < 0 ? q : q.substring(0, amp), StandardCharsets.UTF_8);
    }
}
