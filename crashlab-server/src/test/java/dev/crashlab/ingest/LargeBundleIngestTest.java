package dev.crashlab.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.testing.BesideInProcessTests;
import dev.crashlab.testing.ChildServer;
import dev.crashlab.testing.OwnThread;
import io.restassured.path.json.JsonPath;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 3: a server started with {@code -Xmx512m} (a real child process on PostgreSQL) ingests a zip
 * of 9,000 files of 22,000 short lines each (about 2 MB compressed, 800 MB expanded; generated here) and a 4 GB log
 * (generated while it is sent, never held in memory or written by the test), says on each bundle which budget it
 * reached, and keeps serving the bundle list meanwhile. Times and the child's peak heap and RSS are printed (a
 * measurement, not an assertion).
 *
 * <p>Secret redaction is on, as in production: one file of the zip carries a token, which must be counted as
 * redacted; the 4 GB log carries none, so its stored bytes still equal the sent ones.
 */
@BesideInProcessTests
class LargeBundleIngestTest {

    static final int FILES = 9_000;
    static final int LINES = 22_000;
    static final long BIG_LOG = 4_000_000_000L;

    @Test
    void hugeZipAndFourGigabyteLogAreIngestedUnder512MegabytesOfHeapWithTheBudgetSaid() throws Exception {
        Assumptions.assumeTrue(ChildServer.postgresAvailable(), "needs the test PostgreSQL (scripts/test-pg start sets TEST_PG_PORT)");
        long cpu0 = processCpuNanos();
        Path zip = Files.createTempFile(Files.createDirectories(Path.of("target")), "many-files", ".zip");
        try (ChildServer server = ChildServer.start("large", Map.of(
                "crashlab.upload.max-request-size", "5G",
                "crashlab.upload.max-expanded-size", "5G",
                "crashlab.upload.max-files", "10000",
                "crashlab.ingest.max-bytes", "200000000",
                "crashlab.redaction.enabled", "true"), childFlags())) {
            double childStarted = childCpu(server);
            long t0 = System.nanoTime();
            writeManyFilesZip(zip);
            System.out.printf(Locale.ROOT, "large ingest: zip of %d x %d lines: %d bytes compressed, made in %.1f s%n",
                    FILES, LINES, Files.size(zip), secs(t0));

            // the zip: upload, then read in the background under the budget
            long t1 = System.nanoTime();
            long many = server.api().contentType("application/zip").queryParam("name", "many-files.zip").body(zip.toFile())
                    .post("/api/bundles").then().statusCode(201).extract().jsonPath().getLong("id");
            double zipUpload = secs(t1);
            List<Double> zipListLatencies = new ArrayList<>();
            JsonPath manyBundle = awaitReady(server, many, zipListLatencies);
            double zipRead = secs(t1) - zipUpload;
            assertThat(manyBundle.getList("artifacts")).hasSize(FILES);
            assertThat(manyBundle.getMap("redactions", String.class, Integer.class)).as("redaction ran on the upload")
                    .isEqualTo(Map.of("huggingface-token", 1));
            assertThat(manyBundle.getList("budgetNotes", String.class)).as("budget said on the bundle")
                    .anySatisfy(n -> assertThat(n).startsWith("read the first ").contains("read budget of 200 MB"));
            server.api().get("/api/bundles/" + many + "/diagnosis").then().statusCode(200);
            double childZip = childCpu(server);

            // the 4 GB log: sent as it is made; the list is served while it is received and while it is read
            long t2 = System.nanoTime();
            CompletableFuture<Upload> big = OwnThread.supply("upload-4gb-log", () -> uploadGeneratedLog(server.base(), BIG_LOG));
            List<Double> listLatencies = new ArrayList<>();
            while (!big.isDone()) {
                listLatencies.add(timedList(server));
                Thread.sleep(1000);
            }
            Upload up = big.get();
            double bigUpload = secs(t2);
            assertThat(up.status).as("upload of the 4 GB log: " + up.body).isEqualTo(201);
            long bigId = JsonPath.from(up.body).getLong("id");
            JsonPath bigBundle = awaitReady(server, bigId, listLatencies);
            double bigRead = secs(t2) - bigUpload;
            assertThat(bigBundle.getLong("artifacts[0].size")).isEqualTo(BIG_LOG);
            assertThat(bigBundle.getString("artifacts[0].sha256")).as("stored bytes equal the sent bytes").isEqualTo(up.sha256);
            assertThat(bigBundle.getList("budgetNotes", String.class))
                    .anySatisfy(n -> assertThat(n).startsWith("read the first 200 MB of train.log (4.0 GB)"));
            server.api().get("/api/bundles/" + bigId + "/facts").then().statusCode(200)
                    .body("budgetNotes", org.hamcrest.Matchers.hasItem(org.hamcrest.Matchers.startsWith("read the first 200 MB of train.log")));
            server.api().get("/api/bundles/" + bigId + "/diagnosis").then().statusCode(200);
            assertThat(listLatencies).as("bundle-list requests served while the big upload was received and read").isNotEmpty();
            listLatencies.addAll(zipListLatencies);

            System.out.printf(Locale.ROOT, "large ingest: zip upload %.1f s, read+diagnosis %.1f s; 4 GB log upload %.1f s, "
                    + "read+diagnosis %.1f s; %d list requests meanwhile, slowest %.2f s; child (-Xmx512m): %s, "
                    + "peak RSS %d MiB%n", zipUpload, zipRead, bigUpload, bigRead, listLatencies.size(),
                    listLatencies.stream().mapToDouble(d -> d).max().orElse(0), server.heapSummary(), server.peakRssBytes() >> 20);
            double childAll = childCpu(server);
            System.out.printf(Locale.ROOT, "large ingest: CPU s: child start %.1f, zip %.1f, 4 GB log %.1f; this test's JVM %.1f%n",
                    childStarted, childZip - childStarted, childAll - childZip, (processCpuNanos() - cpu0) / 1e9);
        } finally {
            Files.deleteIfExists(zip);
        }
    }

