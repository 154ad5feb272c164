package dev.crashlab.web.ui;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.AriaRole;
import com.microsoft.playwright.options.Cookie;
import com.microsoft.playwright.options.SameSiteAttribute;
import dev.crashlab.account.FirstStart;
import dev.crashlab.account.SetupLink;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Acceptance 2 of issue 12 (the accounts half): first-start setup from the one-time link, upload, sign-out
 * and sign-in in a real Chromium with no credentials but the session cookie; and a viewer who sees no
 * Delete, Confirm or Reproduce. The first start is the running app's: its accounts removed and its start-up
 * observer run again ({@link FirstStart}), so this class shares the browser profile's app instead of booting its own.
 * Tests that need accounts make their own, so no other test depends on the removed ones.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AccountsBrowserTest extends BrowserPageTest {

    static final String ADMIN = "first-admin";
    static final String PASSWORD = "correct horse battery";
    static long uploaded;

    private Page fresh() {
        BrowserContext c = page.context().browser().newContext(new Browser.NewContextOptions().setViewportSize(1280, 900).setLocale("en-US"));
        Page p = c.newPage();
        p.onPageError(pageErrors::add);
        return p;
    }

    @Test
    @Order(1)
    void firstStartSetupThenUploadSignOutAndSignIn() throws Exception {
        Path file = Path.of("target/test-data").resolve(SetupLink.FILE_NAME);
        assertTrue(FirstStart.observesStartUp(), "SetupLink runs at every start (observes StartupEvent)");
        Files.deleteIfExists(file); // so that the file below is this start's
        FirstStart.withNoAccounts();
        assertTrue(Files.exists(file), "start-up with no accounts writes " + file);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        URI link = URI.create(Files.readString(file).strip());
        assertEquals("/setup", link.getPath());

        Page p = fresh();
        // without a session, any page is the sign-in page (setup is open: the setup page without its code)
        p.navigate(index.toString() + "bundles");
        assertThat(p.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Set up CrashLab"))).isVisible();
        // no links to pages a signed-out visitor cannot see
        assertThat(p.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Main"))).hasCount(0);

        p.navigate(index.toURI().resolve(link.getPath() + "?" + link.getRawQuery()).toString());
        p.getByLabel("Admin user name").fill(ADMIN);
        p.getByLabel("Password", new Page.GetByLabelOptions().setExact(false)).first().fill(PASSWORD);
        p.getByLabel("Password again").fill(PASSWORD);
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Create admin and sign in")).click();
        assertThat(p.getByTestId("account-link")).hasText(ADMIN, new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setUseInnerText(true));
        assertThat(p.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Main"))
                .getByRole(AriaRole.LINK, new Locator.GetByRoleOptions().setName("Bundles"))).isVisible();
        assertTrue(Files.notExists(file), "the used link's file is gone");

        Cookie session = p.context().cookies().stream().filter(c -> c.name.equals("crashlab_session")).findFirst().orElseThrow();
        assertTrue(session.httpOnly, "the session cookie is HttpOnly");
        assertEquals(SameSiteAttribute.LAX, session.sameSite);

        // upload as the admin, by the session cookie alone
        p.getByTestId("file-input").setInputFiles(TestZips.crashBundle(tmp));
        p.getByLabel("Bundle name").fill("setup-test-bundle");
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName(Pattern.compile("^Upload"))).click();
        p.waitForURL(Pattern.compile(".*/bundles/\\d+$"));
        assertThat(p.getByTestId("bundle-name")).hasText("setup-test-bundle");
        uploaded = Long.parseLong(p.url().replaceAll(".*/bundles/", ""));
        assertThat(p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Delete"))).isVisible();

        // sign out: the cookie is cleared and the server forgot the session
        p.getByTestId("sign-out").click();
        assertThat(p.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Sign in to CrashLab"))).isVisible();
        given().header("Authorization", "").cookie("crashlab_session", session.value).get("/api/auth/me").then().statusCode(401);
        p.reload();
        assertThat(p.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Sign in to CrashLab"))).isVisible();
        assertThat(p.getByRole(AriaRole.NAVIGATION, new Page.GetByRoleOptions().setName("Main"))).hasCount(0);

        // a wrong password is refused in words; the right one signs in again
        p.getByLabel("User name").fill(ADMIN);
        p.getByLabel("Password").fill("not the password");
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(p.getByRole(AriaRole.ALERT)).containsText("wrong user name or password");
        p.getByLabel("Password").fill(PASSWORD);
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(p.getByTestId("account-link")).hasText(ADMIN, new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setUseInnerText(true));

        // the setup link is used up
        given().header("Authorization", "").contentType("application/json")
                .body(Map.of("code", link.getRawQuery().substring("code=".length()), "username", "second", "password", PASSWORD))
                .post("/api/auth/setup").then().statusCode(409);
        p.context().close();
    }

    @Test
    @Order(2)
    void aViewerSeesNoDeleteConfirmOrReproduce() {
        long bundle = uploaded > 0 ? uploaded : given().multiPart("file", "crash.log", "RuntimeError: CUDA error: out of memory\n".getBytes())
                .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
        String viewer = "viewer-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("username", viewer, "password", PASSWORD, "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201);

        Page p = fresh();
        p.navigate(index.toString() + "bundles/" + bundle);
        p.getByLabel("User name").fill(viewer);
        p.getByLabel("Password").fill(PASSWORD);
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(p.getByTestId("account-link")).hasText(viewer, new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setUseInnerText(true));
        assertThat(p.getByTestId("bundle-name")).isVisible();
        assertThat(p.getByTestId("resolution")).isVisible();
        assertThat(p.getByRole(AriaRole.HEADING, new Page.GetByRoleOptions().setName("Reproduce"))).isVisible();
        assertThat(p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Delete"))).hasCount(0);
        assertThat(p.getByTestId("confirm-cause")).hasCount(0);
        assertThat(p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Reproduce"))).hasCount(0);
        assertThat(p.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Upload"))).hasCount(0);
        assertThat(p.getByRole(AriaRole.LINK, new Page.GetByRoleOptions().setName("Admin"))).hasCount(0);
        // and the server refuses what the page hides
        String cookie = p.context().cookies().stream().filter(c -> c.name.equals("crashlab_session")).findFirst().orElseThrow().value;
        given().header("Authorization", "").cookie("crashlab_session", cookie).delete("/api/bundles/" + bundle).then().statusCode(403);
        p.context().close();
    }

    @Test
    @Order(3)
    void aReporterSeesDeleteOnlyOnTheirOwnBundles() {
        long others = uploaded > 0 ? uploaded : given().multiPart("file", "crash.log", "RuntimeError: CUDA error: out of memory\n".getBytes())
                .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
        String reporter = "reporter-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("username", reporter, "password", PASSWORD, "roles", List.of("reporter")))
                .post("/api/admin/users").then().statusCode(201);

        Page p = fresh();
        p.navigate(index.toString() + "bundles/" + others);
        p.getByLabel("User name").fill(reporter);
        p.getByLabel("Password").fill(PASSWORD);
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(p.getByTestId("account-link")).hasText(reporter, new com.microsoft.playwright.assertions.LocatorAssertions.HasTextOptions().setUseInnerText(true));
        String cookie = p.context().cookies().stream().filter(c -> c.name.equals("crashlab_session")).findFirst().orElseThrow().value;
        // someone else's bundle: the page has asked who uploaded it, and offers no Delete (the server would say 403)
        assertThat(p.getByTestId("uploaded-by")).not().hasText(reporter);
        assertThat(p.getByTestId("uploaded-by")).isVisible();
        assertThat(p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Delete"))).hasCount(0);
        given().header("Authorization", "").cookie("crashlab_session", cookie).delete("/api/bundles/" + others).then().statusCode(403);

        // their own upload: Delete is there and works
        long own = given().header("Authorization", "").cookie("crashlab_session", cookie)
                .multiPart("file", "mine.log", "RuntimeError: CUDA error: out of memory\n".getBytes())
                .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
        p.navigate(index.toString() + "bundles/" + own);
        assertThat(p.getByTestId("uploaded-by")).hasText(reporter);
        p.onDialog(d -> d.accept());
        p.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Delete")).click();
        p.waitForURL(Pattern.compile(".*/bundles$"));
        given().get("/api/bundles/" + own).then().statusCode(404);
        p.context().close();
    }
}
