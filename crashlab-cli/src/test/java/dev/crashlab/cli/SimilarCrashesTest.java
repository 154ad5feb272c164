package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import dev.crashlab.crashes.CrashIndex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Past-crash search and similar crashes over real parses of our KB fixture bundles: signatures come from the
 * parsers' facts and the engine's diagnosis, never from hand-written terms.
 */
class SimilarCrashesTest {

    static final Path FIXTURES = Path.of("crashlab-core/src/test/resources/kb-fixtures");
    static DiagnosisEngine engine;
    static final List<String> IDS = new ArrayList<>();
    static final CrashIndex INDEX = new CrashIndex();

    @TempDir
    Path dir;

    @BeforeAll
    static void indexEveryFixture() throws Exception {
        engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
        try (Stream<Path> s = Files.list(FIXTURES)) {
            s.sorted().forEach(p -> IDS.add(p.getFileName().toString()));
        }
        for (int i = 0; i < IDS.size(); i++) {
            INDEX.put(new CrashIndex.Entry(i + 1, signature(FIXTURES.resolve(IDS.get(i)))));
        }
    }

    static CrashSignature signature(Path bundle) throws Exception {
        DiagnosisInput in = OfflineBundle.read(List.of(bundle), p -> false);
        Diagnosis d = engine.diagnose(in);
        List<String> paths;
        try (Stream<Path> s = Files.list(bundle)) {
            paths = s.map(p -> p.getFileName().toString()).sorted().toList();
        }
        return CrashSignature.of(bundle.getFileName().toString(), paths, in.facts(), d);
    }

    static long idOf(String fixture) {
        return IDS.indexOf(fixture) + 1;
    }

    static List<String> keys(CrashSignature s) {
        return s.terms().stream().map(SignatureTerm::key).toList();
    }

    @Test
    void theSignatureHoldsTheCodeTheCauseAndTheSetting() throws Exception {
        CrashSignature s = signature(FIXTURES.resolve("missing-zlibwapi"));
        assertThat(keys(s)).contains("cause:missing-zlibwapi", "exit:0xc0000409", "gpu:nvidia geforce rtx 3060");
        SignatureTerm exit = s.terms().stream().filter(t -> t.key().equals("exit:0xc0000409")).findFirst().orElseThrow();
        assertThat(exit.specific()).isTrue();
        assertThat(exit.label()).contains("0xC0000409");
        assertThat(s.terms().stream().filter(t -> t.kind().equals("gpu")).allMatch(t -> !t.specific())).isTrue();
        assertThat(s.text()).contains("zlibwapi.dll", "console.log");
    }

    @Test
    void anotherUploadOfTheSameCrashComesFirstAndSaysWhatItShares() throws Exception {
        // the same crash on another machine: other paths, times, GPU and driver; same missing DLL and exit code
        Path other = Files.createDirectories(dir.resolve("colleague"));
        Files.writeString(other.resolve("run.log"), """
                C:\\Users\\sam\\anaconda3\\envs\\dl\\python.exe E:/proj/classify.py
                2024-02-01 09:12:44.100200: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 5400 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 2060, pci bus id: 0000:02:00.0, compute capability: 7.5
                Epoch 1/10
                2024-02-01 09:12:50.000000: I tensorflow/stream_executor/cuda/cuda_dnn.cc:384] Loaded cuDNN version 8500
                Could not locate zlibwapi.dll. Please make sure it is in your library path!

                Process finished with exit code -1073740791 (0xC0000409)
                """);
        long otherId = 1000;
        INDEX.put(new CrashIndex.Entry(otherId, signature(other)));
        try {
            List<CrashIndex.Similar> similar = INDEX.similar(otherId, 5);
            assertThat(similar).isNotEmpty();
            CrashIndex.Similar first = similar.getFirst();
            assertThat(first.bundleId()).as(similar.toString()).isEqualTo(idOf("missing-zlibwapi"));
            assertThat(first.shared()).extracting(SignatureTerm::key).contains("cause:missing-zlibwapi", "exit:0xc0000409");
            assertThat(first.shared().getFirst().specific()).as("specific terms come first").isTrue();
            assertThat(first.similarity()).isGreaterThan(0).isLessThanOrEqualTo(1);
            for (int i = 1; i < similar.size(); i++) {
                assertThat(similar.get(i).similarity()).isLessThanOrEqualTo(similar.get(i - 1).similarity());
            }
            assertThat(similar).allSatisfy(s -> assertThat(s.shared()).anyMatch(SignatureTerm::specific));
            assertThat(similar).noneMatch(s -> s.bundleId() == otherId);
        } finally {
            INDEX.remove(otherId);
        }
        assertThat(INDEX.contains(otherId)).isFalse();
        assertThat(INDEX.similar(otherId, 5)).isEmpty();
    }

