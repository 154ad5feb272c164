package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.options.AriaRole;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1 of issue 27: a viewer, a reporter, a triager, a lab member and an admin, each signed in with a password, see on
 * a diagnosed bundle and the bundle list exactly the actions their roles allow; and for each action the server
 * agrees (shown: allowed; hidden: 403), so no button ends in a 403.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class RoleActionsBrowserTest extends BrowserPageTest {

    static final String PASSWORD = "correct horse battery";

    /** What one role may do, from the server's role matrix (web/*Resource @RolesAllowed, account/Ownership). */
    record Allowed(String role, boolean upload, boolean confirm, boolean pin, boolean delete, boolean reproduce, boolean admin) {}

    @Test
    void eachRoleSeesExactlyTheActionsItsRolesAllow() throws Exception {
        // someone else's bundle (the admin token's), diagnosed: a reporter may not delete it, a triager may
        long bundle = given().multiPart("file", TestZips.crashBundle(tmp).toFile()).post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        List<Allowed> matrix = List.of(
                new Allowed("viewer", false, false, false, false, false, false),
                new Allowed("reporter", true, false, false, false, false, false),
                new Allowed("triager", false, true, true, true, false, false),
                new Allowed("lab", false, false, false, false, true, false),
                new Allowed("admin", true, true, true, true, true, true));
        Files.createDirectories(SCREENSHOTS);
        for (Allowed a : matrix) {
            String user = a.role() + "-" + UUID.randomUUID().toString().substring(0, 8);
            given().contentType("application/json").body(Map.of("username", user, "password", PASSWORD, "roles", List.of(a.role())))
                    .post("/api/admin/users").then().statusCode(201);
            BrowserContext c = page.context().browser().newContext(new Browser.NewContextOptions().setViewportSize(1280, 900).setLocale("en-US"));
            Page p = c.newPage();
            p.onPageError(pageErrors::add);
            p.navigate(index.toString() + "bundles/" + bundle);
            p.getByLabel("User name").fill(user);
            p.getByLabel("Password").fill(PASSWORD);
            p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
            assertThat(p.getByTestId("account-link")).hasText(user, new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setUseInnerText(true));
            String cookie = c.cookies().stream().filter(k -> k.name.equals("crashlab_session")).findFirst().orElseThrow().value;

            // the report is there before anything is counted as absent
            assertThat(p.getByTestId("hypothesis").first()).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(30_000));
            assertThat(p.getByTestId("resolution")).isVisible();
            Locator nav = p.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Main"));
            count(a, "Upload in the menu", nav.getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName("Upload")), a.upload());
            count(a, "Admin in the menu", nav.getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName("Admin")), a.admin());
            count(a, "This was it", p.getByTestId("this-was-it"), a.confirm());
            count(a, "Confirm the cause", p.getByTestId("confirm-cause"), a.confirm());
            count(a, "Pin", p.getByTestId("pin-button"), a.pin());
            count(a, "Delete", p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Delete").setExact(true)), a.delete());
            count(a, "Reproduce", p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Reproduce").setExact(true)), a.reproduce());
            if (!a.confirm()) {
                assertThat(p.getByTestId("resolution-none")).hasText("No cause confirmed yet.");
                assertThat(p.getByTestId("how-to-read")).not().containsText("This was it");
            } else {
                assertThat(p.getByTestId("how-to-read")).containsText("This was it");
                // This was it opens the confirm form with the cause chosen, below the diagnosis
                p.getByTestId("this-was-it").first().click();
                assertThat(p.getByTestId("resolution-article")).not().hasValue("");
                Object below = p.evaluate("() => { const d = document.querySelector('[data-testid=diagnosis]');"
                        + " const r = document.querySelector('[data-testid=resolution]');"
                        + " return !!(d.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING); }");
                org.junit.jupiter.api.Assertions.assertEquals(Boolean.TRUE, below, "the confirm box is below the diagnosis");
            }
            p.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve("roles-" + a.role() + "-bundle.png")).setFullPage(true));

            // the bundle list: Upload only for those who may upload
            p.navigate(index.toString() + "bundles");
            assertThat(p.getByTestId("bundles-total")).isVisible();
            count(a, "Upload on the list", p.locator(".page-head").getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName("Upload")), a.upload());

            // the server agrees with the page: what is shown is allowed, what is hidden is refused
            int upload = given().header("Authorization", "").cookie("crashlab_session", cookie)
                    .multiPart("file", "probe.log", "RuntimeError: CUDA error: out of memory\n".getBytes())
                    .post("/api/bundles").then().extract().statusCode();
            org.junit.jupiter.api.Assertions.assertEquals(a.upload() ? 201 : 403, upload, a.role() + " uploading");
            int pin = given().header("Authorization", "").cookie("crashlab_session", cookie).put("/api/bundles/" + bundle + "/pin")
                    .then().extract().statusCode();
            org.junit.jupiter.api.Assertions.assertEquals(a.pin() ? 200 : 403, pin, a.role() + " pinning");
            int confirm = given().header("Authorization", "").cookie("crashlab_session", cookie).contentType("application/json")
                    .body(Map.of("articleId", "gpu-oom")).put("/api/bundles/" + bundle + "/resolution").then().extract().statusCode();
            org.junit.jupiter.api.Assertions.assertTrue(a.confirm() ? confirm < 300 : confirm == 403, a.role() + " confirming: " + confirm);
            if (a.confirm()) {
                given().delete("/api/bundles/" + bundle + "/resolution").then().statusCode(org.hamcrest.Matchers.lessThan(300));
            }
            if (a.pin()) {
                given().delete("/api/bundles/" + bundle + "/pin").then().statusCode(200);
            }
            int admin = given().header("Authorization", "").cookie("crashlab_session", cookie).get("/api/admin/users")
                    .then().extract().statusCode();
            org.junit.jupiter.api.Assertions.assertEquals(a.admin() ? 200 : 403, admin, a.role() + " listing users");
            c.close();
        }
    }

    private static void count(Allowed a, String what, Locator l, boolean shown) {
        if (shown) {
            assertThat(l.first()).isVisible(new LocatorAssertions.IsVisibleOptions().setTimeout(10_000));
        } else {
            assertThat(l).hasCount(0);
        }
    }
}
