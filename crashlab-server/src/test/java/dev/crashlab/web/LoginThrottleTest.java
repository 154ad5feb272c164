package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.InetAddress;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 hardening: sign-in throttling per account and per client address (defaults: 5 and 20 failures in
 * 15 minutes). Each test signs in from its own loopback address (127.0.0.x: Linux routes all of 127/8 to the
 * loopback device), so the per-address count never touches other tests, which all come from 127.0.0.1.
 */
@QuarkusTest
class LoginThrottleTest {

    @TestHTTPResource("/api/auth/login")
    URL login;

    private final ObjectMapper json = new ObjectMapper();

    record Answer(int status, JsonNode body, String retryAfter) {}

    /** A client whose connections come from {@code 127.0.0.<n>} (a fresh address per test). */
    private static HttpClient clientFrom(InetAddress local) {
        return HttpClient.newBuilder().localAddress(local).build();
    }

    private static InetAddress freshLoopback() throws Exception {
        int n = ThreadLocalRandom.current().nextInt(2, 255);
        return InetAddress.getByAddress(new byte[] {127, 0, (byte) ThreadLocalRandom.current().nextInt(1, 255), (byte) n});
    }

    private Answer signIn(HttpClient http, String user, String password) throws Exception {
        // by address: "localhost" might resolve to ::1, which a 127.0.0.x client address cannot reach
        HttpRequest r = HttpRequest.newBuilder(URI.create(login.toString().replace("//localhost:", "//127.0.0.1:")))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of("username", user, "password", password))))
                .build();
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        return new Answer(resp.statusCode(), json.readTree(resp.body().isEmpty() ? "{}" : resp.body()),
                resp.headers().firstValue("Retry-After").orElse(null));
    }

    private static void user(String name, String password) {
        given().contentType("application/json").body(Map.of("username", name, "password", password, "roles", List.of("viewer")))
                .post("/api/admin/users").then().statusCode(201);
    }

    @Test
    void fiveWrongPasswordsLockTheAccountForAWhileFromAnyAddress() throws Exception {
        String name = "throttled-" + UUID.randomUUID().toString().substring(0, 8);
        user(name, "the-right-password");
        HttpClient guesser = clientFrom(freshLoopback());
        for (int i = 0; i < 5; i++) {
            assertThat(signIn(guesser, name, "guess-" + i).status()).isEqualTo(401);
        }
        Answer locked = signIn(guesser, name, "guess-5");
        assertThat(locked.status()).isEqualTo(429);
        assertThat(Long.parseLong(locked.retryAfter())).isBetween(1L, 15 * 60L);
        assertThat(locked.body().path("detail").asText())
                .contains("too many failed sign-ins for `" + name + "`").containsPattern("wait \\d+ (minutes|seconds)");
        // the right password does not get through either, nor from another address: the account is locked
        HttpClient owner = clientFrom(freshLoopback());
        assertThat(signIn(owner, name, "the-right-password").status()).isEqualTo(429);
        // another account from the guesser's address is not locked (5 failures are under the address limit)
        String other = "unlocked-" + UUID.randomUUID().toString().substring(0, 8);
        user(other, "the-right-password");
        assertThat(signIn(guesser, other, "the-right-password").status()).isEqualTo(200);
    }

    @Test
    void twentyFailuresFromOneAddressStopItAcrossAccounts() throws Exception {
        HttpClient sprayer = clientFrom(freshLoopback());
        String victim = "sprayed-" + UUID.randomUUID().toString().substring(0, 8);
        user(victim, "the-right-password");
        for (int i = 0; i < 20; i++) {
            // a different (unknown) name each time: no account reaches its own limit
            assertThat(signIn(sprayer, "nobody-" + UUID.randomUUID(), "guess").status()).isEqualTo(401);
        }
        Answer refused = signIn(sprayer, victim, "the-right-password");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.retryAfter()).isNotNull();
        assertThat(refused.body().path("detail").asText()).contains("too many failed sign-ins from your address");
        // the account itself is fine from anywhere else
        assertThat(signIn(clientFrom(freshLoopback()), victim, "the-right-password").status()).isEqualTo(200);
    }

    @Test
    void aRightPasswordClearsTheAccountsCount() throws Exception {
        String name = "forgetful-" + UUID.randomUUID().toString().substring(0, 8);
        user(name, "the-right-password");
        HttpClient http = clientFrom(freshLoopback());
        for (int i = 0; i < 4; i++) {
            assertThat(signIn(http, name, "guess-" + i).status()).isEqualTo(401);
        }
        assertThat(signIn(http, name, "the-right-password").status()).isEqualTo(200);
        for (int i = 0; i < 4; i++) {
            assertThat(signIn(http, name, "again-" + i).status()).isEqualTo(401);
        }
        assertThat(signIn(http, name, "the-right-password").status()).isEqualTo(200);
    }
}
