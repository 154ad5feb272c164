package dev.crashlab.repro.jobs;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.crashlab.repro.worker.ChildJvm;
import dev.crashlab.repro.worker.HttpJobSource;
import dev.crashlab.repro.worker.ReproWorker;
import dev.crashlab.repro.worker.ScriptedChild;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerSettings;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real worker ({@code bin/crashlab worker}'s loop) speaking the protocol over HTTP to the test server,
 * running each job in a real child JVM that passes, halts with 134, is killed with {@code kill -9},
 * hangs past its limit, or is cancelled.
 */
@QuarkusTest
class WorkerProtocolTest {

    @TestHTTPResource("/")
    URL base;

    @TempDir
    Path tmp;

    final String name = "http-" + UUID.randomUUID().toString().substring(0, 8);
    final List<String> log = new CopyOnWriteArrayList<>();
    final ExecutorService background = Executors.newSingleThreadExecutor();

    /** A worker token bound to {@link #name}, made by the admin as a real deployment does. */
    String token;

    @org.junit.jupiter.api.BeforeEach
    void workerToken() {
        token = workerToken(name);
    }

    static String workerToken(String worker) {
        return given().contentType("application/json").body("{\"worker\":\"" + worker + "\"}").post("/api/admin/worker-tokens")
                .then().statusCode(201).body("token.workerName", equalTo(worker)).extract().path("secret");
    }

    @AfterEach
    void stopBackground() {
        background.shutdownNow();
    }

    private ReproWorker worker(Duration limit) throws Exception {
        WorkerSettings settings = new WorkerSettings(name, "cpu", Duration.ofMillis(200), limit, "64m", tmp,
                ScriptedChild.class.getName(), ChildJvm.classpathOf(System.getProperty("java.class.path")));
        return new ReproWorker(new HttpJobSource(base.toURI(), token), settings,
                List.of(new Device("test CPU " + name, null, null)), "test", log::add);
    }

    private long queue(String behaviour) {
        String body = "{\"spec\":" + ScriptedChild.spec(behaviour) + ",\"target\":\"worker:" + name + "\"}";
        return given().contentType("application/json").body(body).post("/api/repro/jobs")
                .then().statusCode(201).body("state", equalTo("queued")).extract().<Integer>path("id").longValue();
    }

    private static JsonPath job(long id) {
        return given().get("/api/repro/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    private static long awaitChildPid(long id) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            String progress = job(id).getString("progress");
            if (progress != null && progress.startsWith("pid ")) {
                assertThat(job(id).getString("state")).isEqualTo("running");
                return Long.parseLong(progress.substring(4));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job " + id + " never reported its child's pid");
    }

    @Test
    void aPassingChildCompletesTheJobWithItsResult() throws Exception {
        long id = queue("pass");
        assertThat(worker(Duration.ofSeconds(60)).runOne()).isTrue();
        JsonPath j = job(id);
        assertThat(j.getString("state")).isEqualTo("passed");
        assertThat(j.getString("worker")).isEqualTo(name);
        assertThat(j.getInt("attempts")).isEqualTo(1);
        assertThat(j.getString("result.replay.status")).isEqualTo("passed");
        assertThat(j.getInt("result.child.exit_code")).isZero();
        assertThat(j.getString("result.child.ending")).isEqualTo("exited");
        assertThat(j.getString("result.child.log_tail")).contains("scripted child");

        // the worker is listed with its device, and the finished job's event stream ends with its final state
        given().get("/api/lab/workers").then().statusCode(200)
                .body("remoteWorkers", equalTo(true))
                .body("workers.find { it.name == '" + name + "' }.devices[0].name", equalTo("test CPU " + name))
                .body("workers.find { it.name == '" + name + "' }.online", equalTo(true));
        String events = given().accept("text/event-stream").get("/api/repro/jobs/" + id + "/events")
                .then().statusCode(200).extract().asString();
        assertThat(events).contains("data:").contains("\"state\":\"passed\"");
    }

    @Test
    void aChildThatHaltsWith134CrashesTheJobWithItsExitStatusAndLog() throws Exception {
        long id = queue("halt-134");
        assertThat(worker(Duration.ofSeconds(60)).runOne()).isTrue();
        JsonPath j = job(id);
        assertThat(j.getString("state")).isEqualTo("crashed");
        assertThat(j.getString("reason")).contains("exit status 134");
        assertThat(j.getInt("result.child.exit_code")).isEqualTo(134);
        assertThat(j.getString("result.child.signal")).isEqualTo("SIGABRT");
        assertThat(j.getString("result.child.log_tail")).contains("fatal: simulated abort in native code");
        assertThat(j.getString("result.replay")).isNull();
    }

    @Test
    void aChildKilledWithKill9CrashesTheJob() throws Exception {
        long id = queue("hang");
        ReproWorker w = worker(Duration.ofSeconds(120));
        Future<Boolean> running = background.submit(w::runOne);
        long pid = awaitChildPid(id);
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        assertThat(running.get(60, TimeUnit.SECONDS)).isTrue();
        JsonPath j = job(id);
        assertThat(j.getString("state")).isEqualTo("crashed");
        assertThat(j.getInt("result.child.exit_code")).isEqualTo(137);
        assertThat(j.getString("result.child.signal")).isEqualTo("SIGKILL");
        assertThat(j.getString("result.child.ending")).isEqualTo("exited");
    }

    @Test
    void aChildThatHangsPastItsLimitTimesOut() throws Exception {
        long id = queue("hang");
        assertThat(worker(Duration.ofSeconds(3)).runOne()).isTrue();
        JsonPath j = job(id);
        assertThat(j.getString("state")).isEqualTo("timed-out");
        assertThat(j.getString("reason")).contains("wall-clock limit").contains("limit 3 s");
        assertThat(j.getString("result.child.ending")).isEqualTo("timed-out");
        assertThat(j.getLong("result.child.duration_ms")).isGreaterThanOrEqualTo(3000);
    }

    @Test
    void cancellingARunningJobKillsItsChild() throws Exception {
        long id = queue("hang");
        Future<Boolean> running = background.submit(worker(Duration.ofSeconds(120))::runOne);
        long pid = awaitChildPid(id);
        given().post("/api/repro/jobs/" + id + "/cancel").then().statusCode(200)
                .body("cancelRequested", equalTo(true)).body("state", equalTo("running"));
        assertThat(running.get(60, TimeUnit.SECONDS)).isTrue();
        JsonPath j = job(id);
        assertThat(j.getString("state")).isEqualTo("cancelled");
        assertThat(j.getString("result.child.ending")).isEqualTo("cancelled");
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the child is gone").isFalse();
        given().post("/api/repro/jobs/" + id + "/cancel").then().statusCode(409)
                .contentType("application/problem+json").body("detail", containsString("already ended as cancelled"));
    }

    @Test
    void theProtocolNeedsThisWorkersToken() throws Exception {
        String claim = "{\"worker\":\"" + name + "\"}";
        given().contentType("application/json").header("Authorization", "").body(claim).post("/api/lab/claim")
                .then().statusCode(401).contentType("application/problem+json");
        given().contentType("application/json").header("Authorization", "Bearer wrong").body(claim)
                .post("/api/lab/claim").then().statusCode(401).contentType("application/problem+json");
        HttpJobSource wrong = new HttpJobSource(base.toURI(), "not-the-token");
        assertThatThrownBy(() -> wrong.claim(new ClaimRequest(name, "cpu", List.of(), "test")))
                .isInstanceOf(IOException.class).hasMessageContaining("401");
        // the admin token holds no worker role, and another worker's token cannot act as this worker
        given().contentType("application/json").body(claim).post("/api/lab/claim")
                .then().statusCode(403).body("detail", containsString("roles do not allow"));
        String other = workerToken(name + "-other");
        given().contentType("application/json").header("Authorization", "Bearer " + other).body(claim)
                .post("/api/lab/claim").then().statusCode(403).body("detail", containsString("belongs to worker `" + name + "-other`"));
        given().contentType("application/json").header("Authorization", "Bearer " + other)
                .body("{\"worker\":\"" + name + "\",\"progress\":\"x\"}").post("/api/lab/jobs/1/heartbeat")
                .then().statusCode(403);
        given().contentType("application/json").header("Authorization", "Bearer " + other)
                .body("{\"worker\":\"" + name + "\",\"state\":\"passed\"}").post("/api/lab/jobs/1/complete")
                .then().statusCode(403);
        // a worker token reads nothing else
        given().header("Authorization", "Bearer " + token).get("/api/bundles").then().statusCode(403);
        // with its own token, an empty queue for this worker answers 204
        String idle = workerToken(name + "-idle");
        HttpJobSource right = new HttpJobSource(base.toURI(), idle);
        assertThat(right.claim(new ClaimRequest(name + "-idle", "cpu", List.of(), "test"))
                .filter(j -> j.spec().toString().contains(name))).isEmpty();
    }

    @Test
    void specsAndEstimatesKeepTheirWireShapes() {
        String spec = "{\"format\":1,\"batch\":2,\"layers\":[{\"name\":\"c1\",\"in_channels\":3,\"out_channels\":4,"
                + "\"input\":[8,8],\"kernel\":[3,3],\"padding\":\"same\"}]}";
        JsonPath checked = given().contentType("application/json").body("{\"spec\":" + spec + "}").post("/api/repro/estimate")
                .then().statusCode(200).extract().jsonPath();
        // the spec comes back as its normalised document, the estimate in snake_case
        assertThat(checked.getInt("spec.format")).isEqualTo(1);
        assertThat(checked.getList("spec.layers[0].pad_begin", Integer.class)).containsExactly(1, 1);
        assertThat(checked.getMap("spec.layers[0]")).doesNotContainKey("padding");
        assertThat(checked.getLong("estimate.total_bytes")).isPositive();
        assertThat(checked.getMap("estimate.layers[0]")).containsKey("cpu_replay_bytes").doesNotContainKey("cpuReplayBytes");
        given().contentType("application/json").body("{\"spec\":{\"format\":1,\"layers\":[{\"input\":[8,8]}]}}")
                .post("/api/repro/estimate").then().statusCode(422).contentType("application/problem+json")
                .body("detail", containsString("layers[0].kernel: missing"));

        long id = given().contentType("application/json").body("{\"spec\":" + spec + ",\"target\":\"worker:" + name + "\"}")
                .post("/api/repro/jobs").then().statusCode(201).body("spec.layers[0].pad_end", equalTo(List.of(1, 1)))
                .extract().<Integer>path("id").longValue();
        assertThat(job(id).getMap("spec")).isEqualTo(checked.getMap("spec"));
        given().post("/api/repro/jobs/" + id + "/cancel").then().statusCode(200);
    }

    @Test
    void badRequestsAreProblemsNotErrors() {
        given().contentType("application/json").body("{\"target\":\"any\"}").post("/api/repro/jobs")
                .then().statusCode(400).contentType("application/problem+json").body("detail", containsString("spec"));
        given().contentType("application/json").body("{\"spec\":{\"format\":1},\"target\":\"host:x\"}").post("/api/repro/jobs")
                .then().statusCode(400).body("detail", containsString("not `any`"));
        given().contentType("application/json").body("{\"spec\":[1,2]}").post("/api/repro/jobs")
                .then().statusCode(422).contentType("application/problem+json");
        given().contentType("application/json").body("{\"bundleId\":" + Long.MAX_VALUE + "}").post("/api/repro/jobs")
                .then().statusCode(404).contentType("application/problem+json");
        given().contentType("application/json").body("not json").post("/api/repro/jobs")
                .then().statusCode(400).contentType("application/problem+json");
        given().get("/api/repro/jobs/" + Long.MAX_VALUE).then().statusCode(404).contentType("application/problem+json");
        given().get("/api/repro/jobs/" + Long.MAX_VALUE + "/events").then().statusCode(404);
        given().header("Authorization", "Bearer " + token).contentType("application/json")
                .body("{\"worker\":\"" + name + "\",\"state\":\"running\"}").post("/api/lab/jobs/" + Long.MAX_VALUE + "/complete")
                .then().statusCode(400).body("detail", containsString("final state"));
    }
}
