package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
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
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3 of the reproduction issue: upload a bundle with a Keras model config, press Reproduce, watch
 * the server's local worker finish the job on the CPU backend, and see the result on the bundle page.
 */
@QuarkusTest
@TestProfile(ReproUiTestProfile.class)
class ReproduceBrowserTest extends BrowserPageTest {

    /** A small Keras 2 Sequential model: two 3x3 convolutions on 16x16 RGB input, batch 4. */
    static final String KERAS_MODEL = """
            {"class_name": "Sequential", "keras_version": "2.10.0", "backend": "tensorflow", "config": {
              "name": "tiny_cnn", "layers": [
                {"class_name": "InputLayer", "config": {"name": "image", "batch_input_shape": [4, 16, 16, 3], "dtype": "float32"}},
                {"class_name": "Conv2D", "config": {"name": "conv_a", "trainable": true, "dtype": "float32", "filters": 8,
                  "kernel_size": [3, 3], "strides": [1, 1], "padding": "same", "data_format": "channels_last",
                  "dilation_rate": [1, 1], "groups": 1, "activation": "relu", "use_bias": true}},
                {"class_name": "Conv2D", "config": {"name": "conv_b", "trainable": true, "dtype": "float32", "filters": 8,
                  "kernel_size": [3, 3], "strides": [2, 2], "padding": "valid", "data_format": "channels_last",
                  "dilation_rate": [1, 1], "groups": 1, "activation": "relu", "use_bias": true}}
              ]}}
            """;

    /** nvidia-smi's default table for the reporter's 6 GiB card, 801 MiB already in use. */
    static final String NVIDIA_SMI = """
            Sun Nov 22 07:40:00 2026
            +-----------------------------------------------------------------------------------------+
            | NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
            |-----------------------------------------+------------------------+----------------------+
            | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
            | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
            |                                         |                        |               MIG M. |
            |=========================================+========================+======================|
            |   0  NVIDIA GeForce RTX 2060        Off |   00000000:01:00.0  On |                  N/A |
            | 45%   62C    P2            120W /  160W |     801MiB /   6144MiB |     98%      Default |
            |                                         |                        |                  N/A |
            +-----------------------------------------+------------------------+----------------------+
            """;

    @Test
    void reproducesTheModelsConvolutionsOnTheCpuAndShowsTheResult() throws Exception {
        Path zip = Files.write(tmp.resolve("keras-bundle.zip"), Zips.zip()
                .text("model.json", KERAS_MODEL)
                .text("nvidia-smi.txt", NVIDIA_SMI)
                .build());
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));

        Locator repro = page.getByTestId("reproduce");
        // the extracted spec names both layers; the chart has one bar per layer plus the whole step
        assertThat(repro.getByTestId("repro-spec")).hasValue(Pattern.compile("conv_a[\\s\\S]*conv_b"));
        assertThat(repro.getByTestId("memory-row")).hasCount(3);
        assertThat(repro.getByTestId("memory-chart")).containsText("NVIDIA GeForce RTX 2060");
        assertThat(repro.getByTestId("memory-verdict")).hasText("fits");
        // the local worker has probed its CPU and is listed
        assertThat(repro.getByTestId("repro-worker").filter(new Locator.FilterOptions().setHasText("local")))
                .containsText("CPU", new LocatorAssertions.ContainsTextOptions().setTimeout(60_000));

        // edit the spec (the UI's most common edit: the batch), then reproduce under the reporter's 6 GiB
        Locator spec = repro.getByTestId("repro-spec");
        spec.fill(spec.inputValue().replaceFirst("\"batch\"\\s*:\\s*\\d+", "\"batch\" : 2"));
        repro.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Check and estimate")).click();
        Locator diagnosis = page.getByTestId("diagnosis");
        assertThat(diagnosis).hasAttribute("data-computed-at", Pattern.compile(".+"));
        String computedBefore = diagnosis.getAttribute("data-computed-at");
        repro.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Reproduce").setExact(true)).click();

        Locator state = repro.getByTestId("repro-state");
        assertThat(state).hasText("passed", new LocatorAssertions.HasTextOptions().setTimeout(120_000));
        // the outcome is evidence: the report shows the diagnosis recomputed with it, without a reload
        assertThat(diagnosis).not().hasAttribute("data-computed-at", computedBefore);
        assertThat(diagnosis).hasAttribute("data-computed-at", Pattern.compile(".+"));
        assertThat(repro.getByTestId("repro-reason")).containsText("2 layer(s) passed");
        Locator layers = repro.getByTestId("repro-layer");
        assertThat(layers).hasCount(2);
        assertThat(layers.first()).containsText("conv_a");
        assertThat(layers.first()).containsText("passed");
        assertThat(repro.getByTestId("repro-job")).containsText("memory capped at 6.0 GiB");
        assertThat(repro.getByTestId("repro-child")).containsText("exited normally");
        // the findings in words: batch 2 of two small layers fits the 6 GiB card with room for a computed larger
        // batch, and each pass is far under the 2 s watchdog (timed at the RTX 2060's peak, never "0 ms")
        Locator memory = repro.getByTestId("finding-memory");
        assertThat(memory).hasAttribute("data-fits", "yes");
        assertThat(memory).containsText("Fits on the reporter's card");
        assertThat(memory).containsText(Pattern.compile("the largest batch that fits is [\\d,]+"));
        assertThat(memory).containsText(Pattern.compile("NVIDIA GeForce RTX 2060 had [\\d.]+ GiB free"));
        assertThat(memory).not().containsText(Pattern.compile("\\d{7,}"));
        Locator time = repro.getByTestId("finding-time");
        assertThat(time).hasAttribute("data-over", "no");
        assertThat(time).containsText("Under the 2 s watchdog: the longest pass needs at least");
        assertThat(time).containsText("6.45 TFLOP/s");
        assertThat(time).not().containsText("at least 0 ms");
        assertThat(repro.getByTestId("repro-reason")).containsText("under a 6.0 GiB cap");

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("reproduce.png")).setFullPage(true));

        // the result survives a reload: the page shows the bundle's latest job
        page.reload();
        assertThat(page.getByTestId("repro-state")).hasText("passed");
        assertThat(page.getByTestId("repro-layer")).hasCount(2);

        // at 390 px the section does not make the page scroll sideways
        page.setViewportSize(390, 844);
        Object overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        // the outermost elements that stick out (their parent does not), to name the culprit in a failure
        Object wide = page.evaluate("(() => { const w = document.documentElement.clientWidth + 1;"
                + " const over = e => e && e.getBoundingClientRect().right > w;"
                + " return [...document.querySelectorAll('body *')].filter(e => over(e) && !over(e.parentElement))"
                + ".map(e => e.tagName + '.' + e.className + '[' + (e.dataset.testid || '') + ']').join(', '); })()");
        assertTrue(((Number) overflow).intValue() <= 0,
                () -> "the page scrolls sideways at 390 px by " + overflow + " px; widest: " + wide);
    }
}
