package dev.crashlab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.S3ProxyServer;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 acceptance 3 (second half), with two real servers (child JVMs) on one PostgreSQL database and one S3Proxy
 * bucket: server A accepts a bundle and is killed with SIGKILL before it has read it; server B finishes reading it
 * within the lease plus 30 s, with nobody restarting anything or asking for it.
 *
 * <p>NOTE: A reads slowly on purpose ({@code crashlab.ingest.test-pause} 3 s per file), so the kill certainly lands
 * while the bundle is PROCESSING; B has no pause.
 */
@Tag("slow")
@BesideInProcessTests
class ReadLeaseTakeoverTest {

    /** Short, so that the wait for its expiry is short: servers renew every third of it, look for orphans every half. */
    private static final long LEASE_S = 2;
    private static S3ProxyServer s3;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (eval \"$(scripts/test-pg start)\")");
        s3 = S3ProxyServer.shared(); // buckets of this class's own
    }

    private static Map<String, String> settings() {
        Map<String, String> m = s3.serverSettings("crashlab-leases");
        m.put("crashlab.ingest.lease", LEASE_S + "s");
        return m;
    }

    @Test
    void aBundleWhoseServerDiedIsFinishedByAnotherWithinTheLeasePlus30s() throws Exception {
        s3.createBucket("crashlab-leases");
        Map<String, String> slow = settings();
        slow.put("crashlab.ingest.test-pause", "3s");
        try (ChildServer a = ChildServer.start("lease_a", slow, ChildServer.SHORT_LIVED);
             ChildServer b = ChildServer.sharing("lease_b", a, settings(), ChildServer.SHORT_LIVED)) {
            String nonce = UUID.randomUUID().toString();
            long id = a.api()
                    .multiPart("file", "rank-0.log", ("rank 0 " + nonce + "\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n").getBytes(), "text/plain")
                    .multiPart("file", "rank-1.log", ("rank 1 " + nonce + "\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n").getBytes(), "text/plain")
                    .multiPart("file", "nvidia-smi.txt", ("nvidia-smi " + nonce + "\n").getBytes(), "text/plain")
                    .when().post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
            a.killHard();
            long killedAt = System.nanoTime();

            JsonPath seen = b.api().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
            assertThat(seen.getString("status")).as("A died before it finished reading").isEqualTo("PROCESSING");

            long deadline = killedAt + (LEASE_S + 30) * 1_000_000_000L;
            String status = seen.getString("status");
            while (!"READY".equals(status) && System.nanoTime() < deadline) {
                Thread.sleep(250);
                status = b.api().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath().getString("status");
            }
            double took = (System.nanoTime() - killedAt) / 1e9;
            System.out.printf("bundle %d: A killed after accepting it; READY on B %.1f s later (lease %d s)%n", id, took, LEASE_S);
            assertThat(status).as("READY on B within lease + 30 s (%.1f s after the kill); B's log:%n%s", took, b.logTail())
                    .isEqualTo("READY");
            assertThat(b.logTail()).contains("taking over bundle " + id);
            b.api().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200);
        }
    }
}