    @Test
    void sharingOnlyTheSettingIsNotSimilar() throws Exception {
        // a clean run on the same GPU as the zlibwapi fixture: nothing crash-specific in common
        Path calm = Files.createDirectories(dir.resolve("calm"));
        Files.writeString(calm.resolve("console.log"), """
                2023-06-14 21:03:12.118760: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 9604 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 3060, pci bus id: 0000:01:00.0, compute capability: 8.6
                Epoch 1/40
                """);
        CrashSignature s = signature(calm);
        // since signature v2 a fact read only from an INFO line adds no term, so the GPU setting stays out too
        assertThat(keys(s)).doesNotContain("gpu:nvidia geforce rtx 3060");
        assertThat(s.terms()).noneMatch(SignatureTerm::specific);
        INDEX.put(new CrashIndex.Entry(2000, s));
        try {
            assertThat(INDEX.similar(2000, 5)).isEmpty();
        } finally {
            INDEX.remove(2000);
        }
    }

    @Test
    void searchFindsPastCrashesByWhatTheirFilesSayWithMarkedSnippets() {
        CrashIndex.Hits hits = INDEX.search("zlibwapi", 0, 10);
        assertThat(hits.total()).isPositive();
        assertThat(hits.hits().getFirst().bundleId()).isEqualTo(idOf("missing-zlibwapi"));
        assertThat(hits.hits().getFirst().snippets()).anyMatch(s -> s.contains("<mark>zlibwapi"));

        CrashIndex.Hits code = INDEX.search("0xC0000409", 0, 50);
        assertThat(code.hits()).extracting(CrashIndex.Hit::bundleId).contains(idOf("missing-zlibwapi"));
        assertThat(code.total()).isEqualTo(code.hits().size());

        CrashIndex.Hits paged = INDEX.search("0xC0000409", 1, 50);
        assertThat(paged.total()).isEqualTo(code.total());
        assertThat(paged.hits()).hasSize(code.hits().size() - 1);

        assertThat(INDEX.search("qwxzv", 0, 10).total()).isZero();
        assertThat(INDEX.search("  ", 0, 10).hits()).isEmpty();
    }

    @Test
    void snippetsEscapeWhatTheLogsSay() throws Exception {
        Path evil = Files.createDirectories(dir.resolve("evil"));
        Files.writeString(evil.resolve("console.log"), """
                Traceback (most recent call last):
                  File "x.py", line 1, in <module>
                RuntimeError: <script>alert(1)</script> cudnnzork failed
                """);
        INDEX.put(new CrashIndex.Entry(3000, signature(evil)));
        try {
            CrashIndex.Hits hits = INDEX.search("cudnnzork", 0, 5);
            assertThat(hits.hits()).hasSize(1);
            assertThat(hits.hits().getFirst().snippets()).allSatisfy(s -> assertThat(s).doesNotContain("<script>").contains("&lt;script&gt;"));
        } finally {
            INDEX.remove(3000);
        }
    }

    @Test
    void aBundleIsReplacedNotDuplicated() throws Exception {
        int before = INDEX.size();
        long id = idOf("gpu-oom");
        INDEX.put(new CrashIndex.Entry(id, signature(FIXTURES.resolve("gpu-oom"))));
        assertThat(INDEX.size()).isEqualTo(before);
        assertThat(INDEX.search("gpu-oom", 0, 100).hits()).extracting(CrashIndex.Hit::bundleId).containsOnlyOnce(id);
    }

}
