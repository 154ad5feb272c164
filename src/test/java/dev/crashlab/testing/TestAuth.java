package dev.crashlab.testing;

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
}
