package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import dev.crashlab.repro.jobs.ReproJob;
import dev.crashlab.repro.worker.JobState;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The hardening defaults over real HTTP (README "Hardening defaults"). */
@QuarkusTest
@Tag("persistence")
class HardeningTest {

    /** A worker token bound to {@code worker}, made by the admin (workers claim only as themselves). */
    static String workerToken(String worker) {
        return given().contentType("application/json").body("{\"worker\":\"" + worker + "\"}").post("/api/admin/worker-tokens")
                .then().statusCode(201).extract().path("secret");
    }

    @TestHTTPResource("/")
    URL base;

    private long upload(String name, String text) {
        return given().multiPart("file", name, text.getBytes(StandardCharsets.UTF_8), "text/plain")
                .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
    }

    private String ownOrigin() {
        return "http://" + base.getHost() + ":" + base.getPort();
    }

    @Test
    void aForeignHostIsRefusedAndLoopbackNamesPass() {
        long id = upload("host.log", "RuntimeError: CUDA out of memory\n");
        given().header("Host", "evil.example").delete("/api/bundles/" + id)
                .then().statusCode(400)
                .contentType(startsWith("application/problem+json"))
                .body("type", containsString("unknown-host"))
                .body("detail", containsString("evil.example"));
        given().header("Host", "evil.example:" + base.getPort()).get("/api/bundles/" + id).then().statusCode(400);
        given().header("Host", "127.0.0.1.evil.example").get("/api/bundles/" + id).then().statusCode(400);
        // the bundle survived; the loopback names are answered
        for (String host : List.of("localhost:" + base.getPort(), "127.0.0.1:" + base.getPort(), "[::1]:" + base.getPort(), "LOCALHOST")) {
            given().header("Host", host).get("/api/bundles/" + id).then().statusCode(200);
        }
        given().get("/q/health").then().statusCode(200);
        given().header("Host", "evil.example").get("/q/health").then().statusCode(400);
    }

    @Test
    void aWriteFromAnotherSitesPageIsRefused() {
        long id = upload("origin.log", "RuntimeError: CUDA out of memory\n");
        given().header("Origin", "http://evil.example").delete("/api/bundles/" + id)
                .then().statusCode(403).contentType(startsWith("application/problem+json"))
                .body("type", containsString("cross-origin"));
        // same host name, other port: another origin
        given().header("Origin", "http://localhost:1").delete("/api/bundles/" + id).then().statusCode(403);
        given().header("Origin", "null").delete("/api/bundles/" + id).then().statusCode(403);
        given().header("Sec-Fetch-Site", "cross-site").delete("/api/bundles/" + id).then().statusCode(403);
        // a simple cross-site form post (multipart upload) is refused too, before anything is stored
        given().header("Origin", "https://evil.example").multiPart("file", "x.log", "text".getBytes(StandardCharsets.UTF_8))
                .post("/api/bundles").then().statusCode(403);
        given().header("Origin", "https://evil.example").contentType("application/json").body("{}")
                .post("/api/repro/jobs").then().statusCode(403);
        // reading cross-origin is not refused here (the browser withholds the answer: no CORS headers)
        given().header("Origin", "http://evil.example").get("/api/bundles/" + id).then().statusCode(200);
        given().get("/api/bundles/" + id).then().statusCode(200);
        // the UI's own page, and clients that send no Origin (curl, workers, collectors), may write
        given().header("Origin", ownOrigin()).header("Sec-Fetch-Site", "same-origin").delete("/api/bundles/" + id)
                .then().log().ifValidationFails().statusCode(204);
        long other = upload("origin2.log", "RuntimeError: CUDA out of memory\n");
        given().delete("/api/bundles/" + other).then().statusCode(204);
    }

