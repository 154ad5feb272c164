package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.crashlab.config.CrashLabConfig;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The findings of issue 26's security probe, each against the running server: every test here failed on main at
 * 84cf63d (the commit messages say how each was seen to fail).
 */
@QuarkusTest
@Tag("persistence")
class SecurityFindingsTest {

    @TestHTTPResource("/")
    URL base;

    @Inject
    CrashLabConfig config;

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    private static String session(String user, String password) {
        return given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", user, "password", password)).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
    }

    private static String newUser(String user, String role) {
        String password = "pw-" + UUID.randomUUID();
        given().contentType("application/json").body(Map.of("username", user, "password", password, "roles", List.of(role)))
                .post("/api/admin/users").then().statusCode(201);
        return password;
    }

    /** Finding 2: an admin's viewer-only token could make an admin token. */
    @Test
    void aNarrowTokenCannotMintAWiderOne() {
        String user = "ceiling-" + suffix();
        String cookie = session(user, newUser(user, "admin"));
        String viewerToken = given().header("Authorization", "").cookie("crashlab_session", cookie).contentType("application/json")
                .body(Map.of("name", "narrow", "roles", List.of("viewer"))).post("/api/tokens")
                .then().statusCode(201).extract().path("secret");
        given().header("Authorization", "Bearer " + viewerToken).contentType("application/json")
                .body(Map.of("name", "wide", "roles", List.of("admin"))).post("/api/tokens")
                .then().statusCode(403).body("type", containsString("role-not-held"));
        // by default a token made with a narrow token is as narrow
        String child = given().header("Authorization", "Bearer " + viewerToken).contentType("application/json")
                .body(Map.of("name", "default")).post("/api/tokens").then().statusCode(201)
                .body("token.roles", equalTo(List.of("viewer"))).extract().path("secret");
        given().header("Authorization", "Bearer " + child).get("/api/admin/users").then().statusCode(403);
        // the session itself still carries all of the account's roles
        given().header("Authorization", "").cookie("crashlab_session", cookie).contentType("application/json")
                .body(Map.of("name", "wide", "roles", List.of("admin"))).post("/api/tokens").then().statusCode(201);
    }

    /** Finding 8: the policy checked only the length. */
    @Test
    void weakPasswordsAreRefused() {
        for (String weak : List.of("aaaaaaaaaa", "          ", "Password2024!", "qwertyuiop")) {
            given().contentType("application/json")
                    .body(Map.of("username", "weak-" + suffix(), "password", weak, "roles", List.of("viewer")))
                    .post("/api/admin/users").then().statusCode(400).body("type", containsString("weak-password"));
        }
    }

    /** Finding 10: any reporter could re-read anyone's bundle. */
    @Test
    void readingAgainNeedsOwnershipOrTheTriagerRole() {
        String owner = dev.crashlab.testing.TestAuth.userToken("reread-owner-" + suffix(), "reporter");
        String other = dev.crashlab.testing.TestAuth.userToken("reread-other-" + suffix(), "reporter");
        String triager = dev.crashlab.testing.TestAuth.userToken("reread-triager-" + suffix(), "triager");
        long id = given().header("Authorization", "Bearer " + owner)
                .multiPart("file", "reread.log", "RuntimeError: CUDA out of memory\n".getBytes(StandardCharsets.UTF_8), "text/plain")
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        given().header("Authorization", "Bearer " + other).post("/api/bundles/" + id + "/read")
                .then().statusCode(403).body("type", containsString("not-your-bundle"));
        dev.crashlab.testing.Ready.await(id);
        given().header("Authorization", "Bearer " + owner).post("/api/bundles/" + id + "/read").then().statusCode(202);
        dev.crashlab.testing.Ready.await(id);
        given().header("Authorization", "Bearer " + triager).post("/api/bundles/" + id + "/read").then().statusCode(202);
        dev.crashlab.testing.Ready.await(id);
    }

    /** Finding 4: the bundle name, notes and file names were stored as sent. */
    @Test
    void namesNotesAndFileNamesAreRedacted() throws Exception {
        String token = "hf_" + "Qx7" + UUID.randomUUID().toString().replace("-", "");
        String fileToken = "hf_" + "Zk4" + UUID.randomUUID().toString().replace("-", "");
        var bundle = given()
                .multiPart("file", "run-" + fileToken + ".log", "RuntimeError: CUDA out of memory\n".getBytes(StandardCharsets.UTF_8), "text/plain")
                .multiPart("name", "nightly run with " + token)
                .multiPart("notes", "wandb_api_key=" + "0123456789abcdef0123456789abcdef01234567")
                .post("/api/bundles").then().statusCode(201).extract().jsonPath();
        long id = bundle.getLong("id");
        String shown = given().get("/api/bundles/" + id).then().statusCode(200).extract().asString();
        assertThat(shown).doesNotContain(token).doesNotContain(fileToken).doesNotContain("0123456789abcdef0123456789abcdef01234567")
                .contains("<redacted:huggingface-token>");
        assertThat(given().queryParam("size", 100).get("/api/bundles").then().statusCode(200).extract().asString()).doesNotContain(token);
        assertThat(given().queryParam("action", "bundle.upload").queryParam("size", 200).get("/api/audit").then().statusCode(200)
                .extract().asString()).doesNotContain(token);
        dev.crashlab.testing.Ready.await(id);
    }

