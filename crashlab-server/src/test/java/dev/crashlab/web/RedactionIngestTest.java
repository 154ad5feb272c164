package dev.crashlab.web;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.bundle.BundleService;
import dev.crashlab.bundle.SecretRedactorTest;
import dev.crashlab.bundle.SecretRedactorTest.Seed;
import dev.crashlab.testing.Zips;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A bundle seeded with secrets of every kind stores none of them: not in the blobs, not in any database
 * row, not in the past-crash index; and the bundle says how many of each kind were removed.
 */
@QuarkusTest
@Tag("persistence")
class RedactionIngestTest {

    @Inject
    BundleService service;

    @Inject
    dev.crashlab.config.CrashLabConfig config;

    @Inject
    AgroalDataSource db;

    @Test
    void aBundleFullOfSecretsKeepsNoneOfThem() throws Exception {
        List<Seed> seeds = new ArrayList<>(SecretRedactorTest.seeds());
        Map<String, Integer> expected = new TreeMap<>();
        seeds.forEach(s -> expected.merge(s.kind(), 1, Integer::sum));

        // a console log whose error lines carry the secrets (error lines are what past-crash search indexes)
        String marker = "zqmarker" + SecretRedactorTest.random("abcdefghijklmnopqrstuvwxyz", 12);
        StringBuilder log = new StringBuilder("""
                Traceback (most recent call last):
                  File "/home/<user>/train.py", line 42, in <module>
                    model.fit(x, y)
                RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (%s)
                """.formatted(marker));
        for (Seed s : seeds) {
            log.append("ERROR: ").append(s.line()).append('\n');
        }
        // a multi-line private key, as an id_rsa file
        String keyBody = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 64);
        String pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + keyBody + "\n" + keyBody.toLowerCase() + "\n-----END OPENSSH PRIVATE KEY-----\n";
        seeds.add(new Seed("private-key", keyBody, ""));
        seeds.add(new Seed("private-key", keyBody.toLowerCase(), ""));
        expected.merge("private-key", 1, Integer::sum);
        // a Windows `set` listing in UTF-16LE with its byte order mark
        String hf = "hf_" + SecretRedactorTest.random(SecretRedactorTest.ALNUM, 34);
        seeds.add(new Seed("huggingface-token", hf, ""));
        expected.merge("huggingface-token", 1, Integer::sum);
        byte[] set = concat(new byte[] {(byte) 0xFF, (byte) 0xFE},
                ("COMPUTERNAME=<host>\r\nHUGGINGFACE_HUB_TOKEN=" + hf + "\r\nPATH=C:\\Windows\r\n").getBytes(StandardCharsets.UTF_16LE));
        // the notes typed into the upload form
        String notePassword = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 18);
        seeds.add(new Seed("password", notePassword, ""));
        expected.merge("password", 1, Integer::sum);
        // a binary file is stored as it came (redaction reads text only)
        byte[] core = new byte[512];
        byte[] inside = "BINARY_ONLY_MARKER".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(inside, 0, core, 100, inside.length);
        core[0] = 0x7f;
        core[1] = 'E';
        core[2] = 'L';
        core[3] = 'F';

        byte[] zip = Zips.zip()
                .text("crash.log", log.toString())
                .text("env.txt", String.join("\n", seeds.stream().map(Seed::line).filter(l -> !l.isEmpty()).toList()) + "\n")
                .text("keys/id_rsa", pem)
                .bytes("set-utf16.txt", set)
                .bytes("core.bin", core)
                .build();
        // every seed line is in crash.log and in env.txt: twice each
        seeds.stream().filter(s -> !s.line().isEmpty()).forEach(s -> expected.merge(s.kind(), 1, Integer::sum));

        JsonPath created = given().multiPart("file", "secrets.zip", zip, "application/zip")
                .multiPart("notes", "tried again with password: " + notePassword)
                .post("/api/bundles").then().statusCode(201).extract().jsonPath();
        long id = created.getLong("id");
        assertThat(created.getMap("redactions", String.class, Integer.class)).isEqualTo(expected);
        JsonPath shown = given().get("/api/bundles/" + id).then().statusCode(200).extract().jsonPath();
        assertThat(shown.getMap("redactions", String.class, Integer.class)).isEqualTo(expected);
        assertThat(shown.getString("notes")).contains("<redacted:password>").doesNotContain(notePassword);

        // blobs: every stored file, read raw, in the encodings the artifacts use
        List<Path> blobFiles;
        try (Stream<Path> files = Files.walk(config.dataDir().toAbsolutePath().normalize().resolve("blobs"))) {
            blobFiles = files.filter(Files::isRegularFile).toList();
        }
        assertThat(blobFiles).isNotEmpty();
        for (Path blob : blobFiles) {
            byte[] bytes = Files.readAllBytes(blob);
            String asText = new String(bytes, StandardCharsets.ISO_8859_1);
            String asUtf16 = new String(bytes, StandardCharsets.UTF_16LE);
            for (Seed s : seeds) {
                assertThat(asText).as("blob %s holds %s", blob.getFileName(), s.kind()).doesNotContain(s.value());
                assertThat(asUtf16).as("blob %s holds %s (UTF-16)", blob.getFileName(), s.kind()).doesNotContain(s.value());
            }
        }
        // the binary is byte for byte what was sent
        int coreId = created.getInt("artifacts.find { it.path == 'core.bin' }.id");
        byte[] served = given().get("/api/bundles/" + id + "/artifacts/" + coreId + "/content").then().statusCode(200)
                .extract().asByteArray();
        assertThat(served).isEqualTo(core);

        // database: every column of every row of every table
        // (the diagnosis, with its evidence and the past-crash signature, is computed at upload)
        dev.crashlab.testing.Ready.await(id);
        given().get("/api/bundles/" + id + "/diagnosis").then().statusCode(200);
        int rows = 0;
        try (Connection c = db.getConnection()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet t = c.getMetaData().getTables(null, c.getSchema(), "%", new String[] {"TABLE"})) {
                while (t.next()) {
                    tables.add(t.getString("TABLE_NAME"));
                }
            }
            assertThat(tables).anyMatch(t -> t.equalsIgnoreCase("artifact")).anyMatch(t -> t.equalsIgnoreCase("bundle_redaction"));
            for (String table : tables) {
                try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("select * from \"" + table + "\"")) {
                    int n = r.getMetaData().getColumnCount();
                    while (r.next()) {
                        rows++;
                        for (int i = 1; i <= n; i++) {
                            Object v = r.getObject(i);
                            String text = v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(v);
                            for (Seed s : seeds) {
                                assertThat(text).as("%s.%s holds %s", table, r.getMetaData().getColumnName(i), s.kind())
                                        .doesNotContain(s.value());
                            }
                        }
                    }
                }
            }
        }
        assertThat(rows).isGreaterThan(5);

        // the past-crash index: it holds this bundle's error lines (the marker is found), but none of the secrets
        given().queryParam("q", marker).get("/api/bundles/search").then().statusCode(200)
                .body("hits.bundleId", org.hamcrest.Matchers.hasItem((int) id));
        for (Seed s : seeds) {
            List<Integer> hits = given().queryParam("q", s.value()).get("/api/bundles/search").then().statusCode(200)
                    .extract().jsonPath().getList("hits.bundleId", Integer.class);
            assertThat(hits).as("search for the %s finds the bundle", s.kind()).doesNotContain((int) id);
        }
        given().delete("/api/bundles/" + id).then().statusCode(204);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
