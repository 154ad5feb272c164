package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import dev.crashlab.bundle.BundleService;
import dev.crashlab.testing.BrowserMultipart;
import dev.crashlab.testing.StoreState;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The upload path end to end over HTTP: store, show, list, download, delete. */
@QuarkusTest
class BundleApiTest {

    static final String TRACEBACK = """
            2026-11-20 10:01:02.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 4620 MB memory
            Traceback (most recent call last):
              File "train.py", line 42, in <module>
                model.fit(x, y, batch_size=64)
            RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB

            Process finished with exit code -1073740791 (0xC0000409)
            """;

    @Inject
    BundleService service;

    @Test
    void uploadsAZipAndServesItsFilesBackByteForByte() throws Exception {
        byte[] binary = new byte[300];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 7);
        }
        byte[] zip = Zips.zip()
                .text("crash.log", TRACEBACK)
                .text("env/pip-freeze.txt", "numpy==1.26.4\ntensorflow==2.10.1\nkeras==2.10.0\n")
                .bytes("dumps/core.bin", binary)
                .build();

        Response created = given().multiPart("file", "bundle.zip", zip, "application/zip")
                .when().post("/api/bundles")
                .then().statusCode(201)
                .header("Location", org.hamcrest.Matchers.containsString("/api/bundles/"))
                .body("name", equalTo("bundle.zip"))
                .body("size", equalTo(zip.length))
                .body("sha256", equalTo(sha256(zip)))
                // stored safely; read and diagnosed in the background
                .body("status", equalTo("PROCESSING"))
                .body("artifacts", hasSize(3))
                .body("artifacts.path", equalTo(List.of("crash.log", "dumps/core.bin", "env/pip-freeze.txt")))
                .body("artifacts.type", equalTo(List.of("CONSOLE_LOG", "BINARY", "PIP_FREEZE")))
                .body("progress.artifacts", equalTo(3))
                .extract().response();
        long id = created.<Integer>path("id");
        dev.crashlab.testing.Ready.await(id);
        int logId = created.path("artifacts[0].id");
        int binId = created.path("artifacts[1].id");

        given().get("/api/bundles/" + id).then().statusCode(200)
                .body("id", equalTo((int) id))
                .body("status", equalTo("READY"))
                .body("progress.artifactsRead", equalTo(3))
                // no parser reads a core dump
                .body("artifacts.parseStatus", equalTo(List.of("PARSED", "UNSUPPORTED", "PARSED")))
                .body("artifacts[0].sha256", equalTo(sha256(TRACEBACK.getBytes(StandardCharsets.UTF_8))));

        byte[] text = given().get("/api/bundles/" + id + "/artifacts/" + logId + "/content")
                .then().statusCode(200)
                .header("Content-Type", startsWith("text/plain"))
                .header("Content-Disposition", startsWith("inline"))
                .extract().asByteArray();
        assertThat(new String(text, StandardCharsets.UTF_8)).isEqualTo(TRACEBACK);

        byte[] bin = given().get("/api/bundles/" + id + "/artifacts/" + binId + "/content")
                .then().statusCode(200)
                .header("Content-Type", equalTo("application/octet-stream"))
                .header("Content-Disposition", startsWith("attachment"))
                .extract().asByteArray();
        assertThat(bin).isEqualTo(binary);
    }

    @Test
    void acceptsLooseFilesAndArchivesInOneUpload() {
        byte[] zip = Zips.zip().text("nvidia-smi.txt", "no devices were found\n").build();
        given().multiPart("file", "crash.log", TRACEBACK.getBytes(StandardCharsets.UTF_8), "text/plain")
                .multiPart("file", "extra.zip", zip, "application/zip")
                .multiPart("name", "my crash")
                .multiPart("notes", "  RTX 3060, TF 2.10 on Windows 11; died at epoch 3  ")
                .when().post("/api/bundles")
                .then().statusCode(201)
                .body("name", equalTo("my crash"))
                .body("notes", equalTo("RTX 3060, TF 2.10 on Windows 11; died at epoch 3"))
                .body("artifacts.path", equalTo(List.of("crash.log", "extra.zip/nvidia-smi.txt")));
    }

    @Test
    void acceptsARawArchiveBody() throws Exception {
        byte[] zip = Zips.zip().text("logs/crash.log", TRACEBACK).build();
        given().body(zip).contentType("application/zip").queryParam("name", "from-curl.zip")
                .when().post("/api/bundles")
                .then().statusCode(201)
                .body("name", equalTo("from-curl.zip"))
                .body("sha256", equalTo(sha256(zip)))
                .body("artifacts.path", equalTo(List.of("logs/crash.log")));
    }

    @Test
    void keepsNamesWithUnicodeAndSpaces() {
        String name = "journal d'erreur — 日本 (1).log";
        given().body(BrowserMultipart.fileBody(name, TRACEBACK.getBytes(StandardCharsets.UTF_8)))
                .contentType(BrowserMultipart.CONTENT_TYPE)
                .when().post("/api/bundles")
                .then().statusCode(201)
                .body("name", equalTo(name))
                .body("artifacts[0].path", equalTo(name));
    }

    @Test
    void storesTheSameFileOnceAndDeletesItOnlyWithItsLastUser() throws Exception {
        byte[] unique = ("unique content " + System.nanoTime() + "\n").getBytes(StandardCharsets.UTF_8);
        String sha = sha256(unique);
        long first = given().multiPart("file", "a.log", unique, "text/plain").post("/api/bundles")
                .then().statusCode(201).extract().<Integer>path("id");
        long second = given().multiPart("file", "b.log", unique, "text/plain").post("/api/bundles")
                .then().statusCode(201).extract().<Integer>path("id");
        assertThat(service.blobs().list()).containsOnlyOnce(sha);
        assertThat(service.blobs().contains(sha)).isTrue();

        StoreState before = StoreState.of(service);
        given().delete("/api/bundles/" + first).then().statusCode(204);
        assertThat(service.blobs().contains(sha)).isTrue();
        given().get("/api/bundles/" + first).then().statusCode(404)
                .contentType("application/problem+json")
                .body("detail", equalTo("no bundle " + first));

        given().delete("/api/bundles/" + second).then().statusCode(204);
        assertThat(service.blobs().contains(sha)).isFalse();
        StoreState after = StoreState.of(service);
        assertThat(after.bundles()).isEqualTo(before.bundles() - 2);
        assertThat(after.artifacts()).isEqualTo(before.artifacts() - 2);
        given().delete("/api/bundles/" + second).then().statusCode(404);
    }

    @Test
    void listsNewestFirstInPages() {
        long[] ids = new long[3];
        for (int i = 0; i < 3; i++) {
            ids[i] = given().multiPart("file", "page-" + i + ".log", ("line " + i + " " + System.nanoTime()).getBytes(StandardCharsets.UTF_8), "text/plain")
                    .post("/api/bundles").then().statusCode(201).extract().<Integer>path("id");
        }
        Response page0 = given().queryParam("page", 0).queryParam("size", 2).get("/api/bundles")
                .then().statusCode(200)
                .body("items", hasSize(2))
                .body("page", equalTo(0))
                .body("size", equalTo(2))
                .extract().response();
        assertThat(page0.<List<Integer>>path("items.id")).containsExactly((int) ids[2], (int) ids[1]);
        assertThat(page0.<Integer>path("total")).isGreaterThanOrEqualTo(3);
        assertThat(page0.<List<Integer>>path("items.artifactCount")).containsOnly(1);

        List<Integer> page1 = given().queryParam("page", 1).queryParam("size", 2).get("/api/bundles")
                .then().statusCode(200).extract().path("items.id");
        assertThat(page1).first().isEqualTo((int) ids[0]);
    }

    @Test
    void answersUnknownThingsWithProblems() {
        given().get("/api/bundles/999999999").then().statusCode(404)
                .contentType("application/problem+json")
                .body("status", equalTo(404))
                .body("type", equalTo("urn:crashlab:problem:not-found"));
        given().get("/api/bundles/999999999/artifacts/1/content").then().statusCode(404)
                .contentType("application/problem+json");
        given().get("/api/bundles/not-a-number").then().statusCode(404)
                .contentType("application/problem+json");
        given().body("{}").contentType("application/json").post("/api/bundles").then().statusCode(415)
                .contentType("application/problem+json")
                .body("detail", startsWith("unsupported Content-Type"));
    }

    @Test
    void parsesABundleIntoFactsWithTheirSources() {
        byte[] zip = Zips.zip().text("logs/crash.log", TRACEBACK).build();
        int id = given().multiPart("file", "facts.zip", zip, "application/zip").post("/api/bundles")
                .then().statusCode(201).extract().path("id");
        dev.crashlab.testing.Ready.await(id);
        given().get("/api/bundles/" + id + "/facts").then().statusCode(200)
                .body("bundleId", equalTo(id))
                .body("artifacts.path", equalTo(List.of("logs/crash.log")))
                .body("artifacts[0].type", equalTo("CONSOLE_LOG"))
                .body("artifacts[0].facts.kind", org.hamcrest.Matchers.hasItems("ExitStatus", "PythonException"))
                .body("artifacts[0].facts.find { it.kind == 'ExitStatus' }.name", org.hamcrest.Matchers.containsString("STACK_BUFFER_OVERRUN"))
                .body("artifacts[0].facts.find { it.kind == 'ExitStatus' }.sources[0].artifact", equalTo("logs/crash.log"))
                .body("artifacts[0].facts.find { it.kind == 'ExitStatus' }.sources[0].line", equalTo(7))
                .body("artifacts[0].facts.find { it.kind == 'ExitStatus' }.sources[0].text",
                        equalTo("Process finished with exit code -1073740791 (0xC0000409)"));
        given().get("/api/bundles/999999999/facts").then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void publishesTheUploadLimits() {
        // the %test profile's values (application.properties)
        given().get("/api/limits").then().statusCode(200)
                .body("maxRequestBytes", equalTo(4 << 20))
                .body("maxExpandedBytes", equalTo(64 << 20))
                .body("maxFiles", equalTo(500))
                .body("maxDepth", equalTo(3))
                .body("maxRatio", equalTo(100));
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

}