    /** Finding 5: a text log with one NUL was classed binary and stored unredacted. */
    @Test
    void aTextLogWithAStrayNulIsRedacted() throws Exception {
        String logToken = "hf_" + "Lm9" + UUID.randomUUID().toString().replace("-", "");
        byte[] log = ("step 1 loss=0.25\n\0\nexport HF_TOKEN=" + logToken + "\nRuntimeError: CUDA out of memory\n"
                + "step 2 loss=0.24\n".repeat(40))
                .getBytes(StandardCharsets.US_ASCII);
        long id = given().multiPart("file", "train.log", log, "application/octet-stream").post("/api/bundles").then()
                .statusCode(201).extract().jsonPath().getLong("id");
        List<Map<String, Object>> artifacts = given().get("/api/bundles/" + id).then().extract().jsonPath().getList("artifacts");
        Map<String, Object> train = artifacts.stream().filter(a -> a.get("path").equals("train.log")).findFirst().orElseThrow();
        String content = given().get("/api/bundles/" + id + "/artifacts/" + train.get("id") + "/content").then().statusCode(200)
                .extract().asString();
        assertThat(content).doesNotContain(logToken).contains("<redacted:huggingface-token>").contains("loss=0.25");
        dev.crashlab.testing.Ready.await(id);
    }

    /** Finding 1: a body without a Content-Type skipped the 1 MiB limit on every JSON route. */
    @Test
    void everyRouteButTheUploadTakesAtMostOneMibWhateverTheContentType() throws Exception {
        byte[] big = new byte[(1 << 20) + 4096];
        java.util.Arrays.fill(big, (byte) '{');
        for (String path : List.of("/api/auth/login", "/api/repro/jobs", "/api/tokens", "/api/auth/setup")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.toURI().resolve(path))
                    .header("Authorization", "Bearer " + dev.crashlab.testing.TestAuth.ADMIN_TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(413);
            assertThat(r.body()).contains("1 MiB");
            HttpResponse<String> typed = http.send(HttpRequest.newBuilder(base.toURI().resolve(path))
                    .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(typed.statusCode()).as(path + " as text/plain").isEqualTo(413);
        }
        // a chunked body (no declared length) to a route that is not the upload: 411, whatever its type
        // (over a socket: the server answers from the headers and closes, which an HTTP client still streaming the
        // body may see as a reset before it reads the answer)
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /api/auth/login HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(big, 0, 4096);
            out.flush();
            byte[] head = new byte[12];
            int n = s.getInputStream().readNBytes(head, 0, head.length);
            assertThat(new String(head, 0, n, StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 411");
        }
        // the upload still takes more than 1 MiB (up to its own limit)
        byte[] log = ("RuntimeError: CUDA out of memory\n" + "x".repeat(80) + "\n").repeat(20_000).getBytes(StandardCharsets.UTF_8);
        assertThat(log.length).isGreaterThan(1 << 20);
        long id = given().multiPart("file", "big.log", log, "text/plain").post("/api/bundles").then().statusCode(201)
                .extract().jsonPath().getLong("id");
        dev.crashlab.testing.Ready.await(id);
        given().get("/q/health").then().statusCode(200);
    }

    /** Note of issue 26: a request without a Host header passed the Host check. */
    @Test
    void aRequestWithoutAHostIsNotAnswered() throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write("GET /api/auth/state HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.0 400").contains("unknown-host");
        }
    }

    /** Finding 9: the data folder was world-readable. */
    @Test
    void theDataFolderIsPrivate() throws Exception {
        // 0700 on the folder keeps everything below it (blobs, scratch space made later) out of other users' reach
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config.dataDir()))).isEqualTo("rwx------");
        var db = config.dataDir().resolve("db");
        if (Files.isDirectory(db)) { // the embedded database (H2 runs of the suite)
            try (var files = Files.list(db)) {
                for (var f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString()).isEqualTo("rw-------");
                }
            }
        }
    }
}
