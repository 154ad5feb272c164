package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import dev.crashlab.account.UserAccount;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What the role matrix cannot show: ownership, token subsets, passwords at rest, sessions, the audit trail. */
@QuarkusTest
@Tag("persistence")
class AccountsApiTest {

    final String suffix = UUID.randomUUID().toString().substring(0, 8);

    private String user(String name, String role, String password) {
        given().contentType("application/json").body(Map.of("username", name, "password", password, "roles", List.of(role)))
                .post("/api/admin/users").then().statusCode(201);
        return login(name, password);
    }

    private static String login(String name, String password) {
        return given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", name, "password", password)).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
    }

    private static long upload(String session, String name) {
        return given().header("Authorization", "").cookie("crashlab_session", session)
                .multiPart("file", "crash.log", "RuntimeError: CUDA error: out of memory\n".getBytes())
                .multiPart("name", name).post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
    }

    @Test
    void reportersDeleteOnlyTheirOwnBundlesAndTheAuditTrailSaysWho() {
        String pw = "pw-" + UUID.randomUUID();
        String alice = "alice-" + suffix;
        String bob = "bob-" + suffix;
        String a = user(alice, "reporter", pw);
        String b = user(bob, "reporter", pw);
        long id = upload(a, "alice's crash");

        given().header("Authorization", "").cookie("crashlab_session", b).delete("/api/bundles/" + id)
                .then().statusCode(403).body("detail", containsString("uploaded by " + alice));
        given().header("Authorization", "").cookie("crashlab_session", a).delete("/api/bundles/" + id).then().statusCode(204);

        given().queryParam("actor", alice).get("/api/audit").then().statusCode(200)
                .body("items.action", hasItem("bundle.upload")).body("items.action", hasItem("bundle.delete"))
                .body("items.target", hasItem("bundle " + id));
        // a triager may delete anyone's
        long other = upload(b, "bob's crash");
        String t = user("tri-" + suffix, "triager", pw);
        given().header("Authorization", "").cookie("crashlab_session", t).delete("/api/bundles/" + other).then().statusCode(204);
    }

    @Test
    void tokensCarryOnlyRolesTheOwnerHoldsAndRecordTheirLastUse() {
        String pw = "pw-" + UUID.randomUUID();
        String v = user("viewer-" + suffix, "viewer", pw);
        given().header("Authorization", "").cookie("crashlab_session", v).contentType("application/json")
                .body(Map.of("name", "too much", "roles", List.of("reporter"))).post("/api/tokens")
                .then().statusCode(403).body("detail", containsString("`reporter`"));
        String secret = given().header("Authorization", "").cookie("crashlab_session", v).contentType("application/json")
                .body(Map.of("name", "reading", "days", 5)).post("/api/tokens").then().statusCode(201)
                .body("token.roles", equalTo(List.of("viewer"))).extract().path("secret");
        assertThat(secret).startsWith("clt_");
        given().header("Authorization", "Bearer " + secret).get("/api/auth/me").then().statusCode(200)
                .body("name", equalTo("viewer-" + suffix)).body("session", equalTo(false));
        given().header("Authorization", "Bearer " + secret).get("/api/tokens").then().statusCode(200)
                .body("find { it.name == 'reading' }.lastUsedAt", notNullValue());
        // disabling the owner disables their tokens
        long id = given().get("/api/admin/users").then().extract().jsonPath()
                .getLong("find { it.username == 'viewer-" + suffix + "' }.id");
        given().contentType("application/json").body(Map.of("disabled", true)).put("/api/admin/users/" + id).then().statusCode(200);
        given().header("Authorization", "Bearer " + secret).get("/api/bundles").then().statusCode(401);
        given().header("Authorization", "").cookie("crashlab_session", v).get("/api/bundles").then().statusCode(401);
    }

    @Test
    void passwordsAreBcryptAndAChangeEndsOtherSessions() {
        String pw = "first-password-" + suffix;
        String name = "pw-" + suffix;
        String first = user(name, "viewer", pw);
        String second = login(name, pw);
        String hash = QuarkusTransaction.requiringNew().call(
                () -> UserAccount.<UserAccount>find("username", name).firstResult().passwordHash);
        assertThat(hash).startsWith("$2b$").doesNotContain(pw);

        given().header("Authorization", "").cookie("crashlab_session", first).contentType("application/json")
                .body(Map.of("current", "wrong", "password", "second-password")).put("/api/auth/password").then().statusCode(403);
        given().header("Authorization", "").cookie("crashlab_session", first).contentType("application/json")
                .body(Map.of("current", pw, "password", "short")).put("/api/auth/password").then().statusCode(400)
                .body("detail", containsString("at least 10"));
        given().header("Authorization", "").cookie("crashlab_session", first).contentType("application/json")
                .body(Map.of("current", pw, "password", "second-password")).put("/api/auth/password").then().statusCode(204);
        given().header("Authorization", "").cookie("crashlab_session", first).get("/api/auth/me").then().statusCode(200);
        given().header("Authorization", "").cookie("crashlab_session", second).get("/api/auth/me").then().statusCode(401);
        given().header("Authorization", "").contentType("application/json").body(Map.of("username", name, "password", pw))
                .post("/api/auth/login").then().statusCode(401).body("detail", containsString("wrong user name or password"));
        login(name, "second-password");
    }

    @Test
    void theProvisionedAdminTokenIsAnAdminWithoutAnAccount() {
        given().get("/api/auth/me").then().statusCode(200).body("name", equalTo("token:CRASHLAB_ADMIN_TOKEN"))
                .body("roles", hasItem("admin")).body("account", equalTo(false));
        given().contentType("application/json").body(Map.of("name", "x")).post("/api/tokens").then().statusCode(409);
    }
}
