package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.Facts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kb check}, {@code diagnose} and {@code eval}, driven in-process on the test articles. */
class DiagnoseCommandTest {

    static final String KB = "crashlab-core/src/test/resources/kb-test/valid";
    static final String COMPAT = "crashlab-core/src/test/resources/compat-test";

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
        assertThat(r.out()).startsWith("verdict: diagnosed").containsPattern("1\\. zlib-missing\\s+(strong|moderate) ")
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
        assertThat(json.get("verdict").asText()).isEqualTo("diagnosed");
        assertThat(top.get("strength").asText()).isIn("strong", "moderate");
        assertThat(top.get("evidence")).anySatisfy(e -> {
            assertThat(e.get("source").get("artifact").asText()).isEqualTo("console.log");
            assertThat(e.get("source").get("line").asInt()).isEqualTo(2);
        });
        assertThat(json.get("ask").isArray()).isTrue();
    }

    @Test
    void kbCheckPrintsFileAndLineAndFails() {
        CrashLabCliTest.Run bad = CrashLabCliTest.run("kb", "check", "crashlab-core/src/test/resources/kb-test/broken");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.out()).contains("wrong-name.md:7: unknown fact kind 'NoSuchFact'",
                "no-source.md:6: matcher 'insufficient' is a discriminating rule (specific: true) but names no public source");
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
        assertThat(r.out()).containsPattern("c1\\s+easy\\s+zlib-missing\\s+(diagnosed|weak)\\s+top1")
                .containsPattern("c2\\s+very-hard\\s+old-driver\\s+\\S+\\s+(miss|top3)")
                .containsPattern("reliability \\(all 2 cases\\)")
                .containsPattern("\\n  diagnosed +\\d+ ").containsPattern("\\n  weak +\\d+ ").containsPattern("\\n  no-evidence +\\d+ ")
                .contains("ours: top1 1/2 ", "without very-hard: top1 1/1 (100%) top3 1/1 (100%)")
                .contains("bm25: top1 ");
    }

    @Test
    void diagnoseOfACaseFolderLeavesItsLabelledMetadataOut() throws Exception {
        Path c = zlibBundle(dir.resolve("case"));
        // a case's answer, written with the words of another cause so that reading it would show as evidence
        Files.writeString(c.resolve("meta.json"), "{\"labels\":[\"old-driver\"],\"signals\":[\"cudaErrorInsufficientDriver\"]}");
        CrashLabCliTest.Run r = CrashLabCliTest.run("diagnose", "--json", c.toString(), "--kb", KB, "--compat", COMPAT);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("left out meta.json");
        assertThat(r.out()).doesNotContain("meta.json");
        // a meta.json that is no case metadata is an ordinary file of the bundle and is read
        Files.writeString(c.resolve("meta.json"), "{\"note\":\"cudaErrorInsufficientDriver\"}");
        CrashLabCliTest.Run plain = CrashLabCliTest.run("diagnose", "--json", c.toString(), "--kb", KB, "--compat", COMPAT);
        assertThat(plain.err()).doesNotContain("left out meta.json");
        assertThat(plain.out()).as("the same words are cited from an ordinary meta.json").contains("meta.json");
    }

    /** A real PNG (a small rendered screenshot-like image), written here rather than checked in. */
    static byte[] png() throws Exception {
        java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(64, 32, java.awt.image.BufferedImage.TYPE_INT_RGB);
        for (int x = 0; x < 64; x++) {
            for (int y = 0; y < 32; y++) {
                img.setRGB(x, y, (x * 4) << 16 | (y * 8) << 8 | 0x40);
            }
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertThat(javax.imageio.ImageIO.write(img, "png", out)).isTrue();
        return out.toByteArray();
    }

    /** Random bytes from a fixed seed (the same every run). */
    static byte[] randomBinary() {
        byte[] b = new byte[4096];
        new java.util.Random(11).nextBytes(b);
        return b;
    }

    @Test
    void nothingReadableGivesTheNoEvidenceVerdict() throws Exception {
        // the shipped KB: its articles carry context matchers (a Windows OS, a WDDM card) that must not count as evidence
        java.util.Map<String, byte[]> inputs = new java.util.LinkedHashMap<>();
        inputs.put("console.log", new byte[0]); // a truly empty log (0 bytes)
        inputs.put("blank.log", "\n\n   \n\t\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        inputs.put("screenshot.png", png());
        inputs.put("dump.bin", randomBinary());
        for (var e : inputs.entrySet()) {
            Path f = dir.resolve(e.getKey());
            Files.write(f, e.getValue());
            CrashLabCliTest.Run r = CrashLabCliTest.run("diagnose", "--json", f.toString(), "--kb", "kb-articles", "--compat", "compat");
            assertThat(r.status()).as(e.getKey() + ": " + r.err()).isZero();
            JsonNode json = Facts.json().readTree(r.out());
            assertThat(json.get("verdict").asText()).as(e.getKey()).isEqualTo("no-evidence");
            assertThat(json.get("hypotheses")).as(e.getKey()).allSatisfy(h -> {
                assertThat(h.get("strength").asText()).isEqualTo("none");
                assertThat(h.get("evidence")).isEmpty();
            });
            CrashLabCliTest.Run text = CrashLabCliTest.run("diagnose", f.toString(), "--kb", "kb-articles", "--compat", "compat");
            assertThat(text.out()).as(e.getKey()).startsWith("verdict: no-evidence (nothing in the bundle is evidence");
        }
    }

    @Test
    void anUncorrectedEccCountIsAFailingGpuOnlyWhenTheJobFailedOnTheGpu() throws Exception {
        // GPU 1 of this table shows "Volatile Uncorr. ECC: 2": uncorrectable errors since the driver loaded
        Path smi = Path.of("crashlab-core/src/test/resources/fixtures/nvidia-smi-table/modern-550-two-gpus.txt");
        Path imported = importFailureLog();
        Path launched = launchFailureLog();
        JsonNode notOnGpu = diagnoseJson(imported, smi);
        assertThat(notOnGpu.get("hypotheses").get(0).get("id").asText()).as("a job that never ran on the GPU")
                .isNotEqualTo("gpu-hardware-fault");
        assertThat(notOnGpu.get("hypotheses")).filteredOn(h -> h.get("id").asText().equals("gpu-hardware-fault"))
                .allSatisfy(h -> assertThat(h.get("strength").asText()).as("the ECC count alone is not specific").isIn("weak", "none"));
        JsonNode onGpu = diagnoseJson(launched, smi);
        assertThat(onGpu.get("verdict").asText()).isNotEqualTo("no-evidence");
        assertThat(onGpu.get("hypotheses").get(0).get("strength").asText()).as("the launch failure makes the count specific")
                .isIn("strong", "moderate");
        assertThat(onGpu.get("hypotheses").get(0).get("id").asText()).as("a launch failure on a GPU with uncorrected ECC errors")
                .isEqualTo("gpu-hardware-fault");
    }

    @Test
    void retiredPagesAreAFailingGpuOnlyWhenTheJobFailedOnTheGpu() throws Exception {
        // a data-centre card that retired a few pages long ago, nothing pending, no errors since the driver loaded
        Path smi = Files.writeString(dir.resolve("nvidia-smi-q.txt"), """

                ==============NVSMI LOG==============

                Driver Version                            : 535.161.08
                CUDA Version                              : 12.2

                Attached GPUs                             : 1
                GPU 00000000:3B:00.0
                    Product Name                          : Tesla V100-PCIE-32GB
                    FB Memory Usage
                        Total                             : 32768 MiB
                        Used                              : 4 MiB
                    ECC Errors
                        Volatile
                            Double Bit
                                Total                     : 0
                    Retired Pages
                        Single Bit ECC                    : 3
                        Double Bit ECC                    : 1
                        Pending Page Blacklist            : No
                """);
        Path imported = importFailureLog();
        Path launched = launchFailureLog();
        JsonNode notOnGpu = diagnoseJson(imported, smi);
        assertThat(notOnGpu.get("hypotheses").get(0).get("id").asText()).as("a job that never ran on the GPU")
                .isNotEqualTo("gpu-row-remapping");
        assertThat(notOnGpu.get("hypotheses")).filteredOn(h -> h.get("id").asText().equals("gpu-row-remapping"))
                .allSatisfy(h -> assertThat(h.get("strength").asText()).as("retired pages alone are not specific").isIn("weak", "none"));
        JsonNode onGpu = diagnoseJson(launched, smi);
        assertThat(onGpu.get("hypotheses").get(0).get("id").asText()).as("a launch failure on a GPU with retired pages")
                .isIn("gpu-row-remapping", "gpu-hardware-fault");
    }

    // a job that failed before it touched the GPU
    private Path importFailureLog() throws java.io.IOException {
        return Files.writeString(dir.resolve("import.log"), "Traceback (most recent call last):\n  File \"train.py\", line 3,"
                + " in <module>\n    import fancyops\nOSError: libfancyops.so: cannot open shared object file: No such file or directory\n");
    }

    // a job that failed while running on the GPU
    private Path launchFailureLog() throws java.io.IOException {
        return Files.writeString(dir.resolve("launch.log"), "Traceback (most recent call last):\n  File \"train.py\", line 140,"
                + " in <module>\n    loss.backward()\nRuntimeError: CUDA error: unspecified launch failure\n");
    }

    private static JsonNode diagnoseJson(Path... files) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("diagnose", "--json"));
        for (Path f : files) {
            args.add(f.toString());
        }
        args.addAll(List.of("--kb", "kb-articles", "--compat", "compat"));
        CrashLabCliTest.Run r = CrashLabCliTest.run(args.toArray(String[]::new));
        assertThat(r.status()).as(r.err()).isZero();
        return Facts.json().readTree(r.out());
    }
}