    /**
     * {@code -Xmx512m}, and the flags of {@code -Dlarge.child.flags="..."} (space-separated), to profile the child:
     * e.g. {@code -XX:StartFlightRecording=filename=/tmp/child.jfr,settings=profile}, dumped meanwhile with
     * {@code jcmd <pid> JFR.dump}.
     */
    static List<String> childFlags() {
        List<String> flags = new ArrayList<>(List.of("-Xmx512m"));
        for (String f : System.getProperty("large.child.flags", "").split(" ")) {
            if (!f.isBlank()) {
                flags.add(f);
            }
        }
        return flags;
    }

    /** CPU time this JVM has used so far, all threads (what generating, hashing and sending the bodies costs). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU time the child server has used so far, in seconds. */
    static double childCpu(ChildServer server) {
        return ProcessHandle.of(server.pid()).flatMap(p -> p.info().totalCpuDuration()).map(d -> d.toMillis() / 1e3).orElse(-1.0);
    }

    static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** GET /api/bundles, timed; fails unless it is served (within a generous minute). */
    static double timedList(ChildServer server) {
        long t = System.nanoTime();
        server.api().config(io.restassured.config.RestAssuredConfig.config().httpClient(
                        io.restassured.config.HttpClientConfig.httpClientConfig().setParam("http.socket.timeout", 60_000)))
                .get("/api/bundles").then().statusCode(200);
        return secs(t);
    }

    static JsonPath awaitReady(ChildServer server, long id, List<Double> listLatencies) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        boolean servedWhileReading = false;
        while (System.nanoTime() < deadline) {
            JsonPath b = server.api().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
            String status = b.getString("status");
            if ("READY".equals(status)) {
                return b;
            }
            assertThat(status).as("bundle " + id + ": " + b.getString("readError")).isEqualTo("PROCESSING");
            if (!servedWhileReading) {
                listLatencies.add(timedList(server)); // served while this bundle is being read
                servedWhileReading = true;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("bundle " + id + " not READY within 10 minutes\n" + server.logTail());
    }

    /**
     * 9,000 files of 22,000 identical short lines (each file's first line its own; one file's last line holds a
     * Hugging Face token), written as they are made.
     */
    static void writeManyFilesZip(Path target) throws IOException {
        byte[] body = "ok.\n".repeat(LINES - 1).getBytes(StandardCharsets.US_ASCII);
        try (ZipOutputStream out = new ZipOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(target), 1 << 16))) {
            for (int i = 0; i < FILES; i++) {
                out.putNextEntry(new ZipEntry(String.format(Locale.ROOT, "logs/worker-%04d.log", i)));
                out.write(("worker " + i + " starting\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                if (i == FILES / 2) {
                    out.write(("HF_TOKEN=hf_" + java.util.UUID.randomUUID().toString().replace("-", "") + "\n")
                            .getBytes(StandardCharsets.US_ASCII));
                }
                out.closeEntry();
            }
        }
    }

