package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Route;
import com.microsoft.playwright.options.AriaRole;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The bundle page's Environment panel and Facts section, and their links into the artifact viewer. */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class FactsPanelBrowserTest extends BrowserPageTest {

    static final String EXIT_LINE = "Process finished with exit code -1073740791 (0xC0000409)";

    /** A PyCharm run of a Keras job on Windows that died in native code after a Python error. */
    static final String CRASH_LOG = """
            C:\\Users\\ml\\miniconda3\\envs\\tf210\\python.exe C:/Users/ml/project/train.py
            2026-11-21 23:58:02.123456: I tensorflow/core/platform/cpu_feature_guard.cc:193] This TensorFlow binary is optimized with oneDNN
            Epoch 1/40
            Traceback (most recent call last):
              File "C:\\Users\\ml\\project\\train.py", line 88, in <module>
                model.fit(x_train, y_train, batch_size=64, epochs=40)
              File "C:\\Users\\ml\\miniconda3\\envs\\tf210\\lib\\site-packages\\keras\\utils\\traceback_utils.py", line 70, in error_handler
                raise e.with_traceback(filtered_tb) from None
            RuntimeError: CUDA error: an illegal memory access was encountered

            %s
            """.formatted(EXIT_LINE);

    /** The 1-based line of the exit status in {@link #CRASH_LOG}. */
    static final int EXIT_LINE_NO = CRASH_LOG.lines().toList().indexOf(EXIT_LINE) + 1;

    /**
     * What the facts endpoint answers in {@link #rendersEveryRowAndUnknownKinds}: facts of every family the
     * panel summarises, stated by parsers that may not exist yet, plus a kind the UI has no formatter for.
     */
    static final String RICH_FACTS = """
            {"bundleId": 1, "artifacts": [
              {"path": "crash.log", "type": "CONSOLE_LOG", "problems": [], "facts": [
                {"kind": "Platform", "os": "Microsoft Windows 11 Pro", "osFamily": "windows", "arch": "x86_64",
                 "python": "3.11.9", "cpu": null, "cpuFlags": [],
                 "sources": [{"artifact": "crash.log", "line": 1, "text": "C:\\\\Users\\\\ml\\\\python.exe"}]},
                {"kind": "VersionFact", "component": "cuda-runtime", "version": "12.1", "origin": "log",
                 "sources": [{"artifact": "crash.log", "line": 2, "text": "Loaded CUDA 12.1"}]},
                {"kind": "VersionFact", "component": "cudnn", "version": "9.1.0", "origin": "log",
                 "sources": [{"artifact": "crash.log", "line": 2, "text": "Loaded cuDNN 9.1.0"}]},
                {"kind": "GpuDevice", "index": null, "name": "NVIDIA GeForce RTX 2060", "computeCapability": "7.5",
                 "throttleReasons": [], "unavailable": {},
                 "sources": [{"artifact": "crash.log", "line": 3, "text": "Created device ... compute capability: 7.5"}]},
                {"kind": "FutureEvent", "provider": "Application Error", "eventId": 1000, "level": "Error",
                 "data": {"faultingModule": "ucrtbase.dll", "exceptionCode": "0xc0000409"},
                 "sources": [{"artifact": "crash.log", "line": 4, "text": "Faulting module name: ucrtbase.dll"}]},
                {"kind": "ExitStatus", "code": -1073740791, "hex": "0xC0000409", "name": "STATUS_STACK_BUFFER_OVERRUN",
                 "meaning": "a fast-fail abort", "statusKind": "NTSTATUS",
                 "sources": [{"artifact": "crash.log", "line": 11, "text": "Process finished with exit code -1073740791 (0xC0000409)"}]}
              ]},
              {"path": "nvidia-smi.txt", "type": "NVIDIA_SMI", "problems": ["MalformedInput: nvidia-smi.txt:5: no memory column"], "facts": [
                {"kind": "GpuDevice", "index": 0, "name": "NVIDIA GeForce RTX 2060", "uuid": null, "busId": "00000000:01:00.0",
                 "memoryTotalMiB": 6144, "memoryUsedMiB": 5801, "driverVersion": "560.35.03", "driverCudaVersion": "12.6",
                 "computeCapability": null, "performanceState": "P2", "temperatureC": 62, "throttleReasons": [], "unavailable": {},
                 "sources": [{"artifact": "nvidia-smi.txt", "line": 4, "text": "|   0  NVIDIA GeForce RTX 2060        Off |"}]}
              ]},
              {"path": "env/pip-freeze.txt", "type": "PIP_FREEZE", "problems": [], "facts": [
                {"kind": "VersionFact", "component": "torch", "version": "2.5.1+cu121", "origin": "pip freeze",
                 "sources": [{"artifact": "env/pip-freeze.txt", "line": 2, "text": "torch==2.5.1+cu121"}]},
                {"kind": "BuildInfo", "framework": "torch", "frameworkVersion": "2.5.1", "cudaVersion": "12.1",
                 "cudnnVersion": null, "cpuOnly": false,
                 "sources": [{"artifact": "env/pip-freeze.txt", "line": 2, "text": "torch==2.5.1+cu121"}]}
              ]}
            ]}
            """;

    @Test
    void environmentPanelDecodesTheExitStatusAndLinksToItsLine() throws Exception {
        assertTrue(EXIT_LINE_NO > 1, "the fixture holds the exit line");
        Path zip = Files.write(tmp.resolve("facts-bundle.zip"), Zips.zip()
                .text("crash.log", CRASH_LOG)
                .text("nvidia-smi.txt", TestZips.NVIDIA_SMI)
                .text("env/pip-freeze.txt", TestZips.PIP_FREEZE)
                .build());

        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        page.getByLabel("Bundle name").fill("ui-facts-bundle");
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));

        // the Environment panel: the exit status decoded, and the key rows present even when not stated
        Locator environment = page.getByTestId("environment");
        Locator exit = environment.getByTestId("env-exit");
        assertThat(exit).containsText("STACK_BUFFER_OVERRUN");
        assertThat(exit).containsText("0xC0000409");
        assertThat(environment.getByTestId("env-driver")).isVisible();
        assertThat(environment.getByTestId("env-gpus")).isVisible();

        // the Facts section: crash.log's exit status, grouped under its kind with a line link
        Locator crashLog = page.getByTestId("facts-artifact").filter(new Locator.FilterOptions().setHasText("crash.log"));
        Locator exitGroup = crashLog.locator("[data-kind='ExitStatus']");
        assertThat(exitGroup).containsText("STACK_BUFFER_OVERRUN");
        assertThat(exitGroup.getByTestId("line-link").first()).hasText("line " + EXIT_LINE_NO);

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("facts-panel.png")).setFullPage(true));

        // the exit status links to its line: the viewer opens crash.log there, highlighted and scrolled to
        exit.getByRole(AriaRole.LINK).first().click();
        assertThat(page).hasURL(Pattern.compile(".*/bundles/\\d+\\?artifact=\\d+&line=" + EXIT_LINE_NO + "$"));
        Locator viewer = page.getByTestId("artifact-viewer");
        assertThat(viewer.getByRole(AriaRole.HEADING)).hasText("crash.log");
        Locator highlighted = viewer.getByTestId("highlighted-line");
        assertThat(highlighted).hasCount(1);
        assertThat(highlighted).hasText(EXIT_LINE);
        assertThat(highlighted).isInViewport();
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("facts-panel-line.png")));

        // the Facts section's own "line N" link does the same, and a deep link survives a reload
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
        exitGroup.getByTestId("line-link").first().click();
        assertThat(highlighted).hasText(EXIT_LINE);
        assertThat(highlighted).isInViewport();
        page.reload();
        assertThat(page.getByTestId("highlighted-line")).hasText(EXIT_LINE);

        // at 390 px the page does not scroll sideways
        page.setViewportSize(390, 844);
        page.reload();
        assertThat(page.getByTestId("env-exit")).containsText("STACK_BUFFER_OVERRUN");
        assertThat(page.getByTestId("highlighted-line")).hasText(EXIT_LINE);
        Object overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        assertTrue(((Number) overflow).intValue() <= 0, () -> "the page scrolls sideways at 390 px by " + overflow + " px");
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("facts-panel-390.png")).setFullPage(true));
    }

    @Test
    void rendersEveryRowAndUnknownKinds() throws Exception {
        page.route("**/api/bundles/*/facts", route -> route.fulfill(new Route.FulfillOptions()
                .setStatus(200).setContentType("application/json").setBody(RICH_FACTS)));
        uploadBundle(Zips.zip()
                .text("crash.log", CRASH_LOG)
                .text("nvidia-smi.txt", TestZips.NVIDIA_SMI)
                .text("env/pip-freeze.txt", TestZips.PIP_FREEZE)
                .build());

        Locator env = page.getByTestId("environment");
        assertThat(env.getByTestId("env-os")).containsText("Microsoft Windows 11 Pro (x86_64)");
        assertThat(env.getByTestId("env-python")).containsText("3.11.9");
        assertThat(env.getByTestId("env-framework")).containsText("torch 2.5.1");
        assertThat(env.getByTestId("env-built")).containsText("CUDA 12.1");
        assertThat(env.getByTestId("env-cuda")).containsText("12.1");
        assertThat(env.getByTestId("env-cudnn")).containsText("9.1.0");
        // the driver's CUDA is labelled as the driver's limit, never as an installed toolkit
        Locator driver = env.getByTestId("env-driver");
        assertThat(driver).containsText("560.35.03");
        assertThat(driver).containsText("supports CUDA up to 12.6");
        assertThat(driver).containsText("not an installed toolkit");
        // nvidia-smi's card and the log's "Created device" are one GPU: name, memory and compute capability
        Locator gpus = env.getByTestId("env-gpus");
        assertThat(gpus.locator("li")).hasCount(1);
        assertThat(gpus).containsText("NVIDIA GeForce RTX 2060");
        assertThat(gpus).containsText("6.0 GiB");
        assertThat(gpus).containsText("compute capability 7.5");
        assertThat(env.getByTestId("env-exit")).containsText("0xC0000409 STATUS_STACK_BUFFER_OVERRUN");
        assertThat(env.getByTestId("env-exit")).containsText("a fast-fail abort");
        assertThat(env).not().containsText("Not stated in this bundle");

        // a kind the UI has no formatter for is shown field by field; problems are listed
        Locator crashLog = page.getByTestId("facts-artifact").filter(new Locator.FilterOptions().setHasText("crash.log"));
        assertThat(crashLog.locator("[data-kind='FutureEvent']")).containsText("provider: Application Error");
        assertThat(crashLog.locator("[data-kind='FutureEvent']")).containsText("faultingModule=ucrtbase.dll");
        Locator smi = page.getByTestId("facts-artifact").filter(new Locator.FilterOptions().setHasText("nvidia-smi.txt"));
        assertThat(smi.getByTestId("problems")).containsText("no memory column");

        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("facts-panel-rich.png")).setFullPage(true));

        // the GPU's value opens nvidia-smi.txt at the card's line
        gpus.getByRole(AriaRole.LINK).first().click();
        assertThat(page.getByTestId("artifact-viewer").getByRole(AriaRole.HEADING)).hasText("nvidia-smi.txt");
        assertThat(page.getByTestId("highlighted-line")).containsText("NVIDIA GeForce RTX 2060");
    }

    private void uploadBundle(byte[] zipBytes) throws Exception {
        Path zip = Files.write(tmp.resolve("bundle.zip"), zipBytes);
        page.navigate(index.toString());
        page.getByTestId("file-input").setInputFiles(zip);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Upload").setExact(true)).click();
        page.waitForURL(Pattern.compile(".*/bundles/\\d+$"));
    }
}
