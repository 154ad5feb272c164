package dev.crashlab.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class MultipartStreamTest {

    static final String B = "----WebKitFormBoundaryx8ZkQ2mW1p";

    @TempDir
    Path dir;

    /** Builds a body as a browser would, part by part. */
    static final class Body {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Body file(String field, String fileName, byte[] content) {
            head("form-data; name=\"" + field + "\"; filename=\"" + fileName + "\"", "application/octet-stream");
            out.writeBytes(content);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
            return this;
        }

        Body field(String name, String value) {
            head("form-data; name=\"" + name + "\"", null);
            out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
            return this;
        }

        private void head(String disposition, String type) {
            String h = "--" + B + "\r\nContent-Disposition: " + disposition + "\r\n"
                    + (type == null ? "" : "Content-Type: " + type + "\r\n") + "\r\n";
            out.writeBytes(h.getBytes(StandardCharsets.UTF_8));
        }

        byte[] end() {
            out.writeBytes(("--" + B + "--\r\n").getBytes(StandardCharsets.UTF_8));
            return out.toByteArray();
        }
    }

    /** Hands out the body in chunks of random sizes, as a network does (seeded: failures name the seed). */
    static InputStream chunked(byte[] body, long seed) {
        Random random = new Random(seed);
        return new InputStream() {
            int pos;

            @Override
            public int read() {
                return pos < body.length ? body[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= body.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, body.length - pos), 1 + random.nextInt(random.nextBoolean() ? 7 : 70_000));
                System.arraycopy(body, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }

    static Stream<Long> seeds() {
        return Stream.iterate(1L, s -> s + 1).limit(40);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void readsFilesAndFieldsWhateverTheChunking(long seed) throws Exception {
        Random random = new Random(seed);
        byte[] big = new byte[300_000];
        random.nextBytes(big);
        // content that almost contains the delimiter, to tempt a sloppy matcher
        byte[] tricky = ("line\r\n--" + B.substring(0, B.length() - 1) + "\r\n--" + "\r\n\r\n--").getBytes(StandardCharsets.UTF_8);
        byte[] body = new Body()
                .field("name", "run 42 — 日本")
                .file("file", "crash.log", tricky)
                .file("file", "dump.bin", big)
                .file("file", "", new byte[0])
                .field("notes", "")
                .end();

        MultipartStream.Parts parts = MultipartStream.read(chunked(body, seed), B, Long.MAX_VALUE, dir);

        assertThat(parts.fields()).containsEntry("name", "run 42 — 日本").containsEntry("notes", "");
        assertThat(parts.files()).extracting(MultipartStream.FilePart::fileName).containsExactly("crash.log", "dump.bin", "");
        assertThat(parts.files().get(0).file()).hasBinaryContent(tricky);
        assertThat(parts.files().get(1).file()).hasBinaryContent(big);
        assertThat(parts.files().get(1).size()).isEqualTo(big.length);
        assertThat(parts.files().get(1).sha256()).isEqualTo(sha256(big));
        assertThat(parts.files().get(2).size()).isZero();
    }

    @Test
    void skipsAPreambleAndKeepsUtf8FileNames() throws Exception {
        byte[] rest = new Body().file("file", "journal d'erreur 日本.log", "x".getBytes(StandardCharsets.UTF_8)).end();
        byte[] body = concat("This is the preamble.\r\n".getBytes(StandardCharsets.UTF_8), rest);
        MultipartStream.Parts parts = MultipartStream.read(new ByteArrayInputStream(body), B, Long.MAX_VALUE, dir);
        assertThat(parts.files()).singleElement().extracting(MultipartStream.FilePart::fileName)
                .isEqualTo("journal d'erreur 日本.log");
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 10, 100, 1000}) // cutting only the final CRLF leaves a complete body
    void refusesATruncatedBodyAndLeavesNoFiles(int cut) throws Exception {
        byte[] body = new Body().file("file", "a.bin", new byte[5000]).end();
        byte[] truncated = java.util.Arrays.copyOf(body, body.length - cut);
        assertThatThrownBy(() -> MultipartStream.read(new ByteArrayInputStream(truncated), B, Long.MAX_VALUE, dir))
                .isInstanceOf(MultipartStream.MalformedException.class);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void stopsReadingAtTheLimitAndLeavesNoFiles() throws Exception {
        byte[] body = new Body().file("file", "a.bin", new byte[200_000]).end();
        assertThatThrownBy(() -> MultipartStream.read(new ByteArrayInputStream(body), B, 100_000, dir))
                .isInstanceOf(MultipartStream.TooLargeException.class);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void refusesAnOversizedFieldAndGarbage() {
        byte[] longField = new Body().field("notes", "n".repeat(MultipartStream.MAX_FIELD_BYTES + 1)).end();
        assertThatThrownBy(() -> MultipartStream.read(new ByteArrayInputStream(longField), B, Long.MAX_VALUE, dir))
                .isInstanceOf(MultipartStream.MalformedException.class).hasMessageContaining("longer than");
        byte[] garbage = "not multipart at all".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> MultipartStream.read(new ByteArrayInputStream(garbage), B, Long.MAX_VALUE, dir))
                .isInstanceOf(MultipartStream.MalformedException.class);
    }

    @Test
    void findsTheBoundaryInTheContentType() {
        assertThat(MultipartStream.boundary("multipart/form-data; boundary=" + B)).contains(B);
        assertThat(MultipartStream.boundary("multipart/form-data; charset=utf-8; boundary=\"a b;c\"")).contains("a b;c");
        assertThat(MultipartStream.boundary("multipart/form-data")).isEmpty();
        assertThat(MultipartStream.boundary(null)).isEmpty();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

}
