package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Facts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kb check}, {@code diagnose} and {@code eval}, driven in-process on the test articles. */
class DiagnoseCommandTest {

    static final String KB = "src/test/resources/kb-test/valid";
    static final String COMPAT = "src/test/resources/compat-test";

    @TempDir
    Path dir;

    Path zlibBundle(Path root) throws Exception {
        Files.createDirectories(root);
        Files.writeString(root.resolve("console.log"), """
                2023-03-01 10:00:01.123: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library cudnn64_8.dll
                Could not locate zlibwapi.dll. Please make sure it is in your library path!
                Process finished with exit code -1073740791 (0xC0000409)
                """);
        return root;
    }

    @Test
    void diagnosePrintsRankedCausesWithEvidence() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("diagnose", zlibBundle(dir.resolve("b")).toString(), "--kb", KB, "--compat", COMPAT);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("1\\. zlib-missing\\s+\\d+\\.\\d%")
                .contains("+ the log says: Could not locate zlibwapi.dll", "[console.log:2]");
    }

    @Test
    void diagnoseJsonHasTheIssuesShape() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("diagnose", "--json", zlibBundle(dir.resolve("b")).toString(), "--kb", KB, "--compat", COMPAT);
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode json = Facts.json().readTree(r.out());
        JsonNode top = json.get("hypotheses").get(0);
        assertThat(top.get("id").asText()).isEqualTo("zlib-missing");
        assertThat(top.get("confidence").asDouble()).isBetween(0.0, 1.0);
        assertThat(top.get("evidence")).anySatisfy(e -> {
            assertThat(e.get("source").get("artifact").asText()).isEqualTo("console.log");
            assertThat(e.get("source").get("line").asInt()).isEqualTo(2);
        });
        assertThat(json.get("ask").isArray()).isTrue();
    }

    @Test
    void kbCheckPrintsFileAndLineAndFails() {
        CrashLabCliTest.Run bad = CrashLabCliTest.run("kb", "check", "src/test/resources/kb-test/broken");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.out()).contains("wrong-name.md:7: unknown fact kind 'NoSuchFact'");
        CrashLabCliTest.Run good = CrashLabCliTest.run("kb", "check", KB);
        assertThat(good.status()).as(good.out()).isZero();
        assertThat(good.out()).contains("3 article(s) valid, 0 problem(s)");
    }

    @Test
    void evalCountsPrimaryLabelsAndIgnoresMetaJsonAsInput() throws Exception {
        Path cases = dir.resolve("cases");
        zlibBundle(cases.resolve("c1"));
        // the label text would point the baseline at the answer if meta.json were read as input
        Files.writeString(cases.resolve("c1/meta.json"), "{\"labels\":[\"zlib-missing\"],\"difficulty\":\"easy\"}");
        Files.createDirectories(cases.resolve("c2"));
        Files.writeString(cases.resolve("c2/console.log"), "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        Files.writeString(cases.resolve("c2/meta.json"), "{\"labels\":[\"old-driver\"],\"difficulty\":\"very-hard\"}");
        CrashLabCliTest.Run r = CrashLabCliTest.run("eval", cases.toString(), "--baseline", "bm25", "--kb", KB, "--compat", COMPAT);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("c1\\s+easy\\s+zlib-missing\\s+top1")
                .containsPattern("c2\\s+very-hard\\s+old-driver\\s+(miss|top3)")
                .contains("ours: top1 1/2 ", "without very-hard: top1 1/1 (100%) top3 1/1 (100%)")
                .contains("bm25: top1 ");
    }
}
