package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CrashIndex#putAll} (a bulk load on several threads, as {@code scripts/bench crashes} builds its indexes) gives
 * the index that {@link CrashIndex#put} one bundle at a time gives: the same entries, facet counts, groups, searches
 * and similar crashes, also when a batch replaces bundles indexed before, and after reopening the folder.
 */
class CrashIndexBulkTest {

    @TempDir
    Path dir;

    private static final String[] CAUSES = {"cuda-oom", "cudnn-mismatch", "driver-too-old"};
    private static final String[] GPUS = {"RTX 3060", "A100", "T4"};

    private static CrashIndex.Entry entry(long id, Random rnd) {
        List<SignatureTerm> terms = new ArrayList<>();
        String gpu = GPUS[rnd.nextInt(GPUS.length)];
        terms.add(new SignatureTerm("gpu:" + gpu, gpu, false));
        terms.add(new SignatureTerm("cause:" + CAUSES[rnd.nextInt(CAUSES.length)], "cause", true));
        terms.add(new SignatureTerm("lib:libx" + rnd.nextInt(40) + ".so", "cannot load libx", true));
        List<String> group = List.of("group " + rnd.nextInt(5));
        CrashSignature sig = new CrashSignature(CrashSignature.VERSION, terms.stream().distinct().toList(),
                "step " + rnd.nextInt(1000) + " failed: out of memory", group, List.of());
        return new CrashIndex.Entry(id, sig, 1_700_000_000_000L + rnd.nextInt(1_000_000_000), rnd.nextInt(5) == 0);
    }

    @Test
    void aBulkLoadOnTwoThreadsGivesTheIndexThatOneByOneGives() throws Exception {
        Random rnd = new Random(11);
        List<CrashIndex.Entry> first = new ArrayList<>();
        for (long id = 1; id <= 3000; id++) {
            first.add(entry(id, rnd));
        }
        List<CrashIndex.Entry> again = new ArrayList<>(); // a second batch: 500 bundles read again, 200 new
        for (long id = 2501; id <= 3200; id++) {
            again.add(entry(id, rnd));
        }
        CrashIndex one = new CrashIndex();
        first.forEach(one::put);
        again.forEach(one::put);
        try (CrashIndex bulk = CrashIndex.open(dir)) {
            bulk.putAll(first, 2);
            bulk.putAll(again, 2);
            bulk.commit(java.util.Map.of());
            same(one, bulk);
        }
        try (CrashIndex reopened = CrashIndex.open(dir)) {
            same(one, reopened);
        }
        one.close();
    }

    private static void same(CrashIndex expected, CrashIndex actual) {
        assertThat(actual.size()).isEqualTo(3200);
        assertThat(actual.fingerprints()).isEqualTo(expected.fingerprints());
        assertThat(actual.counts(null)).isEqualTo(expected.counts(null));
        assertThat(actual.groups()).containsExactlyInAnyOrderElementsOf(expected.groups());
        CrashQuery.Parsed q = CrashQuery.parse("memory " + CrashFacets.filter("gpu", "A100"));
        assertThat(actual.query(q, 0, 20, 8)).isEqualTo(expected.query(q, 0, 20, 8));
        for (long id = 1; id <= 3200; id += 97) {
            assertThat(actual.similar(id, 5)).as("similar to %d", id).isEqualTo(expected.similar(id, 5));
        }
    }
}
