package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Response;
import com.microsoft.playwright.options.AriaRole;
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
 * Uploaded files that would run script if a browser rendered them (an event export with an XHTML
 * {@code <script>}, an SVG, an HTML page) are opened in the UI's viewer, through its Raw link and by URL:
 * no script runs (a flag each script would set stays unset). The UI itself works under its
 * {@code script-src 'self'} policy (no violation is reported) and says how many secrets were removed.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class UntrustedContentBrowserTest extends BrowserPageTest {

    static final String SET_FLAG = "window.crashlabPwned = 1; try { window.opener && (window.opener.crashlabPwned = 1); "
            + "window.parent.crashlabPwned = 1; localStorage.setItem('crashlabPwned', '1'); } catch (e) {}";

    static final String EVENT_XML = """
            <Events><Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>
            <Provider Name='Application Error'/><EventID>1000</EventID><Level>2</Level></System>
            <EventData><Data>python.exe</Data></EventData>
            <html:script xmlns:html='http://www.w3.org/1999/xhtml'>%s</html:script></Event></Events>
            """.formatted(SET_FLAG);

    static final String SVG = """
            <svg xmlns="http://www.w3.org/2000/svg" onload="%s" width="10" height="10">
              <script>%s</script><rect width="10" height="10"/></svg>
            """.formatted(SET_FLAG, SET_FLAG);

    static final String HTML = """
            <!doctype html><html><body><h1>report</h1><script>%s</script>
            <img src="x" onerror="%s"></body></html>
            """.formatted(SET_FLAG, SET_FLAG);

    /**
     * Names that are HTML: the bundle's name and a file's name must show as text on every page that lists them. (No
     * {@code /} in the bundle name: a name is cut to its last path segment, so {@code </script>} would leave only
     * {@code script>}.)
     */
    static final String NAME_HTML = "<img src=x onerror=\"window.crashlabPwned=1\"><svg onload=\"window.crashlabPwned=1\">";

    static final String FILE_NAME_HTML = "<img src=x onerror=window.crashlabPwned=1>.log";

    @Test
    void scriptsInUploadedFilesNeverRun() throws Exception {
        List<String> cspViolations = new ArrayList<>();
        page.onConsoleMessage(m -> {
            if (m.text().contains("Content Security Policy")) {
                cspViolations.add(m.text());
            }
        });
        String token = "hf_" + "Q".repeat(4) + Long.toString(System.nanoTime(), 36) + "abcdefghijklmnopqrstuvwx";
        Path zip = Files.write(tmp.resolve("untrusted.zip"), Zips.zip()
                .text("events.xml", EVENT_XML)
                .text("drawing.svg", SVG)
                .text("report.html", HTML)
                .text("env.txt", "HF_TOKEN=" + token + "\n")
                .text(FILE_NAME_HTML, "RuntimeError: CUDA out of memory\n")
                .build());

        // uploaded through the UI: the browser's same-origin POST passes the Origin check
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        page.getByLabel("Bundle name").fill("ui-untrusted " + NAME_HTML);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));
        assertThat(page.getByTestId("redactions")).containsText("1 huggingface-token");
        // the names show as text: on the bundle page, and in the list of bundles
        assertThat(page.getByTestId("artifacts")).containsText(FILE_NAME_HTML);
        assertThat(page.locator("body")).containsText("onerror=\"window.crashlabPwned=1\"");
        assertFlagUnset(page, "the bundle page with HTML names");
        String bundlePage = page.url();
        page.navigate(index.toURI().resolve("/bundles").toString());
        assertThat(page.locator("body")).containsText("ui-untrusted");
        page.waitForTimeout(300); // an onerror handler would have fired by now
        assertFlagUnset(page, "the list with an HTML bundle name");
        page.navigate(bundlePage);
        assertThat(page.getByTestId("artifacts")).containsText("report.html");

        for (String path : List.of("events.xml", "drawing.svg", "report.html")) {
            Locator row = page.getByTestId("artifacts").getByTestId("artifact-row")
                    .filter(new Locator.FilterOptions().setHas(page.getByText(path, new Page.GetByTextOptions().setExact(true))));
            row.getByRole(AriaRole.BUTTON).first().click();
            // shown as text in the viewer
            assertThat(page.getByTestId("artifact-content")).containsText("crashlabPwned");
            assertFlagUnset(page, path + " in the viewer");

            // the viewer's Raw link opens the content URL in a new tab
            Page raw = context.waitForPage(() -> page.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Raw")).click());
            raw.waitForLoadState();
            assertTrue(raw.url().contains("/content"), raw.url());
            assertEquals("text/plain", raw.evaluate("() => document.contentType"), path + " raw");
            assertFlagUnset(raw, path + " through Raw");
            raw.close();

            // and by URL, typed into the address bar
            Page direct = context.newPage();
            Response response = direct.navigate(raw.url());
            assertTrue(response.headerValue("content-type").startsWith("text/plain"), path + ": " + response.headerValue("content-type"));
            assertEquals("sandbox; default-src 'none'", response.headerValue("content-security-policy"));
            direct.waitForTimeout(300); // an onload/onerror handler would have fired by now
            assertFlagUnset(direct, path + " by URL");
            direct.close();
        }
        assertFlagUnset(page, "the bundle page at the end");
        assertTrue(cspViolations.isEmpty(), () -> "the UI broke its own policy: " + cspViolations);
    }

    private static void assertFlagUnset(Page p, String where) {
        assertEquals(Boolean.TRUE, p.evaluate("() => window.crashlabPwned === undefined"), where + ": a script ran");
        Object stored = p.evaluate("() => { try { return localStorage.getItem('crashlabPwned'); } catch (e) { return null; } }");
        assertEquals(null, stored, where + ": a script wrote to storage");
    }
}
