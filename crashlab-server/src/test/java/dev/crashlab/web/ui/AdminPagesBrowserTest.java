package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.options.AriaRole;
import dev.crashlab.testing.TestAuth;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's admin screens and upload items in Chromium: every token with a Revoke, the local worker online on the Workers
 * page, retention and quotas, the audit filter, a disabled account's own message, a repeated upload flagged on its report,
 * and a collector bundle named by what was read in it. Screenshots go to target/ui-screenshots/admin-*.png.
 */
@QuarkusTest
@TestProfile(ReproUiTestProfile.class)
class AdminPagesBrowserTest extends BrowserPageTest {

    static final LocatorAssertions.IsVisibleOptions SLOW = new LocatorAssertions.IsVisibleOptions().setTimeout(30_000);

    static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    void shot(Page p, String name) throws Exception {
        Files.createDirectories(SCREENSHOTS);
        p.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("admin-" + name + ".png")).setFullPage(true));
    }

    @Test
    void theAdminScreensShowTokensWorkersRetentionAndAFilteredAudit() throws Exception {
        String user = "ada-" + suffix();
        String token = TestAuth.userToken(user, "reporter");
        long uploaded = given().header("Authorization", "Bearer " + token)
                .multiPart("file", "train-" + suffix() + ".log", ("RuntimeError: CUDA error: out of memory " + suffix() + "\n").getBytes())
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");

        // every token, with its owner; Revoke asks, then the row says revoked
        page.navigate(index + "admin/tokens");
        Locator row = page.getByTestId("token-row").filter(new Locator.FilterOptions().setHasText(user));
        assertThat(row).hasCount(1);
        assertThat(row).containsText("reporter");
        // the provisioned token too (its name; tokens it made say "by token:CRASHLAB_ADMIN_TOKEN")
        assertThat(page.getByTestId("token-row").locator("td:first-child")
                .getByText("CRASHLAB_ADMIN_TOKEN", new Locator.GetByTextOptions().setExact(true))).hasCount(1);
        shot(page, "tokens");
        page.onDialog(d -> d.accept());
        row.getByRole(AriaRole.BUTTON, new Locator.GetByRoleOptions().setName("Revoke")).click();
        assertThat(row).containsText("revoked");
        given().header("Authorization", "Bearer " + token).get("/api/bundles").then().statusCode(401);

        // the server's own worker is online, and it has never been restarted
        page.navigate(index + "admin/workers");
        assertThat(page.getByTestId("local-worker")).containsText("online", new LocatorAssertions.ContainsTextOptions().setTimeout(30_000));
        assertThat(page.getByTestId("local-worker")).containsText("cpu backend");
        assertThat(page.getByTestId("local-worker-restarts")).hasText("Never restarted since the server started.");
        assertThat(page.getByText("None yet.")).hasCount(0);
        shot(page, "workers");

        // retention: the settings in force and what the uploader holds
        page.navigate(index + "admin/retention");
        assertThat(page.getByTestId("retention-settings")).containsText("retention is off");
        assertThat(page.getByTestId("retention-holders").locator("tr").filter(new Locator.FilterOptions().setHasText(user))).hasCount(1);
        assertThat(page.getByTestId("next-sweep")).containsText("Retention is off");
        shot(page, "retention");

        // the audit trail filtered to one user, then to one bundle
        page.navigate(index + "admin/audit");
        assertThat(page.getByTestId("audit-total")).isVisible(SLOW);
        page.getByLabel("Who").selectOption(user);
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Filter")).click();
        Locator actors = page.getByTestId("audit").locator("tbody tr td:nth-child(2)");
        assertThat(actors.first()).hasText(user);
        assertThat(page.getByTestId("audit-total")).containsText("page 1 of 1");
        for (String a : actors.allInnerTexts()) {
            org.junit.jupiter.api.Assertions.assertEquals(user, a, "every row is the chosen actor's");
        }
        page.getByLabel("Who").selectOption("");
        page.getByLabel("Bundle").fill(Long.toString(uploaded));
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Filter")).click();
        assertThat(page.getByTestId("audit").locator("tbody tr")).hasCount(1);
        assertThat(page.getByTestId("audit").locator("tbody tr")).containsText("bundle.upload");
        shot(page, "audit");
    }

    @Test
    void aDisabledUserIsToldPlainlyAndAWrongPasswordIsNot() throws Exception {
        String name = "off-" + suffix();
        String password = "correct horse battery";
        long id = given().contentType("application/json").body(Map.of("username", name, "password", password, "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201).extract().jsonPath().getLong("id");
        given().contentType("application/json").body(Map.of("disabled", true)).put("/api/admin/users/" + id).then().statusCode(200);
        BrowserContext c = page.context().browser().newContext(new Browser.NewContextOptions().setViewportSize(1280, 900).setLocale("en-US"));
        try {
            Page p = c.newPage();
            p.onPageError(pageErrors::add);
            p.navigate(index.toString());
            p.getByLabel("User name").fill(name);
            p.getByLabel("Password").fill("not " + password);
            p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
            assertThat(p.getByRole(AriaRole.ALERT)).containsText("Sign-in failed");
            assertThat(p.getByRole(AriaRole.ALERT)).containsText("wrong user name or password");
            assertThat(p.getByRole(AriaRole.ALERT)).not().containsText("disabled");
            p.getByLabel("Password").fill(password);
            p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
            assertThat(p.getByRole(AriaRole.ALERT)).containsText("Account disabled");
            assertThat(p.getByRole(AriaRole.ALERT)).containsText("Your account " + name + " is disabled");
            assertThat(p.getByRole(AriaRole.ALERT)).containsText(Pattern.compile("Ask an administrator of this CrashLab server"));
            assertThat(p.getByRole(AriaRole.ALERT)).not().containsText("wrong");
            shot(p, "disabled-sign-in");
        } finally {
            c.close();
        }
    }

    @Test
    void aRepeatedUploadIsFlaggedAndACollectorBundleIsNamedByItsCrash() throws Exception {
        String tag = suffix();
        byte[] zip = Zips.zip()
                .text("crash-bundle-20261129-051200/crash.log", TestZips.TRACEBACK + "# " + tag + "\n")
                .text("crash-bundle-20261129-051200/nvidia-smi.txt", TestZips.NVIDIA_SMI)
                .text("crash-bundle-20261129-051200/pip-list.txt", TestZips.PIP_FREEZE)
                .build();
        long first = given().contentType("application/zip").body(zip).queryParam("name", "crash-bundle-20261129-051200.zip")
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        long again = given().contentType("application/zip").body(zip).queryParam("name", "crash-bundle-20261129-061500.zip")
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(first);
        dev.crashlab.testing.Ready.await(again);

        page.navigate(index + "bundles/" + again);
        Locator same = page.getByTestId("same-files");
        assertThat(same).isVisible(SLOW);
        assertThat(same).containsText("Same files as #" + first + " crash-bundle-20261129-051200.zip");
        assertThat(same).containsText("uploaded by token:CRASHLAB_ADMIN_TOKEN");
        shot(page, "same-files");
        page.navigate(index + "bundles/" + first);
        assertThat(page.getByTestId("bundle-name")).isVisible(SLOW);
        assertThat(page.getByTestId("same-files")).hasCount(0);

        // the list names both by the crash, with the collector's file name under it
        page.navigate(index + "bundles");
        Locator row = page.getByTestId("bundle-row").filter(new Locator.FilterOptions().setHasText("crash-bundle-20261129-051200.zip"));
        assertThat(row.first()).isVisible(SLOW);
        assertThat(row.first().getByTestId("bundle-row-name")).containsText("OutOfMemoryError");
        assertThat(row.first().getByTestId("bundle-row-name")).containsText("torch 2.5");
        assertThat(row.first().getByTestId("bundle-row-name")).not().containsText("crash-bundle");
        assertThat(row.first().getByTestId("bundle-row-file")).hasText("crash-bundle-20261129-051200.zip");
        shot(page, "collector-names");
    }
}
