package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.crashlab.bundle.BundleService;
import dev.crashlab.testing.BrowserMultipart;
import dev.crashlab.testing.StoreState;
import dev.crashlab.testing.Zips;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad upload gets a clear 4xx problem, leaves no rows, blobs or scratch files, and the
 * service goes on serving. Test limits (application.properties, %test): 4 MiB per request, 64 MiB expanded.
 */
@QuarkusTest
@Tag("persistence")
class BadUploadTest {

    @Inject
    BundleService service;

    StoreState before;

    @BeforeEach
    void snapshot() {
        before = StoreState.of(service);
    }

    @AfterEach
    void nothingLeftBehindAndStillServing() {
        assertThat(StoreState.of(service)).isEqualTo(before);
        given().multiPart("file", "after.log", ("still serving " + System.nanoTime()).getBytes(StandardCharsets.UTF_8), "text/plain")
                .post("/api/bundles").then().statusCode(201);
    }

    static Stream<Arguments> badUploads() {
        return Stream.of(
                bad("zip-slip entry", 422, "`../../etc/passwd`",
                        () -> zipPart(Zips.zip().text("ok.log", "fine\n").text("../../etc/passwd", "root::0:0\n").build())),
                bad("absolute path entry", 422, "`/etc/passwd`",
                        () -> zipPart(Zips.zip().text("/etc/passwd", "root::0:0\n").build())),
                bad("symlink entry", 422, "`link`",
                        () -> zipPart(Zips.zip().text("a.log", "x\n").symlink("link", "/etc/shadow").build())),
                bad("tar symlink entry", 422, "`evil`", () -> given().multiPart("file", "b.tar.gz", tarWithSymlink(), "application/gzip")),
                bad("high-ratio zip bomb", 422, "zip bomb",
                        () -> zipPart(Zips.zeros("zeros.bin", 200L << 20))),
                bad("nested zip bomb", 422, "zip bomb",
                        () -> zipPart(Zips.zip().bytes("inner.zip", Zips.zeros("zeros.bin", 200L << 20)).build())),
                bad("truncated archive", 422, "truncated",
                        () -> zipPart(Arrays.copyOf(bigZip(), bigZip().length / 2))),
                bad("0-byte archive", 400, "empty",
                        () -> given().multiPart("file", "empty.zip", new byte[0], "application/zip")),
                bad("upload over the size limit", 413, "limit",
                        () -> given().body(BrowserMultipart.fileBody("big.bin", randomBytes(5 << 20)))
                                .contentType(BrowserMultipart.CONTENT_TYPE)),
                bad("truncated multipart body", 400, "closing boundary", () -> {
                    byte[] body = BrowserMultipart.fileBody("a.log", "hello\n".getBytes(StandardCharsets.UTF_8));
                    return given().body(Arrays.copyOf(body, body.length - 20)).contentType(BrowserMultipart.CONTENT_TYPE);
                }),
                bad("multipart without a boundary", 400, "boundary",
                        () -> given().body("x".getBytes(StandardCharsets.UTF_8)).contentType("multipart/form-data")),
                bad("raw body over the size limit", 413, "limit",
                        () -> given().body(randomBytes(5 << 20)).contentType("application/zip")),
                bad("non-archive binary as the body", 415, "not a zip, tar or gzip archive",
                        () -> given().body(randomBytes(4096)).contentType("application/octet-stream")),
                bad("binary named .zip", 415, "`fake.zip`",
                        () -> given().multiPart("file", "fake.zip", randomBytes(4096), "application/zip")),
                bad("file name with control characters", 400, "name",
                        () -> given().body(BrowserMultipart.fileBody("evil\u0007name.log", "x\n".getBytes(StandardCharsets.UTF_8)))
                                .contentType(BrowserMultipart.CONTENT_TYPE)),
                bad("file name with a bidi override", 400, "name",
                        () -> given().body(BrowserMultipart.fileBody("invoice\u202egpj.exe", "x\n".getBytes(StandardCharsets.UTF_8)))
                                .contentType(BrowserMultipart.CONTENT_TYPE)),
                bad("notes longer than 4000 characters", 400, "at most 4000",
                        () -> given().multiPart("file", "a.log", "x\n".getBytes(StandardCharsets.UTF_8), "text/plain")
                                .multiPart("notes", "n".repeat(4001))),
                bad("no files at all", 400, "no files",
                        () -> given().multiPart("name", "nothing")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badUploads")
    void isRefusedCleanly(String what, int status, String detailMentions, Supplier<RequestSpecification> request) {
        request.get().when().post("/api/bundles")
                .then().statusCode(status)
                .contentType("application/problem+json")
                .body("status", equalTo(status))
                .body("detail", containsString(detailMentions))
                .body("title", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void chunkedMultipartOverTheLimitIsCutOffByTheHttpLayer() throws InterruptedException {
        // REST Assured streams multipart bodies chunked, without a Content-Length: nothing can refuse them
        // up front, and the HTTP layer's own limit (the same number) cuts them off with a bare 413.
        // The read that the cut interrupts fails after that answer: it is logged in one line, with no second
        // answer attempted (that was an ERROR with a stack trace: "Response has already been written").
        List<java.util.logging.LogRecord> records = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.addHandler(capture);
        try {
            given().multiPart("file", "big.bin", randomBytes(5 << 20), "application/octet-stream")
                    .when().post("/api/bundles")
                    .then().statusCode(413);
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (records.stream().noneMatch(r -> RequestSizeLimit.class.getName().equals(r.getLoggerName()))) {
                assertThat(System.nanoTime()).as("no line saying the upload failed after its 413; got %s",
                        records.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()).toList()).isLessThan(deadline);
                Thread.sleep(50);
            }
            synchronized (records) {
                assertThat(records).filteredOn(r -> r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue())
                        .as("errors logged for an upload refused with 413").isEmpty();
            }
        } finally {
            root.removeHandler(capture);
        }
    }

    private static Arguments bad(String what, int status, String mention, Supplier<RequestSpecification> request) {
        return Arguments.of(what, status, mention, request);
    }

    private static RequestSpecification zipPart(byte[] zip) {
        return given().multiPart("file", "bundle.zip", zip, "application/zip");
    }

    private static byte[] bigZip() {
        Random random = new Random(42);
        Zips zips = Zips.zip();
        for (int i = 0; i < 8; i++) {
            byte[] data = new byte[64 << 10];
            random.nextBytes(data);
            zips.bytes("part-" + i + ".bin", data);
        }
        return zips.build();
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        b[0] = 0x13; // not the first byte of any archive signature
        return b;
    }

    private static byte[] tarWithSymlink() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(buf))) {
            byte[] log = "hello\n".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry file = new TarArchiveEntry("a.log");
            file.setSize(log.length);
            tar.putArchiveEntry(file);
            tar.write(log);
            tar.closeArchiveEntry();
            TarArchiveEntry link = new TarArchiveEntry("evil", TarArchiveEntry.LF_SYMLINK);
            link.setLinkName("/etc/shadow");
            tar.putArchiveEntry(link);
            tar.closeArchiveEntry();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return buf.toByteArray();
    }
}
