package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The report page and the knowledge base in the browser: a fixture bundle of ours ranks its cause first with
 * the evidence linked to its line, and the KB finds {@code 0xC0000409} and {@code zlibwapi} and opens the article.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class DiagnosisReportBrowserTest extends BrowserPageTest {

    static final String CAUSE = "missing-zlibwapi";
    static final Path FIXTURE = Path.of("crashlab-core/src/test/resources/kb-fixtures", CAUSE);

    @Test
    void uploadedBundleShowsTheTopCauseWithItsEvidenceHighlighted() throws Exception {
        Path[] files;
        try (Stream<Path> s = Files.list(FIXTURE)) {
            files = s.filter(Files::isRegularFile).sorted().toArray(Path[]::new);
        }
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(files);
        page.getByLabel("Bundle name").fill("ui-diagnosis-bundle");
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));

        Locator top = page.getByTestId("hypothesis").first();
        assertThat(top).hasAttribute("data-id", CAUSE);
        assertThat(top.getByTestId("hypothesis-title")).hasText(title(CAUSE));
        assertThat(top.getByTestId("strength")).hasText("Strong evidence");
        assertThat(top.getByTestId("remedies")).isVisible();

        // the evidence names the zlibwapi line, and its link opens the log there, highlighted
        Locator evidence = top.getByTestId("evidence").filter(new Locator.FilterOptions().setHasText("zlibwapi"));
        assertTrue(evidence.count() > 0, "some evidence mentions zlibwapi");
        Locator link = evidence.first().getByTestId("evidence-source");
        String lineText = link.locator(".evidence-line").textContent();
        link.click();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/\\d+\\?artifact=\\d+&line=\\d+$"));
        Locator highlighted = page.getByTestId("artifact-viewer").getByTestId("highlighted-line");
        assertThat(highlighted).hasCount(1);
        assertThat(highlighted).containsText(lineText.strip());
        assertThat(highlighted).isInViewport();

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("report.png")).setFullPage(true));

        // the title links to the article
        top.getByTestId("hypothesis-title").click();
        assertThat(page).hasURL(Pattern.compile(".*/kb/" + CAUSE + "$"));
        assertThat(page.getByTestId("kb-article-title")).hasText(title(CAUSE));
    }

    @Test
    void knowledgeBaseSearchFindsExitCodesAndDllNamesAndOpensTheArticle() throws Exception {
        page.navigate(index.toURI().resolve("/kb").toString());
        assertThat(page.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Knowledge base").setExact(true))).isVisible();
        assertThat(page.getByTestId("kb-category-installation")).isVisible();

        page.getByTestId("kb-search-input").fill("0xC0000409");
        page.getByTestId("kb-search-input").press("Enter");
        assertThat(page).hasURL(Pattern.compile(".*/kb\\?q=0xC0000409$"));
        Locator hits = page.getByTestId("kb-hit");
        assertThat(hits.first()).isVisible();
        assertThat(page.getByTestId("kb-snippet").locator("mark").first()).isVisible();

        page.getByTestId("kb-search-input").fill("zlibwapi");
        page.getByTestId("kb-search-input").press("Enter");
        Locator zlib = hits.filter(new Locator.FilterOptions().setHasText(title(CAUSE)));
        assertThat(zlib).hasCount(1);
        assertThat(hits.first()).containsText(title(CAUSE));
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("kb-search.png")).setFullPage(true));

        zlib.getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName(title(CAUSE))).click();
        assertThat(page).hasURL(Pattern.compile(".*/kb/" + CAUSE + "$"));
        assertThat(page.getByTestId("kb-article-title")).hasText(title(CAUSE));
        Locator body = page.getByTestId("kb-article-body");
        assertThat(body.getByRole(AriaRole.HEADING).first()).isVisible();
        assertThat(body).containsText("zlibwapi");

        // a deep link survives a reload; an unknown article says so
        page.reload();
        assertThat(page.getByTestId("kb-article-title")).hasText(title(CAUSE));
        page.navigate(index.toURI().resolve("/kb/no-such-cause").toString());
        assertThat(page.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setLevel(1))).containsText("No article");
    }

    /** The article's title, as its front matter states it. */
    static String title(String id) throws IOException {
        String text = Files.readString(Path.of("kb-articles", id + ".md"));
        Matcher m = Pattern.compile("(?m)^title:\\s*(.+?)\\s*$").matcher(text);
        assertTrue(m.find(), "the article has a title");
        String t = m.group(1);
        if ((t.startsWith("\"") && t.endsWith("\"")) || (t.startsWith("'") && t.endsWith("'"))) {
            t = t.substring(1, t.length() - 1);
        }
        return t;
    }
}
