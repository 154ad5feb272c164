package dev.crashlab.testing;

import static io.restassured.RestAssured.given;

import io.quarkus.test.junit.callback.QuarkusTestBeforeClassCallback;
import io.restassured.RestAssured;
import io.restassured.filter.Filter;

/**
 * Every {@code @QuarkusTest} calls the API as the admin token the %test profile provisions
 * ({@code %test.crashlab.admin-token}): a RestAssured filter adds it to requests that carry no
 * {@code Authorization} header of their own (send {@code header("Authorization", "")} to call anonymously).
 * Tests of who may do what send their own credentials ({@code web/AuthorizationMatrixTest} uses a plain
 * HTTP client, so nothing is added there).
 */
public class TestAuth implements QuarkusTestBeforeClassCallback {

    /** The value of {@code %test.crashlab.admin-token}. */
    public static final String ADMIN_TOKEN = "test-admin-token";

    private static final Filter ADMIN = (request, response, context) -> {
        if (!request.getHeaders().hasHeaderWithName("Authorization")) {
            request.header("Authorization", "Bearer " + ADMIN_TOKEN);
        }
        return context.next(request, response);
    };

    @Override
    public void beforeClass(Class<?> testClass) {
        if (!RestAssured.filters().contains(ADMIN)) {
            RestAssured.filters(ADMIN);
        }
    }

    /** A new account with this role, signed in once to make a personal token; returns the token. */
    public static String userToken(String name, String role) {
        String password = "pw-" + java.util.UUID.randomUUID();
        given().contentType("application/json")
                .body(java.util.Map.of("username", name, "password", password, "roles", java.util.List.of(role)))
                .post("/api/admin/users").then().statusCode(201);
        String session = given().header("Authorization", "").contentType("application/json")
                .body(java.util.Map.of("username", name, "password", password)).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
        return given().header("Authorization", "").cookie("crashlab_session", session).contentType("application/json")
                .body(java.util.Map.of("name", "test")).post("/api/tokens").then().statusCode(201).extract().path("secret");
    }
}