    @Test
    void jsonBodiesOverOneMibAreRefused() throws Exception {
        String big = "{\"spec\":{\"pad\":\"" + "x".repeat((1 << 20) + 10) + "\"}}";
        given().contentType("application/json").body(big).post("/api/repro/jobs")
                .then().statusCode(413).contentType(startsWith("application/problem+json"))
                .body("detail", containsString("1 MiB"));
        given().contentType("application/json").body(big).header("Authorization", "Bearer " + workerToken("big-" + UUID.randomUUID().toString().substring(0, 8)))
                .post("/api/lab/claim").then().statusCode(413);
        // a chunked JSON body (no length) is refused; a small one reaches the resource and its own checks
        var chunked = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(base.toURI().resolve("/api/repro/jobs"))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8))))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(411);
        given().contentType("application/json").body("{\"spec\":[1,2]}").post("/api/repro/jobs")
                .then().statusCode(422).body("type", containsString("spec"));
    }

    @Test
    void tooManyMultipartPartsOrFieldsAreRefused() {
        RequestSpecification files = given();
        for (int i = 0; i <= MultipartStream.MAX_FILE_PARTS; i++) {
            files = files.multiPart("file", "f" + i + ".log", ("line " + i + "\n").getBytes(StandardCharsets.UTF_8), "text/plain");
        }
        files.post("/api/bundles").then().statusCode(413)
                .body("type", containsString("too-many-parts"))
                .body("detail", containsString("zip"));
        RequestSpecification fields = given().multiPart("file", "a.log", "x\n".getBytes(StandardCharsets.UTF_8), "text/plain");
        for (int i = 0; i <= MultipartStream.MAX_FIELDS; i++) {
            fields = fields.multiPart("field" + i, "v");
        }
        fields.post("/api/bundles").then().statusCode(413).body("type", containsString("too-many-parts"));
        // just under both limits is fine
        RequestSpecification ok = given();
        for (int i = 0; i < 40; i++) {
            ok = ok.multiPart("file", "ok" + i + ".log", ("line " + i + "\n").getBytes(StandardCharsets.UTF_8), "text/plain");
        }
        long id = ok.multiPart("name", "many parts").post("/api/bundles").then().statusCode(201)
                .extract().<Integer>path("id").longValue();
        given().delete("/api/bundles/" + id).then().statusCode(204);
    }

    @Test
    void pagingParametersOutOfRangeAre400NotAServerError() {
        String big = String.valueOf(1L << 31);
        for (String url : List.of("/api/bundles?page=" + big, "/api/bundles?page=" + Integer.MAX_VALUE, "/api/bundles?page=-1",
                "/api/bundles?size=0", "/api/bundles?size=" + big, "/api/bundles?page=abc", "/api/repro/jobs?page=" + big,
                "/api/repro/jobs?size=-5", "/api/bundles/search?q=cuda&offset=" + big, "/api/bundles/search?q=cuda&limit=" + big,
                "/api/kb/search?q=cuda&limit=" + big)) {
            given().get(url).then().statusCode(400).contentType(startsWith("application/problem+json"))
                    .body("detail", containsString("whole number"));
        }
        given().get("/api/bundles?page=" + 1_000_000 + "&size=100").then().statusCode(200).body("items.size()", equalTo(0));
    }

    @Test
    void responsesCarryTheSecurityHeadersAndArtifactsRenderNothing() {
        given().get("/api/bundles").then().statusCode(200)
                .header("Content-Security-Policy", containsString("script-src 'self'"))
                .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY");
        // problems too
        given().get("/api/bundles/999999999").then().statusCode(404).header("X-Content-Type-Options", "nosniff");

        String xml = "<Events><Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
                + "<Provider Name='Application Error'/><EventID>1000</EventID></System>"
                + "<html:script xmlns:html='http://www.w3.org/1999/xhtml'>window.pwned = 1</html:script></Event></Events>\n";
        var created = given().multiPart("file", "events.xml", xml.getBytes(StandardCharsets.UTF_8), "application/xml")
                .post("/api/bundles").then().statusCode(201).extract();
        long id = created.<Integer>path("id").longValue();
        int artifact = created.path("artifacts[0].id");
        given().get("/api/bundles/" + id + "/artifacts/" + artifact + "/content").then().statusCode(200)
                .header("Content-Type", startsWith("text/plain"))
                .header("Content-Security-Policy", "sandbox; default-src 'none'")
                .header("X-Content-Type-Options", "nosniff");
        given().delete("/api/bundles/" + id).then().statusCode(204);
    }

    @Test
    void jobsNoWorkerCanRunNeverHideAClaimableOne() {
        String me = "fair-" + UUID.randomUUID().toString().substring(0, 8);
        // leftovers of earlier tests in this run's shared database would be claimed first: start from an empty queue
        QuarkusTransaction.requiringNew().run(() -> ReproJob.update("state = ?1, reason = ?2, finishedAt = ?3 where state = ?4",
                JobState.CANCELLED, "cleared by HardeningTest", Instant.now(), JobState.QUEUED));
        String spec = dev.crashlab.repro.worker.ScriptedChild.spec("pass");
        List<Long> unclaimable = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            unclaimable.add(given().contentType("application/json")
                    .body("{\"spec\":" + spec + ",\"target\":\"gpu:NoSuchGpu-" + me + "\"}").post("/api/repro/jobs")
                    .then().statusCode(201).extract().<Integer>path("id").longValue());
        }
        long mine = given().contentType("application/json").body("{\"spec\":" + spec + ",\"target\":\"worker:" + me + "\"}")
                .post("/api/repro/jobs").then().statusCode(201).extract().<Integer>path("id").longValue();
        String token = workerToken(me);
        String claim = "{\"worker\":\"" + me + "\",\"backend\":\"cpu\",\"devices\":[{\"name\":\"test CPU\"}],\"version\":\"test\"}";
        given().header("Authorization", "Bearer " + token).contentType("application/json").body(claim)
                .post("/api/lab/claim").then().statusCode(200).body("id", equalTo((int) mine));
        // and nothing else is claimable by it: the GPU jobs stay queued
        given().header("Authorization", "Bearer " + token).contentType("application/json").body(claim)
                .post("/api/lab/claim").then().statusCode(204);
        for (long id : unclaimable) {
            given().get("/api/repro/jobs/" + id).then().statusCode(200).body("state", equalTo("queued"));
            given().post("/api/repro/jobs/" + id + "/cancel").then().statusCode(200);
        }
        assertThat(unclaimable).hasSize(60);
    }

    /** A new account with {@code role}, signed in: its session cookie. */
    private static String signedIn(String role) {
        String name = role + "-" + UUID.randomUUID().toString().substring(0, 8);
        given().contentType("application/json").body(Map.of("username", name, "password", "a-long-password", "roles", List.of(role)))
                .post("/api/admin/users").then().statusCode(201);
        return given().header("Authorization", "").contentType("application/json")
                .body(Map.of("username", name, "password", "a-long-password")).post("/api/auth/login")
                .then().statusCode(200).extract().cookie("crashlab_session");
    }

    private static RequestSpecification asSession(String session) {
        return given().header("Authorization", "").cookie("crashlab_session", session);
    }

    @Test
    void aSignedInBrowserCannotBeMadeToWriteFromAnotherSite() {
        String reporter = signedIn("reporter");
        long id = asSession(reporter).multiPart("file", "cookie.log", "RuntimeError: CUDA out of memory\n".getBytes(StandardCharsets.UTF_8))
                .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id").longValue();
        // another site's page, riding on the session cookie: refused before anything happens
        asSession(reporter).header("Origin", "https://evil.example").delete("/api/bundles/" + id)
                .then().statusCode(403).contentType(startsWith("application/problem+json")).body("type", containsString("cross-origin"));
        asSession(reporter).header("Origin", "https://evil.example")
                .multiPart("file", "x.log", "text".getBytes(StandardCharsets.UTF_8)).post("/api/bundles").then().statusCode(403);
        asSession(reporter).header("Sec-Fetch-Site", "cross-site").delete("/api/bundles/" + id).then().statusCode(403);
        asSession(reporter).get("/api/bundles/" + id).then().statusCode(200);
        // the same request from CrashLab's own page goes through
        asSession(reporter).header("Origin", ownOrigin()).header("Sec-Fetch-Site", "same-origin").delete("/api/bundles/" + id)
                .then().log().ifValidationFails().statusCode(204);
        asSession(reporter).get("/api/bundles/" + id).then().statusCode(404);
    }

    @Test
    void oneUserCannotFillTheJobQueueForEveryone() {
        String spec = dev.crashlab.repro.worker.ScriptedChild.spec("pass");
        String job = "{\"spec\":" + spec + ",\"target\":\"gpu:NoSuchGpu-per-user\"}";
        String busy = signedIn("lab");
        String other = signedIn("lab");
        List<Long> queued = new ArrayList<>();
        // %test.crashlab.lab.max-queued-per-user=70
        for (int i = 0; i < 70; i++) {
            queued.add(asSession(busy).contentType("application/json").body(job).post("/api/repro/jobs")
                    .then().statusCode(201).extract().<Integer>path("id").longValue());
        }
        asSession(busy).contentType("application/json").body(job).post("/api/repro/jobs")
                .then().statusCode(429).contentType(startsWith("application/problem+json"))
                .header("Retry-After", equalTo("60"))
                .body("type", containsString("too-many-queued-jobs"))
                .body("detail", containsString("you have 70 jobs waiting already"));
        // someone else still gets in line
        long theirs = asSession(other).contentType("application/json").body(job).post("/api/repro/jobs")
                .then().statusCode(201).extract().<Integer>path("id").longValue();
        // once one of the busy user's jobs is cancelled, they may queue one more
        asSession(busy).post("/api/repro/jobs/" + queued.getFirst() + "/cancel").then().statusCode(200);
        queued.add(asSession(busy).contentType("application/json").body(job).post("/api/repro/jobs")
                .then().statusCode(201).extract().<Integer>path("id").longValue());
        for (long id : queued.subList(1, queued.size())) {
            given().post("/api/repro/jobs/" + id + "/cancel").then().statusCode(200);
        }
        given().post("/api/repro/jobs/" + theirs + "/cancel").then().statusCode(200);
    }

    @Inject
    EventStreamLimit streams;

    /** Opens a job's event stream with a session; the open response (status known, body still streaming). */
    private HttpResponse<InputStream> openStream(HttpClient http, String session, long job) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(base.toURI().resolve("/api/repro/jobs/" + job + "/events"))
                .header("Cookie", "crashlab_session=" + session).header("Accept", "text/event-stream").build();
        return http.sendAsync(r, HttpResponse.BodyHandlers.ofInputStream()).get(30, TimeUnit.SECONDS);
    }

    @Test
    void liveJobViewsAreCappedPerUserAndInTotal() throws Exception {
        String spec = dev.crashlab.repro.worker.ScriptedChild.spec("pass");
        long job = given().contentType("application/json").body("{\"spec\":" + spec + ",\"target\":\"gpu:NoSuchGpu-sse\"}")
                .post("/api/repro/jobs").then().statusCode(201).extract().<Integer>path("id").longValue();
        HttpClient http = HttpClient.newHttpClient();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            // streams of other tests end with their jobs: wait for them, so the total below is ours alone
            long quiet = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (streams.open() > 0 && System.nanoTime() < quiet) {
                Thread.sleep(100);
            }
            assertThat(streams.open()).as("streams left open by earlier tests").isZero();
            // %test: at most 4 per user, 12 in all
            String first = signedIn("viewer");
            for (int i = 0; i < 4; i++) {
                HttpResponse<InputStream> s = openStream(http, first, job);
                assertThat(s.statusCode()).isEqualTo(200);
                open.add(s);
            }
            HttpResponse<InputStream> fifth = openStream(http, first, job);
            assertThat(fifth.statusCode()).isEqualTo(429);
            assertThat(fifth.headers().firstValue("Retry-After")).hasValue("10");
            assertThat(new String(fifth.body().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("you have 4 live job views open already").contains("max-event-streams-per-user");
            for (int u = 0; u < 2; u++) {
                String user = signedIn("viewer");
                for (int i = 0; i < 4; i++) {
                    HttpResponse<InputStream> s = openStream(http, user, job);
                    assertThat(s.statusCode()).isEqualTo(200);
                    open.add(s);
                }
            }
            assertThat(streams.open()).isEqualTo(12);
            String late = signedIn("viewer");
            HttpResponse<InputStream> refused = openStream(http, late, job);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(new String(refused.body().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("the server has 12 live job views open").contains("crashlab.http.max-event-streams");
            // a browser that goes away gives its slot back
            open.removeFirst().body().close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (streams.open() > 11 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            HttpResponse<InputStream> now = openStream(http, late, job);
            assertThat(now.statusCode()).isEqualTo(200);
            open.add(now);
        } finally {
            for (HttpResponse<InputStream> s : open) {
                s.body().close();
            }
            given().post("/api/repro/jobs/" + job + "/cancel").then().statusCode(200);
        }
        // the job ended: every stream still open ends with it, and the count goes back to zero
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (streams.open() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(streams.open()).isZero();
    }

    @Test
    void theConsoleLogLeavesOutTheTraceOfABrowserGoneMidWrite() {
        List<Handler> handlers = new ArrayList<>();
        collect(java.util.logging.Logger.getLogger("").getHandlers(), handlers);
        Handler console = handlers.stream().filter(h -> h.getClass().getSimpleName().equals("ConsoleHandler")).findFirst()
                .orElseThrow(() -> new AssertionError("no console handler among " + handlers));
        LogRecord gone = new LogRecord(Level.SEVERE, "Exception in SSE server handling, impossible to send it to client");
        gone.setLoggerName(ClientGoneLogFilter.SSE_WRITER);
        gone.setThrown(new IllegalArgumentException("Stream no longer exists: 29"));
        assertThat(console.getFilter()).as("the console handler's filter").isNotNull();
        assertThat(console.getFilter().isLoggable(gone)).isFalse();
        LogRecord other = new LogRecord(Level.SEVERE, "something else");
        other.setLoggerName(ClientGoneLogFilter.SSE_WRITER);
        other.setThrown(new IllegalStateException("boom"));
        assertThat(console.getFilter().isLoggable(other)).isTrue();
    }

    private static void collect(Handler[] from, List<Handler> into) {
        for (Handler h : from) {
            into.add(h);
            if (h instanceof org.jboss.logmanager.ExtHandler ext) {
                collect(ext.getHandlers(), into);
            }
        }
    }
}
