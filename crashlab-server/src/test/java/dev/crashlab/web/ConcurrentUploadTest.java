package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Twenty bundles uploaded at once all land, each with exactly its own files. */
@QuarkusTest
@Tag("persistence")
class ConcurrentUploadTest {

    record Sent(String name, Map<String, String> files) {}

    @Test
    void twentyConcurrentUploadsAllLandUnmixed() throws Exception {
        int n = 20;
        String run = Long.toString(System.nanoTime(), 36);
        List<Sent> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // each bundle shares one file with all others (dedup under contention) and has its own
            sent.add(new Sent("concurrent-" + run + "-" + i + ".zip", Map.of(
                    "crash.log", "bundle " + i + " of run " + run + "\n".repeat(i + 1),
                    "shared/pip-freeze.txt", "numpy==1.26.4\ntorch==2.3.1\n",
                    "gpu/nvidia-smi-" + i + ".txt", "GPU " + i + " fell off the bus\n")));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<JsonPath>> results = new ArrayList<>();
            for (Sent s : sent) {
                Callable<JsonPath> upload = () -> {
                    Zips zip = Zips.zip();
                    s.files().forEach(zip::text);
                    byte[] bytes = zip.build();
                    start.await();
                    return given().multiPart("file", s.name(), bytes, "application/zip")
                            .post("/api/bundles").then().statusCode(201).extract().jsonPath();
                };
                results.add(pool.submit(upload));
            }
            start.countDown();
            Set<Integer> ids = new HashSet<>();
            for (int i = 0; i < n; i++) {
                JsonPath created = results.get(i).get();
                Sent s = sent.get(i);
                assertThat(created.getString("name")).isEqualTo(s.name());
                ids.add(created.getInt("id"));
                // read back through the API: every file's bytes are the ones this upload sent
                JsonPath stored = given().get("/api/bundles/" + created.getInt("id")).then().statusCode(200).extract().jsonPath();
                List<String> paths = stored.getList("artifacts.path");
                assertThat(paths).containsExactlyInAnyOrderElementsOf(s.files().keySet());
                for (int a = 0; a < paths.size(); a++) {
                    String body = given().get("/api/bundles/" + created.getInt("id") + "/artifacts/"
                            + stored.getInt("artifacts[" + a + "].id") + "/content")
                            .then().statusCode(200).extract().asString();
                    assertThat(body).isEqualTo(s.files().get(paths.get(a)));
                }
            }
            assertThat(ids).hasSize(n);
        } finally {
            pool.shutdownNow();
        }
    }

}
