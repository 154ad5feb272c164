package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each field and operator of the query language against an index of a few signatures, and the facet counts. */
class CrashIndexQueryTest {

    CrashIndex index;

    static SignatureTerm t(String key, String label, boolean specific) {
        return new SignatureTerm(key, label, specific);
    }

    static long day(String iso) {
        return Instant.parse(iso + "T12:00:00Z").toEpochMilli();
    }

    @BeforeEach
    void fill() {
        index = new CrashIndex();
        // 1: Windows, TF 2.10, RTX 3090, driver 466.77, CUDA 11.2, stack buffer overrun, missing zlibwapi
        index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(
                t("cause:missing-zlibwapi", "Missing zlibwapi", true), t("exit:0xc0000409", "exit code 0xC0000409", true),
                t("lib:zlibwapi.dll", "cannot load zlibwapi.dll", true), t("gpu:NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090", false),
                t("nvidia-driver:466.77", "nvidia-driver 466.77", false), t("cuda-runtime:11.2", "cuda-runtime 11.2", false),
                t("tensorflow:2.10", "tensorflow 2.10", false), t("os:windows", "windows", false)),
                "Could not locate zlibwapi.dll. Please make sure it is in your library path"), day("2026-10-30"), false));
        // 2: Linux, torch 2.1, A100, driver 535.104, CUDA 12.1, Xid 79, confirmed
        index.put(new CrashIndex.Entry(2, new CrashSignature(List.of(
                t("cause:gpu-fell-off-bus", "GPU fell off the bus", true), t("xid:79", "Xid 79", true),
                t("gpu:NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", false), t("nvidia-driver:535.104", "nvidia-driver 535.104", false),
                t("cuda-toolkit:12.1", "cuda-toolkit 12.1", false), t("torch:2.1", "torch 2.1", false), t("os:linux", "linux", false)),
                "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus"), day("2026-11-05"), true));
        // 3: Windows, TF 2.9, RTX 3090, driver 472.12, CUDA 11.8, cudnn mismatch, same exit code as 1
        index.put(new CrashIndex.Entry(3, new CrashSignature(List.of(
                t("cause:cudnn-version-mismatch", "cuDNN version mismatch", true), t("exit:0xc0000409", "exit code 0xC0000409", true),
                t("lib:cudnn_ops_infer64_8.dll", "cannot load cudnn_ops_infer64_8.dll", true),
                t("gpu:NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090", false), t("nvidia-driver:472.12", "nvidia-driver 472.12", false),
                t("cuda-runtime:11.8", "cuda-runtime 11.8", false), t("tensorflow:2.9", "tensorflow 2.9", false),
                t("os:windows", "windows", false)),
                "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0"), day("2026-11-02"), false));
    }

    @AfterEach
    void close() throws Exception {
        index.close();
    }

    List<Long> ids(String q) {
        List<Long> out = new ArrayList<>();
        index.query(CrashQuery.parse(q), 0, 50, 0).hits().forEach(h -> out.add(h.bundleId()));
        return out;
    }

    @Test
    void termFields() {
        assertThat(ids("cause:cudnn-version-mismatch")).containsExactly(3L);
        assertThat(ids("exit:0xC0000409")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("os:windows")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("os:linux")).containsExactly(2L);
        assertThat(ids("xid:79")).containsExactly(2L);
        assertThat(ids("xid:48")).isEmpty();
        assertThat(ids("lib:zlibwapi.dll")).containsExactly(1L);
        assertThat(ids("lib:zlibwapi")).containsExactly(1L);
        assertThat(ids("lib:cudnn*")).containsExactly(3L);
        assertThat(ids("cause:*mismatch")).containsExactly(3L);
    }

    @Test
    void gpuMatchesPartOfTheName() {
        assertThat(ids("gpu:\"RTX 3090\"")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("gpu:a100")).containsExactly(2L);
        assertThat(ids("gpu:\"RTX 4090\"")).isEmpty();
    }

    @Test
    void versionsCompareAsVersions() {
        assertThat(ids("driver:<470")).containsExactly(1L);
        assertThat(ids("driver:>=470")).containsExactlyInAnyOrder(2L, 3L);
        assertThat(ids("driver:472")).containsExactly(3L);
        assertThat(ids("cuda:11.*")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("cuda:12")).containsExactly(2L); // cuda reads the toolkit too
        assertThat(ids("tensorflow:>=2.10")).containsExactly(1L); // 2.10 > 2.9, unlike text
        assertThat(ids("tensorflow:<2.10")).containsExactly(3L);
        assertThat(ids("torch:2.1")).containsExactly(2L);
    }

    @Test
    void confirmedAndUploaded() {
        assertThat(ids("confirmed:yes")).containsExactly(2L);
        assertThat(ids("confirmed:no")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("uploaded:>2026-11-01")).containsExactly(2L, 3L); // newest first
        assertThat(ids("uploaded:2026-11-02")).containsExactly(3L);
        assertThat(ids("uploaded:<2026-11-02")).containsExactly(1L);
        assertThat(ids("uploader:me")).isEmpty(); // not resolved to bundles: nothing
    }

    @Test
    void uploaderMatchesTheBundlesItWasResolvedTo() {
        java.util.function.Function<String, List<Long>> uploads = name -> name.equals("alice") ? List.of(1L, 3L) : List.of(2L);
        assertThat(resolved("uploader:me", "alice", uploads)).containsExactly(3L, 1L); // newest first
        assertThat(resolved("uploader:me", "bob", uploads)).containsExactly(2L);
        assertThat(resolved("uploader:me os:windows -cause:missing-zlibwapi", "alice", uploads)).containsExactly(3L);
        assertThat(resolved("-uploader:me", "alice", uploads)).containsExactly(2L);
        assertThat(resolved("uploader:me OR xid:79", "alice", uploads)).containsExactly(2L, 3L, 1L);
        assertThat(resolved("uploader:carol", "alice", n -> List.of())).isEmpty();
    }

    List<Long> resolved(String q, String me, java.util.function.Function<String, List<Long>> uploads) {
        List<Long> out = new ArrayList<>();
        index.query(CrashQuery.parse(q).resolveUploaders(me, uploads), 0, 50, 0).hits().forEach(h -> out.add(h.bundleId()));
        return out;
    }

    @Test
    void wordsNegationOrAndParentheses() {
        assertThat(ids("zlibwapi")).containsExactly(1L);
        assertThat(ids("cudnn library")).containsExactly(3L);
        assertThat(ids("os:windows -cause:missing-zlibwapi")).containsExactly(3L);
        assertThat(ids("-os:windows")).containsExactly(2L);
        assertThat(ids("xid:79 OR lib:zlibwapi.dll")).containsExactlyInAnyOrder(1L, 2L);
        assertThat(ids("gpu:\"RTX 3090\" (tensorflow:2.9 OR driver:<470)")).containsExactlyInAnyOrder(1L, 3L);
        assertThat(ids("gpu:\"RTX 3090\" -(tensorflow:2.9 OR xid:79)")).containsExactly(1L);
        assertThat(ids("exit:0xc0000409 tensorflow:>=2.10 gpu:3090")).containsExactly(1L);
        assertThat(ids("...")).isEmpty(); // words the analyser drops entirely constrain nothing, and nothing is left
    }

    @Test
    void hitsOfWordsHaveSnippetsAndFiltersAlone() {
        CrashIndex.Result r = index.query(CrashQuery.parse("zlibwapi os:windows"), 0, 10, 0);
        assertThat(r.hits()).singleElement().satisfies(h -> assertThat(h.snippets()).anyMatch(s -> s.contains("<mark>")));
        assertThat(index.query(CrashQuery.parse("os:windows"), 0, 10, 0).hits()).allSatisfy(h -> assertThat(h.snippets()).isEmpty());
        assertThat(index.query(CrashQuery.parse("os:windows"), 1, 10, 0).hits()).extracting(CrashIndex.Hit::bundleId).containsExactly(1L);
    }

    @Test
    void facetsCountEveryMatchAndGiveTheFilterThatSelectsThem() {
        CrashIndex.Result r = index.query(CrashQuery.parse("os:windows"), 0, 1, 10);
        assertThat(r.total()).isEqualTo(2);
        Map<String, List<CrashIndex.FacetValue>> f = r.facets();
        assertThat(f.keySet()).containsExactlyElementsOf(CrashFacets.DIMENSIONS);
        assertThat(f.get("gpu")).containsExactly(new CrashIndex.FacetValue("NVIDIA GeForce RTX 3090", 2, "gpu:\"NVIDIA GeForce RTX 3090\""));
        assertThat(f.get("exit")).containsExactly(new CrashIndex.FacetValue("0xc0000409", 2, "exit:0xc0000409"));
        assertThat(f.get("framework")).extracting(CrashIndex.FacetValue::filter).containsExactly("tensorflow:2.10", "tensorflow:2.9");
        assertThat(f.get("driver")).extracting(CrashIndex.FacetValue::value).containsExactly("466.77", "472.12");
        assertThat(f.get("cause")).extracting(CrashIndex.FacetValue::count).containsExactly(1L, 1L);
        // every facet filter, added to the query, selects exactly the bundles it counted
        for (List<CrashIndex.FacetValue> values : f.values()) {
            for (CrashIndex.FacetValue v : values) {
                assertThat(ids("os:windows " + v.filter())).as(v.filter()).hasSize((int) v.count());
            }
        }
    }

    @Test
    void updatesAndRemovalsShowInTheNextQuery() {
        index.remove(3);
        assertThat(ids("os:windows")).containsExactly(1L);
        index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(t("os:linux", "linux", false)), ""), day("2026-10-30"), true));
        assertThat(ids("os:windows")).isEmpty();
        assertThat(ids("confirmed:yes os:linux")).containsExactlyInAnyOrder(1L, 2L);
    }

    // the counts of every bundle, recomputed the slow way: each indexed bundle's facet values, one by one
    private static Map<String, Long> countedOneByOne(CrashIndex index) {
        Map<String, Long> out = new java.util.HashMap<>();
        index.scan(null, (id, at, facets) -> facets.forEach(f -> out.merge(f, 1L, Long::sum)));
        return out;
    }

    @Test
    void countsOfEveryBundleFollowWritesDeletionsAndNewSegments() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("crash-index-counts");
        try (CrashIndex disk = CrashIndex.open(dir)) {
            java.util.Random rnd = new java.util.Random(7);
            String[] gpus = {"RTX 3090", "A100", "T4"};
            String[] oses = {"windows", "linux"};
            java.util.function.IntFunction<CrashSignature> sig = i -> new CrashSignature(List.of(
                    t("cause:c" + rnd.nextInt(4), "cause", true), t("gpu:NVIDIA " + gpus[rnd.nextInt(3)], "NVIDIA " + gpus[rnd.nextInt(3)], false),
                    t("os:" + oses[rnd.nextInt(2)], "os", false)), "run " + i);
            for (int round = 0; round < 4; round++) { // each round's commit leaves a segment of its own
                for (int i = 0; i < 200; i++) {
                    disk.put(new CrashIndex.Entry(round * 200L + i + 1, sig.apply(i), day("2026-11-01"), rnd.nextBoolean()));
                }
                disk.commit(Map.of());
                assertThat(disk.counts(null)).isEqualTo(countedOneByOne(disk));
            }
            Map<String, Long> before = disk.counts(null);
            assertThat(before.get("confirmed\0yes") + before.get("confirmed\0no")).isEqualTo(800L);
            // deletions in old segments and replacements: the cached counts of a segment lose its deleted documents (few
            // enough, under a tenth, that Lucene's merge policy keeps the segments with their deletions rather than rewriting them)
            for (long id = 1; id <= 800; id += 20) {
                disk.remove(id);
            }
            for (long id = 3; id <= 800; id += 25) {
                disk.put(new CrashIndex.Entry(id, sig.apply((int) id), day("2026-11-02"), true));
            }
            Map<String, Long> after = disk.counts(null);
            assertThat(after).isEqualTo(countedOneByOne(disk));
            assertThat(after.get("confirmed\0yes") + after.get("confirmed\0no")).isEqualTo(disk.size());
            assertThat(after).isNotEqualTo(before);
            // asked again with nothing changed: the same answer (from the cache)
            assertThat(disk.counts(null)).isEqualTo(after);
            disk.clear();
            assertThat(disk.counts(null)).isEmpty();
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
