package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-segment group summaries ({@link CrashIndex#group}, {@link CrashIndex#groups}, and the facet counts of a
 * {@code group:KEY} query) agree with a scan of the group's bundles after every kind of change: new bundles in many
 * segments, deletes (as retention makes them), a bundle read again with another cause or confirmed, a rebuild from
 * nothing (as from the database) and reopening the folder.
 */
class GroupStatsTest {

    @TempDir
    Path dir;

    private static final String[] GROUPS = {"KeyError: model", "CUDA_ERROR_OUT_OF_MEMORY", "cudnn status not initialized", "segfault"};
    private static final String[] CAUSES = {"cuda-oom", "cudnn-mismatch", "driver-too-old"};
    private static final String[] GPUS = {"RTX 3060", "A100", "T4"};
    private static final long DAY = 86_400_000L;

    private static CrashSignature sig(Random rnd) {
        List<SignatureTerm> terms = new ArrayList<>();
        terms.add(new SignatureTerm("gpu:" + GPUS[rnd.nextInt(GPUS.length)], GPUS[rnd.nextInt(GPUS.length)], false));
        int causes = rnd.nextInt(3); // none, one, or two (the last one in order is the bundle's cause)
        for (int c = 0; c < causes; c++) {
            terms.add(new SignatureTerm("cause:" + CAUSES[rnd.nextInt(CAUSES.length)], "cause", true));
        }
        terms.add(new SignatureTerm("os:linux", "linux", false));
        List<SignatureTerm> distinct = terms.stream().distinct().toList();
        List<String> group = rnd.nextInt(10) == 0 ? List.of() : List.of(GROUPS[rnd.nextInt(GROUPS.length)]);
        return new CrashSignature(CrashSignature.VERSION, distinct, "crash " + rnd.nextInt(), group, List.of());
    }

    private static CrashIndex.Entry entry(long id, Random rnd) {
        return new CrashIndex.Entry(id, sig(rnd), 1_700_000_000_000L + rnd.nextInt(40) * DAY + rnd.nextInt(3) * 3_600_000L,
                rnd.nextInt(4) == 0);
    }

    @Test
    void summariesAgreeWithAScanThroughWritesDeletesRereadsRebuildsAndReopening() throws Exception {
        Random rnd = new Random(7);
        Map<Long, CrashIndex.Entry> db = new HashMap<>(); // what the database would hold
        try (CrashIndex index = CrashIndex.open(dir)) {
            long next = 1;
            for (int round = 0; round < 12; round++) {
                for (int k = 0; k < 40; k++) { // each round's writes end up in a segment of their own
                    CrashIndex.Entry e = entry(next++, rnd);
                    index.put(e);
                    db.put(e.bundleId(), e);
                }
                for (int k = 0; k < 8; k++) { // retention deletes some
                    long id = 1 + rnd.nextInt((int) next - 1);
                    index.remove(id);
                    db.remove(id);
                }
                for (int k = 0; k < 8; k++) { // a bundle read again: another cause, group or confirmation
                    long id = 1 + rnd.nextInt((int) next - 1);
                    if (db.containsKey(id)) {
                        CrashIndex.Entry e = entry(id, rnd);
                        index.put(e);
                        db.put(id, e);
                    }
                }
                assertAgree(index);
            }
            assertThat(index.groups()).hasSize(GROUPS.length);
            index.commit(Map.of());
        }
        try (CrashIndex index = CrashIndex.open(dir)) {
            assertAgree(index);
            index.clear(); // a rebuild from the database
            assertThat(index.groups()).isEmpty();
            assertThat(index.group(GroupSignature.key(List.of(GROUPS[0])))).isNull();
            db.values().stream().sorted(java.util.Comparator.comparingLong(CrashIndex.Entry::bundleId)).forEach(index::put);
            assertAgree(index);
            for (long id : List.copyOf(db.keySet())) { // every bundle of one group deleted: the group is gone
                if (GroupSignature.key(List.of(GROUPS[0])).equals(db.get(id).signature().groupKey())) {
                    index.remove(id);
                }
            }
            assertThat(index.group(GroupSignature.key(List.of(GROUPS[0])))).isNull();
            assertAgree(index);
        }
    }

    // what CrashGroupService computed from a scan before the summaries, for every group, next to the summaries
    private static void assertAgree(CrashIndex index) {
        Map<String, CrashIndex.GroupStats> expected = new java.util.LinkedHashMap<>();
        Map<String, long[]> acc = new java.util.LinkedHashMap<>();
        Map<String, Map<String, long[]>> causes = new HashMap<>();
        Map<String, TreeMap<Long, Long>> days = new HashMap<>();
        Map<String, Map<String, Long>> facets = new HashMap<>();
        index.scan(null, (id, at, fs) -> {
            String key = null;
            String cause = null;
            boolean confirmed = false;
            for (String f : fs) {
                if (f.startsWith("group\0")) {
                    key = f.substring(6);
                } else if (f.startsWith("cause\0")) {
                    cause = f.substring(6);
                } else if (f.equals("confirmed\0yes")) {
                    confirmed = true;
                }
            }
            if (key == null) {
                return;
            }
            long[] a = acc.computeIfAbsent(key, k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, -1, 0});
            a[0]++;
            a[1] = Math.min(a[1], at);
            if (at > a[2]) {
                a[2] = at;
                a[3] = id;
            }
            a[4] += confirmed ? 1 : 0;
            if (cause != null) {
                long[] c = causes.computeIfAbsent(key, k -> new HashMap<>()).computeIfAbsent(cause, k -> new long[2]);
                c[0]++;
                c[1] += confirmed ? 1 : 0;
            }
            days.computeIfAbsent(key, k -> new TreeMap<>()).merge(Math.floorDiv(at, DAY), 1L, Long::sum);
            Map<String, Long> f = facets.computeIfAbsent(key, k -> new HashMap<>());
            fs.forEach(v -> f.merge(v, 1L, Long::sum));
        });
        acc.forEach((key, a) -> {
            Map<String, CrashIndex.CauseCount> cs = new HashMap<>();
            causes.getOrDefault(key, Map.of()).forEach((c, n) -> cs.put(c, new CrashIndex.CauseCount(n[0], n[1])));
            expected.put(key, new CrashIndex.GroupStats(key, a[0], a[1], a[2], a[3], a[4], cs, days.get(key), facets.get(key)));
        });
        assertThat(expected).isNotEmpty();
        for (CrashIndex.GroupStats e : expected.values()) {
            CrashIndex.GroupStats got = index.group(e.key());
            assertThat(got).isEqualTo(e);
            assertThat(index.counts(CrashQuery.parse("group:" + e.key()))).isEqualTo(e.facets());
            assertThat(index.query(CrashQuery.parse("group:" + e.key()), 0, 1, 100).total()).isEqualTo(e.count());
        }
        // the list: every group in the order a scan first meets it, without facet counts
        assertThat(index.groups()).extracting(CrashIndex.GroupStats::key).containsExactlyElementsOf(expected.keySet());
        assertThat(index.groups()).allSatisfy(g -> {
            CrashIndex.GroupStats e = expected.get(g.key());
            assertThat(g).isEqualTo(new CrashIndex.GroupStats(e.key(), e.count(), e.firstSeen(), e.lastSeen(), e.newest(), e.confirmed(),
                    e.causes(), e.days(), Map.of()));
        });
    }
}
