package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.options.AriaRole;
import dev.crashlab.parse.evtx.EvtxSystemLogFixture;
import dev.crashlab.testing.Ready;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2 of issue 27: a link to a Windows event log's record ({@code System.evtx:62800}) opens that record
 * with its fields, its XML and its neighbours, in under 1 s, and the page never downloads the .evtx file. The log
 * is written by the test-side EVTX writer. The 1 s is timed from the click to the record's fields on screen, after one
 * untimed open (first use of the code), as the median of {@link #TRIES} opens.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class EventEvidenceBrowserTest extends BrowserPageTest {

    static final long FIRST = 62_700;
    static final int COUNT = 200;
    /** Timed opens of the record; the median counts. */
    static final int TRIES = 3;

    @Test
    void anEventLogLinkOpensThatRecordWithItsNeighbours() throws Exception {
        long record = EvtxSystemLogFixture.kernelPowerRecord(FIRST, COUNT);
        Path zip = Files.write(tmp.resolve("tdr.zip"), Zips.zip()
                .text("crash.log", TestZips.TRACEBACK)
                .bytes("System.evtx", EvtxSystemLogFixture.bytes(FIRST, COUNT))
                .build());
        long bundle = given().multiPart("file", zip.toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        // read before the page opens: a report that turns from processing to ready while the test looks at it
        // renders its links again (a link found attached was detached again under load), and would add that to the time
        Ready.await(bundle);
        List<String> requests = new ArrayList<>();
        page.onRequest(r -> requests.add(r.url()));
        page.navigate(index.toString() + "bundles/" + bundle);

        // a link to the Kernel-Power record, wherever the page cites it (facts or evidence)
        Locator link = page.locator("a[href$='line=" + record + "']").first();
        assertThat(link).isAttached(new LocatorAssertions.IsAttachedOptions().setTimeout(30_000));
        Locator event = page.getByTestId("event-record");
        Locator close = page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Close viewer"));
        // once untimed: the first open in this page and this server JVM also loads and compiles the viewer's and the
        // event reader's code (JIT), which is not what the 1 s is about
        link.click();
        assertThat(event).hasAttribute("data-record", String.valueOf(record), new LocatorAssertions.HasAttributeOptions().setTimeout(30_000));
        close.click();
        assertThat(event).hasCount(0);
        // then timed: click to the record's fields on screen, each open asking the server again (the viewer keeps
        // nothing). The median of TRIES counts: a record that takes 1 s to open does so on most tries, while one open
        // slowed by other processes on a busy machine does not decide
        List<Long> tries = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            if (i > 0) {
                close.click();
                assertThat(event).hasCount(0);
            }
            int asked = (int) requests.stream().filter(u -> u.contains("/events/" + record)).count();
            long start = System.nanoTime();
            link.click();
            assertThat(event).hasAttribute("data-record", String.valueOf(record));
            assertThat(event.getByTestId("event-fields")).containsText("Microsoft-Windows-Kernel-Power");
            tries.add((System.nanoTime() - start) / 1_000_000);
            assertTrue(requests.stream().filter(u -> u.contains("/events/" + record)).count() > asked,
                    "the timed open asked the server for the record");
        }
        long millis = tries.stream().sorted().toList().get(TRIES / 2);
        System.out.printf("EventEvidenceBrowserTest: the record opened in %s ms (median of %d counts, after one untimed open)%n", tries, TRIES);
        assertTrue(millis < 1000, "the record opened in " + millis + " ms, the median (tries: " + tries + " ms)");

        assertThat(event.getByTestId("event-fields")).containsText("41");
        assertThat(event.getByTestId("event-fields")).containsText("Critical");
        assertThat(event.getByTestId("event-data")).containsText("BugcheckCode");
        assertThat(event.getByTestId("event-xml")).containsText("<EventRecordID>" + record + "</EventRecordID>");
        // the XML is text, never markup in our page
        assertEquals(0, ((Number) page.evaluate("document.querySelectorAll('[data-testid=event-xml] Event, [data-testid=event-xml] System').length")).intValue());
        Locator neighbours = event.getByTestId("event-neighbour");
        assertThat(neighbours).hasCount(6);
        assertThat(neighbours.first()).hasText(String.valueOf(record - 3));
        assertTrue(requests.stream().noneMatch(u -> u.contains("/content")), () -> "the page downloaded a file: " + requests);
        assertTrue(requests.stream().anyMatch(u -> u.contains("/events/" + record)), () -> "no record request: " + requests);
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("evtx-record.png")).setFullPage(true));

        // a neighbour opens in place; Back is not needed to return, the report link is still there
        neighbours.last().click();
        assertThat(event).hasAttribute("data-record", String.valueOf(record + 3));
        assertThat(page).hasURL(Pattern.compile(".*line=" + (record + 3) + "$"));
        assertTrue(requests.stream().noneMatch(u -> u.contains("/content")), () -> "the page downloaded a file: " + requests);

        // the endpoint says what is wrong in words
        long artifact = Long.parseLong(page.url().replaceAll(".*artifact=(\\d+).*", "$1"));
        given().get("/api/bundles/" + bundle + "/artifacts/" + artifact + "/events/99").then().statusCode(404);
        given().get("/api/bundles/" + bundle + "/artifacts/" + artifact + "/events/abc").then().statusCode(400);
        given().get("/api/bundles/" + bundle + "/artifacts/" + artifact + "/events/" + record + "?neighbours=500").then().statusCode(400);
        close.click();
    }
}
