package dev.crashlab.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.OwnThread;
import io.restassured.path.json.JsonPath;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 2: a real server process on PostgreSQL is killed with {@code kill -9} during an upload,
 * during the reading of an accepted bundle and during its diagnosis, then started again. Afterwards nothing is
 * half-stored (no bundle without its files, no stray upload or blob files, every blob named by an artifact and
 * every artifact's blob present), every accepted (201) bundle reaches {@code READY}, and every file reads back byte
 * for byte.
 *
 * <p>The moments are made certain, not timed: the child runs with {@code crashlab.ingest.test-pause} (off by
 * default), so reading waits after each file and before the diagnosis, and the test kills when the bundle's
 * progress says it is there; the upload is killed while the server is still receiving its body (its scratch file
 * is on disk and growing).
 */
class KillRecoveryTest {

    static final int READ_FILES = 8;

    @Test
    void killedDuringUploadReadingAndDiagnosisLosesNothingAndStoresNothingHalfWay() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (scripts/test-pg start sets TEST_PG_PORT)");
        String nonce = Long.toHexString(System.nanoTime());
        Map<String, Map<String, String>> expected = new LinkedHashMap<>(); // bundle id -> path -> sha256
        try (ChildServer server = ChildServer.start("kill", Map.of(
                "crashlab.ingest.test-pause", "1s",
                "crashlab.upload.max-request-size", "256M",
                "crashlab.upload.max-expanded-size", "256M"), ChildServer.shortLived("-Xmx512m"))) {

            // life 1: a bundle is accepted and being read, while another upload is still being received
            Map<String, byte[]> readFiles = new LinkedHashMap<>();
            for (int i = 0; i < READ_FILES; i++) {
                readFiles.put("logs/rank-" + i + ".log", consoleLog(nonce + "-r" + i, 4000));
            }
            long reading = uploadZip(server, "reading.zip", readFiles);
            expected.put(Long.toString(reading), hashes(readFiles));
            CompletableFuture<Integer> halfUpload = OwnThread.supply("slow-upload", () -> slowUpload(server.base(), 200L << 20));
            JsonPath midRead = awaitBundle(server, reading, b -> b.getInt("progress.artifactsRead") > 0);
            awaitFile(server.dataDir().resolve("tmp"), p -> p.getFileName().toString().startsWith("receive-"), 1 << 20);
            server.killHard();
            assertThat(midRead.getString("status")).isEqualTo("PROCESSING");
            assertThat(midRead.getInt("progress.artifactsRead")).as("killed during reading").isBetween(1, READ_FILES - 1);
            assertThat(halfUpload.handle((status, e) -> status == null ? -1 : status).get())
                    .as("the upload killed mid-way was not accepted").isNotEqualTo(201);

            // life 2: the first bundle resumes; a second is accepted and killed while it is being diagnosed
            server.start();
            Map<String, byte[]> diagFiles = Map.of("train.log", consoleLog(nonce + "-d", 50));
            long diagnosing = server.api().multiPart("file", "train.log", diagFiles.get("train.log"), "text/plain")
                    .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
            expected.put(Long.toString(diagnosing), hashes(diagFiles));
            // read and stored (reader version set) but not yet READY: the diagnosis step
            JsonPath midDiagnosis = awaitBundle(server, diagnosing, b -> b.get("progress.readerVersion") != null);
            server.killHard();
            assertThat(midDiagnosis.getString("status")).as("killed during the diagnosis").isEqualTo("PROCESSING");

            // life 3: everything accepted reaches READY; nothing else is there
            server.start();
            for (String id : expected.keySet()) {
                awaitBundle(server, Long.parseLong(id), b -> "READY".equals(b.getString("status")));
            }
            JsonPath list = server.api().get("/api/bundles?size=100").then().statusCode(200).extract().jsonPath();
            assertThat(list.getList("items.id", Long.class)).as("only the accepted bundles are stored")
                    .containsExactlyInAnyOrderElementsOf(expected.keySet().stream().map(Long::valueOf).toList());

            Set<String> named = new HashSet<>();
            for (var e : expected.entrySet()) {
                JsonPath b = server.api().get("/api/bundles/" + e.getKey()).then().statusCode(200).extract().jsonPath();
                assertThat(b.getString("status")).isEqualTo("READY");
                assertThat(b.getString("readError")).isNull();
                Map<String, String> stored = new HashMap<>();
                List<Map<String, Object>> artifacts = b.getList("artifacts");
                for (Map<String, Object> a : artifacts) {
                    stored.put((String) a.get("path"), (String) a.get("sha256"));
                    byte[] back = server.api().get("/api/bundles/" + e.getKey() + "/artifacts/" + a.get("id") + "/content")
                            .then().statusCode(200).extract().asByteArray();
                    assertThat(sha256(back)).as("bytes of " + a.get("path")).isEqualTo(e.getValue().get(a.get("path")));
                    assertThat(a.get("parseStatus")).as("parse status of " + a.get("path")).isNotEqualTo("PENDING");
                }
                assertThat(stored).as("artifacts of bundle " + e.getKey()).isEqualTo(e.getValue());
                named.addAll(stored.values());
                server.api().get("/api/bundles/" + e.getKey() + "/facts").then().statusCode(200)
                        .body("artifacts.size()", org.hamcrest.Matchers.equalTo(e.getValue().size()));
                server.api().get("/api/bundles/" + e.getKey() + "/diagnosis").then().statusCode(200);
            }
            // the blob store holds exactly the blobs the artifacts name; no stray upload or half-written files
            Path blobs = server.dataDir().resolve("blobs");
            try (Stream<Path> walk = Files.walk(blobs)) {
                List<String> files = walk.filter(Files::isRegularFile).map(p -> blobs.relativize(p).toString()).toList();
                // besides the blobs: the deployment's marker (issue 24), which names no artifact
                assertThat(files.stream().filter(f -> !f.startsWith(".incoming") && !f.equals("DEPLOYMENT")).map(f -> Path.of(f).getFileName().toString()))
                        .containsExactlyInAnyOrderElementsOf(named);
                assertThat(files).as("half-written blobs").noneMatch(f -> f.startsWith(".incoming"));
            }
            try (Stream<Path> tmp = Files.list(server.dataDir().resolve("tmp"))) {
                assertThat(tmp.map(p -> p.getFileName().toString())).as("upload scratch left behind")
                        .noneMatch(n -> n.startsWith("receive-") || n.startsWith("staging-"));
            }
        }
    }

    /** A console log with realistic lines and a CUDA out-of-memory error; {@code nonce} makes its bytes this run's own. */
    static byte[] consoleLog(String nonce, int steps) {
        StringBuilder sb = new StringBuilder();
        sb.append("run ").append(nonce).append('\n');
        sb.append("NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4\n");
        for (int i = 0; i < steps; i++) {
            sb.append("[2026-11-26 10:00:").append(i % 60).append("] epoch 1 step ").append(i).append(" loss ")
                    .append(1.0 / (i + 1)).append(" lr 0.001\n");
        }
        sb.append("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity)\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static long uploadZip(ChildServer server, String name, Map<String, byte[]> files) throws IOException {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(zip)) {
            for (var f : files.entrySet()) {
                out.putNextEntry(new ZipEntry(f.getKey()));
                out.write(f.getValue());
                out.closeEntry();
            }
        }
        return server.api().contentType("application/zip").queryParam("name", name).body(zip.toByteArray())
                .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
    }

    static Map<String, String> hashes(Map<String, byte[]> files) {
        Map<String, String> out = new HashMap<>();
        files.forEach((k, v) -> out.put(k, sha256(v)));
        return out;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends a multipart upload of {@code size} bytes slowly (1 MiB, then a pause), so that it is still being received
     * when the server is killed; returns the HTTP status, or -1 when the connection broke.
     */
    static int slowUpload(URI base, long size) {
        try {
            HttpURLConnection c = (HttpURLConnection) base.resolve("/api/bundles").toURL().openConnection();
            c.setDoOutput(true);
            c.setRequestMethod("POST");
            c.setRequestProperty("Authorization", "Bearer " + dev.crashlab.testing.TestAuth.ADMIN_TOKEN);
            String boundary = "kill-test-boundary";
            c.setRequestProperty("Content-Type", "multipart/form-data; boundary=" + boundary);
            byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"half.log\"\r\n"
                    + "Content-Type: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
            c.setFixedLengthStreamingMode(head.length + size + tail.length);
            byte[] chunk = "x".repeat(1023).concat("\n").repeat(1024).getBytes(StandardCharsets.US_ASCII);
            try (OutputStream out = c.getOutputStream()) {
                out.write(head);
                for (long sent = 0; sent < size; sent += chunk.length) {
                    out.write(chunk, 0, (int) Math.min(chunk.length, size - sent));
                    out.flush();
                    Thread.sleep(100);
                }
                out.write(tail);
            }
            try (InputStream in = c.getInputStream()) {
                in.readAllBytes();
            }
            return c.getResponseCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static JsonPath awaitBundle(ChildServer server, long id, Predicate<JsonPath> until) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        JsonPath last = null;
        while (System.nanoTime() < deadline) {
            last = server.api().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
            if (until.test(last)) {
                return last;
            }
            if ("FAILED".equals(last.getString("status"))) {
                throw new AssertionError("bundle " + id + " failed: " + last.getString("readError"));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("bundle " + id + " never got there; last seen: " + (last == null ? null : last.prettify())
                + "\n" + server.logTail());
    }

    static void awaitFile(Path dir, Predicate<Path> which, long minBytes) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    List<Path> found = new ArrayList<>(walk.filter(Files::isRegularFile)
                            .filter(p -> which.test(dir.relativize(p).getName(0))).toList());
                    for (Path p : found) {
                        try {
                            if (Files.size(p) >= minBytes) {
                                return;
                            }
                        } catch (IOException gone) {
                            // removed meanwhile
                        }
                    }
                } catch (java.io.UncheckedIOException gone) {
                    // a file vanished during the walk
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no upload being received under " + dir);
    }
}