    record Upload(int status, String body, String sha256) {}

    /**
     * Sends a multipart upload of a {@code size}-byte training log made on the fly (1 MiB at a time), hashing it on
     * the way; nothing but the current MiB is held.
     */
    static Upload uploadGeneratedLog(URI base, long size) {
        try {
            HttpURLConnection c = (HttpURLConnection) base.resolve("/api/bundles").toURL().openConnection();
            c.setDoOutput(true);
            c.setRequestMethod("POST");
            c.setReadTimeout((int) Duration.ofMinutes(15).toMillis());
            c.setRequestProperty("Authorization", "Bearer " + dev.crashlab.testing.TestAuth.ADMIN_TOKEN);
            String boundary = "large-ingest-boundary";
            c.setRequestProperty("Content-Type", "multipart/form-data; boundary=" + boundary);
            byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"train.log\"\r\n"
                    + "Content-Type: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
            c.setFixedLengthStreamingMode(head.length + size + tail.length);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (OutputStream out = c.getOutputStream()) {
                out.write(head);
                long sent = 0;
                LogBlocks blocks = new LogBlocks();
                for (long block = 0; sent < size; block++) {
                    byte[] chunk = blocks.block(block);
                    int n = (int) Math.min(chunk.length, size - sent);
                    out.write(chunk, 0, n);
                    sha.update(chunk, 0, n);
                    sent += n;
                }
                out.write(tail);
            }
            int status = c.getResponseCode();
            String body;
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            return new Upload(status, body, HexFormat.of().formatHex(sha.digest()));
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            return new Upload(-1, e.toString(), null);
        }
    }

    private static final byte[] LINE = "[rank0] epoch 3 step 00000000-00000 loss 0.3141 lr 0.0001 throughput 512.3 samples/s\n"
            .getBytes(StandardCharsets.US_ASCII);
    private static final int STEP_AT = 21; // where the 8-digit block and 5-digit line numbers start
    private static final byte[] OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
            .getBytes(StandardCharsets.US_ASCII);

    /**
     * The 4 GB log's 1 MiB blocks of training-log lines, numbered by block and line; block 3 ends with a CUDA
     * out-of-memory error. One buffer serves every block: the lines and their numbers within a block are written once,
     * and a block only puts its own number into each line (and block 3 its last line).
     */
    static final class LogBlocks {
        private final byte[] out = new byte[1 << 20];
        private final int lines = (out.length - OOM.length) / LINE.length;
        private final byte[] number = new byte[8];
        private static final java.lang.invoke.VarHandle EIGHT_BYTES =
                java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

        LogBlocks() {
            for (int i = 0; i < lines; i++) {
                int at = i * LINE.length;
                System.arraycopy(LINE, 0, out, at, LINE.length);
                digits(out, at + STEP_AT + 9, i, 5);
            }
        }

        /** Block {@code block}, in a buffer that the next call overwrites. */
        byte[] block(long block) {
            digits(number, 0, block, 8);
            long eightDigits = (long) EIGHT_BYTES.get(number, 0);
            for (int i = 0; i < lines; i++) {
                EIGHT_BYTES.set(out, i * LINE.length + STEP_AT, eightDigits);
            }
            byte[] rest = block == 3 ? OOM : new byte[0];
            System.arraycopy(rest, 0, out, lines * LINE.length, rest.length);
            java.util.Arrays.fill(out, lines * LINE.length + rest.length, out.length, (byte) '\n');
            return out;
        }
    }

    private static void digits(byte[] out, int at, long value, int width) {
        for (int d = width - 1; d >= 0; d--) {
            out[at + d] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }
}
