package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's acceptance 5 and 6 in the browser: a bundle with nothing readable (an empty log, a PNG, random bytes)
 * says "Not enough evidence" and what could not be read, with the candidates as guesses; a real corpus bundle plus
 * healthy real files is confirmed with "This was it", the confirmed cause is shown first on its own report, and Back
 * from an evidence link returns to the report.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class ReportVerdictBrowserTest extends BrowserPageTest {

    static final Path CORPUS = Path.of("../shared/corpus");

    private void upload(String name, Path... files) {
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(files);
        page.getByLabel("Bundle name").fill(name);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));
    }

    @Test
    void nothingReadableSaysNotEnoughEvidence() throws Exception {
        BufferedImage img = new BufferedImage(120, 60, BufferedImage.TYPE_INT_RGB);
        for (int x = 0; x < 120; x++) {
            for (int y = 0; y < 60; y++) {
                img.setRGB(x, y, (x * 2) << 16 | (y * 4) << 8 | 0x80);
            }
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(img, "png", png);
        byte[] random = new byte[8192];
        new Random(7).nextBytes(random);
        Path shot = Files.write(tmp.resolve("screenshot.png"), png.toByteArray());
        Path bin = Files.write(tmp.resolve("core.dump"), random);
        Path empty = Files.write(tmp.resolve("console.log"), new byte[0]); // a truly empty log: 0 bytes
        record Case(Path file, String says) {}
        int n = 0;
        for (Case c : new Case[] {new Case(shot, "is an image"), new Case(bin, "is a binary file"), new Case(empty, "is an empty file")}) {
            upload("nothing-readable-" + n++, c.file());
            Locator verdict = page.getByTestId("verdict");
            assertThat(verdict).hasAttribute("data-verdict", "no-evidence");
            assertThat(verdict.getByRole(AriaRole.HEADING)).hasText("Not enough evidence");
            assertThat(verdict).containsText("Nothing in this bundle points at a cause");
            if (c.says() != null) {
                assertThat(page.getByTestId("verdict-unreadable")).containsText(c.file().getFileName() + " " + c.says());
            } else {
                assertThat(page.getByTestId("verdict-read")).containsText(c.file().getFileName().toString());
            }
            assertThat(page.getByTestId("verdict-upload")).containsText("complete console output");
            // candidates, if any, are labelled as guesses, carry no evidence, and no fixes are offered
            if (page.getByTestId("hypothesis").count() > 0) {
                assertThat(page.getByTestId("guesses-heading")).containsText("Guesses");
                assertThat(page.getByTestId("strength").first()).hasText("No evidence");
                assertThat(page.getByTestId("evidence")).hasCount(0);
                assertThat(page.getByTestId("remedies")).hasCount(0);
            }
            assertThat(page.getByTestId("how-to-read")).isVisible();
            Files.createDirectories(SCREENSHOTS);
            page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("no-evidence-" + n + ".png")).setFullPage(true));
        }
    }

    @Test
    void thisWasItConfirmsTheCauseFirstAndBackReturnsFromEvidence() throws Exception {
        Path bundle = CORPUS.resolve("crash-bundles/c073");
        Assumptions.assumeTrue(Files.isDirectory(bundle), "../shared/corpus is not present in this checkout");
        Path smi = CORPUS.resolve("nvidia-smi/table/nvidia_gpu_exporter__windows-x86_64__nvidia-geforce-rtx-2080-super__591.86__idle.txt");
        Path evtx = CORPUS.resolve("evtx/application-app-errors-dotnet.evtx");
        upload("corpus-plus-healthy", bundle.resolve("crash.log"), bundle.resolve("env.txt"), smi, evtx);

        Locator top = page.getByTestId("hypothesis").first();
        String id = top.getAttribute("data-id");
        // the top cause is the case's confirmed label (meta.json), so "This was it" confirms the real cause
        var labels = new com.fasterxml.jackson.databind.ObjectMapper().readTree(bundle.resolve("meta.json").toFile()).path("labels");
        org.junit.jupiter.api.Assertions.assertTrue(labels.toString().contains('"' + id + '"'), "top " + id + " is among the labels " + labels);
        String title = top.getByTestId("hypothesis-title").textContent().strip();
        // a diagnosed verdict is shown too, short (issue 27), naming the top cause
        assertThat(page.getByTestId("verdict")).hasAttribute("data-verdict", "diagnosed");
        assertThat(page.getByTestId("verdict")).containsText(title);
        assertThat(top.getByTestId("strength")).hasText(Pattern.compile("Strong evidence|Some evidence"));
        // other programs' events are listed apart, not as evidence
        assertThat(page.getByTestId("other-events")).containsText("not used as evidence");

        // Back from an evidence link returns to the report
        Locator link = top.getByTestId("evidence-source").first();
        link.click();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/\\d+\\?artifact=\\d+&line=\\d+$"));
        assertThat(page.getByTestId("artifact-viewer").getByTestId("highlighted-line")).hasCount(1);
        page.goBack();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/\\d+$"));
        assertThat(page.getByTestId("hypothesis").first()).hasAttribute("data-id", id);

        // "This was it" opens the confirm form with the cause chosen; confirming shows it first, above the ranking
        top.getByTestId("this-was-it").click();
        assertThat(page.getByTestId("resolution-article")).hasValue(id);
        page.getByTestId("resolution-note").fill("raised TdrDelay");
        page.getByTestId("resolution-save").click();
        Locator confirmed = page.getByTestId("confirmed-cause");
        assertThat(confirmed).hasText(title);
        double confirmedY = confirmed.boundingBox().y;
        double rankingY = page.getByTestId("hypotheses").boundingBox().y;
        org.junit.jupiter.api.Assertions.assertTrue(confirmedY < rankingY, "the confirmed cause is shown above the ranking");
        page.reload();
        assertThat(page.getByTestId("confirmed-cause")).hasText(title);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("confirmed-first.png")).setFullPage(true));
    }
}
