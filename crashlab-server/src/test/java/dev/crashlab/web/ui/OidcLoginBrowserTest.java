package dev.crashlab.web.ui;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.Cookie;
import dev.crashlab.testing.OidcProviderResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, single sign-on: a person signs in through a real OpenID Connect provider (the certified
 * {@code oidc-provider} package, run by {@link OidcProviderResource}) in Debian Chromium: the sign-in page's
 * button, the provider's own login and consent pages, back to CrashLab with a session whose roles come from the
 * provider's {@code groups} claim through {@code crashlab.oidc.role-map}. A user with no mapped group gets no
 * roles; local accounts keep signing in with their passwords.
 */
@QuarkusTest
@TestProfile(UiTestProfile.class)
class OidcLoginBrowserTest {

    @TestHTTPResource("/")
    URL index;

    private static Browser browser;

    @BeforeAll
    static void launch() {
        Assumptions.assumeTrue(System.getProperty(OidcProviderResource.SKIP_PROPERTY) == null,
                System.getProperty(OidcProviderResource.SKIP_PROPERTY));
        Assumptions.assumeTrue(Browsers.available(), Browsers.SKIP_REASON);
        browser = Browsers.shared();
    }

    /** Waits for {@code selector}; on a timeout, fails saying which page the browser is on instead. */
    private static void expect(Page page, String selector, String step) {
        try {
            page.locator(selector).first().waitFor(new Locator.WaitForOptions().setTimeout(30_000));
        } catch (PlaywrightException e) {
            String body = page.content();
            throw new AssertionError(step + ": no " + selector + " at " + page.url() + "\n"
                    + body.substring(0, Math.min(body.length(), 3000)), e);
        }
    }

    /** Signs {@code login} in from CrashLab's sign-in page through the provider's pages, back to the UI. */
    private Page signIn(BrowserContext context, String login) {
        Page page = context.newPage();
        page.navigate(index.toString());
        expect(page, "[data-testid=sso-login]", "CrashLab's sign-in page offers single sign-on");
        assertThat(page.getByTestId("sso-login").textContent()).isEqualTo("Sign in with Test provider");
        page.getByTestId("sso-login").click();
        // the provider's own login page (any name signs in; the groups come from the provider's accounts)
        expect(page, "input[name=login]", "the provider's login page");
        page.locator("input[name=login]").fill(login);
        page.locator("input[name=password]").fill("any password");
        page.locator("button[type=submit]").click();
        // its consent page: allow CrashLab the openid and profile scopes
        expect(page, "button[type=submit]:has-text('Continue')", "the provider's consent page");
        page.locator("button[type=submit]:has-text('Continue')").click();
        // back at CrashLab's UI, signed in: the header names the user
        expect(page, "[data-testid=account-link]", "back at CrashLab, signed in");
        assertThat(page.url()).startsWith(index.toString()).doesNotContain("/api/");
        assertThat(page.getByTestId("account-link").innerText().strip()).isEqualTo(login);
        return page;
    }

    /** Signs {@code login} in through the UI and the provider's pages; returns the CrashLab session cookie. */
    private String signInThroughProvider(String login) {
        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setLocale("en-US"))) {
            signIn(context, login);
            // the OIDC session cookie (path /api/auth/oidc) is dropped once CrashLab's own session is set
            assertThat(context.cookies()).extracting(c -> c.name).doesNotContain("q_session");
            List<Cookie> cookies = context.cookies(index.toString());
            return cookies.stream().filter(c -> c.name.equals("crashlab_session")).findFirst()
                    .orElseThrow(() -> new AssertionError("no crashlab_session cookie after single sign-on: "
                            + cookies.stream().map(c -> c.name).toList()))
                    .value;
        }
    }

    @Test
    void aMappedUserSignsInThroughTheProviderWithTheMappedRoles() {
        String session = signInThroughProvider("tara");
        given().header("Authorization", "").cookie("crashlab_session", session).get("/api/auth/me").then().statusCode(200)
                .body("name", equalTo("tara")).body("session", equalTo(true))
                // groups crashlab-triage (mapped to triager) and unrelated-team (not mapped)
                .body("roles", equalTo(List.of("triager", "viewer")));
        given().header("Authorization", "").cookie("crashlab_session", session).get("/api/bundles").then().statusCode(200);
        given().header("Authorization", "").cookie("crashlab_session", session).get("/api/audit").then().statusCode(403);

        // two mapped entries for one group give two roles; a second sign-in finds the same account
        String lars = signInThroughProvider("lars");
        given().header("Authorization", "").cookie("crashlab_session", lars).get("/api/auth/me").then().statusCode(200)
                .body("roles", equalTo(List.of("lab", "reporter", "viewer")));
        signInThroughProvider("lars");
        given().get("/api/admin/users").then().statusCode(200)
                .body("findAll { it.username.startsWith('lars') }.size()", equalTo(1))
                .body("username", hasItem("tara"));
        given().queryParam("actor", "tara").get("/api/audit").then().statusCode(200).body("items.action", hasItem("user.sso-login"));
        // an account made by single sign-on has no password anyone knows
        given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", "tara", "password", "any password")).post("/api/auth/login")
                .then().statusCode(401).body("detail", containsString("wrong user name or password"));
    }

    @Test
    void aUserWithNoMappedGroupGetsNoRoles() {
        String login = "uma-" + UUID.randomUUID().toString().substring(0, 8);
        String session = signInThroughProvider(login);
        given().header("Authorization", "").cookie("crashlab_session", session).get("/api/auth/me").then().statusCode(200)
                .body("name", equalTo(login)).body("roles", equalTo(List.of()));
        given().header("Authorization", "").cookie("crashlab_session", session).get("/api/bundles").then().statusCode(403);
    }

    @Test
    void theUiTellsAUserWithoutRolesWhyTheySeeNothing() {
        String login = "una-" + UUID.randomUUID().toString().substring(0, 8);
        try (BrowserContext context = browser.newContext(new Browser.NewContextOptions().setLocale("en-US"))) {
            Page page = signIn(context, login);
            page.getByTestId("no-roles").waitFor();
            assertThat(page.getByTestId("no-roles").textContent()).contains("no roles");
        }
    }

    @Test
    void localAccountsKeepSigningInWithTheirPasswords() {
        given().header("Authorization", "").get("/api/auth/oidc").then().statusCode(200)
                .body("enabled", equalTo(true)).body("label", equalTo("Test provider"));
        String name = "local-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("username", name, "password", "a-long-password", "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201);
        given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", name, "password", "a-long-password")).post("/api/auth/login")
                .then().statusCode(200).body("roles", hasItem("viewer"));
    }
}
