package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.account.ApiToken;
import dev.crashlab.testing.TestAuth;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1 of issue 12: every operation the OpenAPI document lists, called by anonymous, a viewer, a
 * reporter, a triager, a lab user, an admin (each with a personal token), a worker token, an expired and a
 * revoked token, gets exactly the status its roles allow: 401 without a valid credential, 403 for a role that
 * may not, and for one that may, whatever the operation itself answers (never 401/403 from the security
 * layer, never a 5xx). The expected roles are written here, from the role list, not read from the
 * code: an operation missing from {@link #POLICY} (a new endpoint nobody decided about) fails the test.
 */
@QuarkusTest
@Tag("persistence")
class AuthorizationMatrixTest {

    /** Anyone, even without credentials. */
    static final Set<String> PUBLIC = Set.of("*public*");
    /** Any valid credential (a worker token included). */
    static final Set<String> AUTHENTICATED = Set.of("*authenticated*");

    static final Set<String> VIEWER = Set.of("viewer");
    static final Set<String> REPORTER = Set.of("reporter");
    static final Set<String> TRIAGER = Set.of("triager");
    static final Set<String> LAB = Set.of("lab");
    static final Set<String> ADMIN = Set.of("admin");
    static final Set<String> WORKER = Set.of("worker");

    /** "METHOD path" as the OpenAPI document writes it, to the roles that may call it (any one suffices). */
    static final Map<String, Set<String>> POLICY = new LinkedHashMap<>();

    static {
        POLICY.put("GET /api/auth/state", PUBLIC);
        POLICY.put("POST /api/auth/setup", PUBLIC);
        POLICY.put("POST /api/auth/login", PUBLIC);
        POLICY.put("POST /api/auth/logout", PUBLIC);
        POLICY.put("GET /api/auth/oidc", PUBLIC);
        // single sign-on is off in this profile: a 404 for everyone (OidcLoginBrowserTest signs in through it)
        POLICY.put("GET /api/auth/oidc/login", PUBLIC);
        POLICY.put("GET /api/auth/me", AUTHENTICATED);
        POLICY.put("PUT /api/auth/password", AUTHENTICATED);
        POLICY.put("GET /api/tokens", VIEWER);
        POLICY.put("POST /api/tokens", VIEWER);
        POLICY.put("DELETE /api/tokens/{id}", VIEWER);
        POLICY.put("GET /api/admin/users", ADMIN);
        POLICY.put("POST /api/admin/users", ADMIN);
        POLICY.put("PUT /api/admin/users/{id}", ADMIN);
        POLICY.put("DELETE /api/admin/users/{id}", ADMIN);
        POLICY.put("GET /api/admin/worker-tokens", ADMIN);
        POLICY.put("POST /api/admin/worker-tokens", ADMIN);
        POLICY.put("GET /api/admin/tokens", ADMIN);
        POLICY.put("GET /api/admin/retention", ADMIN);
        POLICY.put("GET /api/admin/workers", ADMIN);
        POLICY.put("POST /api/admin/crash-index/verify", ADMIN);
        POLICY.put("GET /api/audit", ADMIN);
        POLICY.put("GET /api/audit/choices", ADMIN);
        POLICY.put("GET /api/bundles", VIEWER);
        POLICY.put("POST /api/bundles", REPORTER);
        POLICY.put("GET /api/bundles/search", VIEWER);
        POLICY.put("GET /api/bundles/search/export", VIEWER);
        POLICY.put("GET /api/bundles/search/fields", VIEWER);
        POLICY.put("GET /api/bundles/trends", VIEWER);
        POLICY.put("GET /api/groups", VIEWER);
        POLICY.put("GET /api/groups/{key}", VIEWER);
        POLICY.put("POST /api/groups/{key}/resolution", TRIAGER);
        POLICY.put("GET /api/bundles/{id}", VIEWER);
        POLICY.put("DELETE /api/bundles/{id}", Set.of("reporter", "triager"));
        POLICY.put("GET /api/bundles/{id}/ownership", VIEWER);
        POLICY.put("GET /api/bundles/{id}/facts", VIEWER);
        POLICY.put("POST /api/bundles/{id}/read", Set.of("reporter", "triager"));
        POLICY.put("GET /api/bundles/{id}/artifacts/{artifactId}/content", VIEWER);
        POLICY.put("GET /api/bundles/{id}/artifacts/{artifactId}/events/{recordId}", VIEWER);
        POLICY.put("GET /api/bundles/{id}/diagnosis", VIEWER);
        POLICY.put("GET /api/bundles/{id}/similar", VIEWER);
        POLICY.put("GET /api/bundles/{id}/resolution", VIEWER);
        POLICY.put("PUT /api/bundles/{id}/resolution", TRIAGER);
        POLICY.put("DELETE /api/bundles/{id}/resolution", TRIAGER);
        POLICY.put("PUT /api/bundles/{id}/pin", TRIAGER);
        POLICY.put("DELETE /api/bundles/{id}/pin", TRIAGER);
        POLICY.put("GET /api/retention", VIEWER);
        POLICY.put("GET /api/kb", VIEWER);
        POLICY.put("GET /api/kb/search", VIEWER);
        POLICY.put("GET /api/kb/{id}", VIEWER);
        POLICY.put("GET /api/kb/{id}/confirmed", VIEWER);
        POLICY.put("GET /api/limits", VIEWER);
        POLICY.put("GET /api/lab/workers", VIEWER);
        POLICY.put("POST /api/lab/claim", WORKER);
        POLICY.put("POST /api/lab/jobs/{id}/heartbeat", WORKER);
        POLICY.put("POST /api/lab/jobs/{id}/complete", WORKER);
        POLICY.put("GET /api/repro/jobs", VIEWER);
        POLICY.put("POST /api/repro/jobs", LAB);
        POLICY.put("GET /api/repro/jobs/{id}", VIEWER);
        POLICY.put("POST /api/repro/jobs/{id}/cancel", LAB);
        POLICY.put("GET /api/repro/jobs/{id}/events", VIEWER);
        POLICY.put("GET /api/repro/drafts/{bundleId}", VIEWER);
        POLICY.put("POST /api/repro/estimate", VIEWER);
    }

    /** A caller: a bearer token (null: none) and the roles it holds (implications as the issue states them). */
    record Principal(String name, String token, Set<String> roles, boolean valid) {}

    @TestHTTPResource("/")
    URL base;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void everyOperationAnswersExactlyWhatItsRolesAllow() throws Exception {
        List<Principal> principals = principals();
        JsonNode doc = json.readTree(send("GET", "/q/openapi?format=json", TestAuth.ADMIN_TOKEN, null, null).body());

        List<String> operations = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                String method = op.getKey().toUpperCase(java.util.Locale.ROOT);
                if (Set.of("GET", "POST", "PUT", "DELETE", "PATCH").contains(method)) {
                    operations.add(method + " " + path.getKey() + " " + firstContentType(op.getValue()));
                }
            }
        }
        Set<String> undecided = new TreeSet<>();
        for (String op : operations) {
            String key = op.substring(0, op.lastIndexOf(' '));
            if (!POLICY.containsKey(key)) {
                undecided.add(key);
            }
        }
        assertThat(undecided).as("operations with no decided roles (add them to POLICY and give them @RolesAllowed)").isEmpty();
        assertThat(operations).as("the document lists the operations").hasSizeGreaterThanOrEqualTo(POLICY.size());

        List<String> wrong = new ArrayList<>();
        int calls = 0;
        for (String op : operations) {
            String[] parts = op.split(" ", 3);
            String method = parts[0];
            String path = fill(parts[1]);
            String contentType = parts[2].equals("-") ? null : parts[2];
            Set<String> allowedRoles = POLICY.get(parts[0] + " " + parts[1]);
            for (Principal p : principals) {
                HttpResponse<String> r = send(method, path, p.token(), contentType, body(contentType));
                calls++;
                String slug = slug(r);
                boolean refusedUnauthenticated = r.statusCode() == 401 && "unauthenticated".equals(slug);
                boolean refusedForbidden = r.statusCode() == 403 && "forbidden".equals(slug);
                String expect;
                boolean ok;
                if (allowedRoles == PUBLIC) {
                    expect = "allowed";
                    ok = !refusedUnauthenticated && !refusedForbidden && r.statusCode() < 500;
                } else if (!p.valid()) {
                    expect = "401";
                    ok = refusedUnauthenticated;
                } else if (allowedRoles == AUTHENTICATED || allowedRoles.stream().anyMatch(p.roles()::contains)) {
                    expect = "allowed";
                    ok = !refusedUnauthenticated && !refusedForbidden && r.statusCode() < 500;
                } else {
                    expect = "403";
                    ok = refusedForbidden;
                }
                if (!ok) {
                    wrong.add(method + " " + parts[1] + " as " + p.name() + ": expected " + expect + ", got " + r.statusCode()
                            + " " + (slug == null ? r.body().substring(0, Math.min(120, r.body().length())) : slug));
                }
            }
        }
        System.out.printf("authorization matrix: %d operations x %d callers = %d calls, %d wrong%n",
                operations.size(), principals.size(), calls, wrong.size());
        assertThat(wrong).as("operations x callers answering other than their roles allow (of " + calls + " calls)").isEmpty();
        assertThat(calls).isEqualTo(operations.size() * principals.size());
    }

    @Test
    void outsideTheApiOnlyHealthUiAndCollectorScriptsAreAnonymous() throws Exception {
        assertThat(send("GET", "/q/health", null, null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/collector/collect-crash-bundle.sh", null, null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/q/openapi", null, null, null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/q/metrics", null, null, null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/q/openapi", TestAuth.ADMIN_TOKEN, null, null).statusCode()).isEqualTo(200);
    }

    private List<Principal> principals() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        List<Principal> out = new ArrayList<>();
        out.add(new Principal("anonymous", null, Set.of(), false));
        for (String role : List.of("viewer", "reporter", "triager", "lab", "admin")) {
            String token = personalToken("m-" + role + "-" + suffix, role, null);
            Set<String> roles = role.equals("admin") ? Set.of("viewer", "reporter", "triager", "lab", "admin")
                    : role.equals("viewer") ? Set.of("viewer") : Set.of(role, "viewer");
            out.add(new Principal(role, token, roles, true));
        }
        String worker = given().contentType("application/json").body("{\"worker\":\"m-worker-" + suffix + "\"}")
                .post("/api/admin/worker-tokens").then().statusCode(201).extract().path("secret");
        out.add(new Principal("worker token", worker, Set.of("worker"), true));

        // an admin's token that expired a second ago, and one that was revoked: both worth nothing
        String[] expired = new String[1];
        long expiredId = personalTokenId("m-expired-" + suffix, "admin", expired);
        QuarkusTransaction.requiringNew().run(() -> ApiToken.update("expiresAt = ?1 where id = ?2", Instant.now().minusSeconds(1), expiredId));
        out.add(new Principal("expired token", expired[0], Set.of(), false));
        String[] revoked = new String[1];
        long revokedId = personalTokenId("m-revoked-" + suffix, "admin", revoked);
        given().header("Authorization", "Bearer " + revoked[0]).delete("/api/tokens/" + revokedId).then().statusCode(200);
        out.add(new Principal("revoked token", revoked[0], Set.of(), false));
        return out;
    }

    private String personalToken(String user, String role, String[] secret) {
        String[] s = secret != null ? secret : new String[1];
        personalTokenId(user, role, s);
        return s[0];
    }

    /** Creates a user with {@code role}, signs in as them, and makes a personal token with the session. */
    private long personalTokenId(String user, String role, String[] secret) {
        String password = "pw-" + UUID.randomUUID();
        given().contentType("application/json")
                .body(Map.of("username", user, "password", password, "roles", List.of(role)))
                .post("/api/admin/users").then().statusCode(201);
        String session = given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", user, "password", password)).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
        var created = given().header("Authorization", "").cookie("crashlab_session", session).contentType("application/json")
                .body(Map.of("name", "matrix")).post("/api/tokens").then().statusCode(201).extract().jsonPath();
        secret[0] = created.getString("secret");
        return created.getLong("token.id");
    }

    private static String firstContentType(JsonNode operation) {
        JsonNode content = operation.path("requestBody").path("content");
        Iterator<String> names = content.fieldNames();
        return names.hasNext() ? names.next() : "-";
    }

    /** Path parameters point at nothing, so allowed calls change nothing (404s, 400s). */
    private static String fill(String path) {
        return path.replace("{id}", "987654321").replace("{artifactId}", "987654321").replace("{bundleId}", "987654321")
                .replace("{key}", "0123456789ab").replace("{recordId}", "987654321");
    }

    private static String body(String contentType) {
        if (contentType == null) {
            return null;
        }
        return contentType.contains("json") ? "{}" : "";
    }

    private HttpResponse<String> send(String method, String path, String token, String contentType, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        String type = contentType == null ? null
                : contentType.startsWith("multipart/") ? contentType + "; boundary=matrix" : contentType;
        if (type != null) {
            b.header("Content-Type", type);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String slug(HttpResponse<String> r) {
        String type = r.headers().firstValue("Content-Type").orElse("");
        if (!type.contains("json") || !r.body().startsWith("{")) {
            return null;
        }
        try {
            String t = json.readTree(r.body()).path("type").asText("");
            return t.startsWith("urn:crashlab:problem:") ? t.substring("urn:crashlab:problem:".length()) : t;
        } catch (Exception e) {
            return null;
        }
    }
}
