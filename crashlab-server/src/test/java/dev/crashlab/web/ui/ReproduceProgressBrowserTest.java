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
 * Acceptance 3 of issue 15: a multi-layer CPU replay is watchable and cancellable: the Reproduce panel's progress
 * bar (the share of the replay's FLOPs done, with an ETA) advances while the local worker runs it, and Cancel
 * stops it.
 */
@QuarkusTest
@TestProfile(ReproUiTestProfile.class)
class ReproduceProgressBrowserTest extends BrowserPageTest {

    /** Six 3x3 convolutions of 64 channels on 64x64 input at batch 64: some hundreds of GFLOP for the CPU. */
    static String model() {
        StringBuilder layers = new StringBuilder("""
                {"class_name": "InputLayer", "config": {"name": "image", "batch_input_shape": [64, 64, 64, 64], "dtype": "float32"}}""");
        for (int i = 1; i <= 6; i++) {
            layers.append(",\n{\"class_name\": \"Conv2D\", \"config\": {\"name\": \"conv").append(i).append("\", \"trainable\": true,"
                    + " \"dtype\": \"float32\", \"filters\": 64, \"kernel_size\": [3, 3], \"strides\": [1, 1], \"padding\": \"same\","
                    + " \"data_format\": \"channels_last\", \"dilation_rate\": [1, 1], \"groups\": 1, \"activation\": \"relu\","
                    + " \"use_bias\": true}}");
        }
        return "{\"class_name\": \"Sequential\", \"keras_version\": \"2.10.0\", \"backend\": \"tensorflow\", \"config\": {"
                + "\"name\": \"six_convs\", \"layers\": [" + layers + "]}}";
    }

    @Test
    void theProgressBarAdvancesAndCancelStopsTheJob() throws Exception {
        Path zip = Files.write(tmp.resolve("six-convs.zip"), Zips.zip().text("model.json", model()).build());
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));

        Locator repro = page.getByTestId("reproduce");
        assertThat(repro.getByTestId("repro-spec")).hasValue(Pattern.compile("conv1[\\s\\S]*conv6"));
        assertThat(repro.getByTestId("repro-worker").filter(new Locator.FilterOptions().setHasText("local")))
                .containsText("CPU", new LocatorAssertions.ContainsTextOptions().setTimeout(60_000));
        repro.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Reproduce").setExact(true)).click();

        // the bar appears with the first heartbeat that carries a pass's progress
        Locator bar = repro.getByTestId("repro-progressbar");
        assertThat(bar).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(120_000));
        int first = Integer.parseInt(bar.getAttribute("aria-valuenow"));
        assertThat(repro.getByTestId("repro-progress")).containsText(Pattern.compile("layer \\d/6 conv\\d"));
        // ... and advances as layers and passes finish (heartbeats every few seconds)
        page.waitForCondition(() -> Integer.parseInt(bar.getAttribute("aria-valuenow")) > first,
                new Page.WaitForConditionOptions().setTimeout(180_000));
        int later = Integer.parseInt(bar.getAttribute("aria-valuenow"));
        assertTrue(later > first && later < 100, () -> "the bar went from " + first + "% to " + later + "%");
        assertThat(repro.getByTestId("repro-progress")).containsText(Pattern.compile("left"));

        repro.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Cancel")).click();
        assertThat(repro.getByTestId("repro-state")).hasText("cancelled",
                new LocatorAssertions.HasTextOptions().setTimeout(60_000));
        assertThat(bar).hasCount(0);
    }
}
