package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A pair of crashes is as alike from either side (issue 27: one pair showed "61 % alike" and "38 % alike"). */
class SimilarityTest {

    static SignatureTerm t(String key, boolean specific) {
        return new SignatureTerm(key, key, specific);
    }

    private static double alike(CrashIndex index, long from, long to) {
        return index.similar(from, 50).stream().filter(s -> s.bundleId() == to).findFirst().orElseThrow().similarity();
    }

    @Test
    void onePairOneNumberWhicheverSideAsks() {
        CrashIndex index = new CrashIndex();
        // a small signature and a large one that holds all of it: the old one-sided share gave 100 % and ~30 %
        index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(t("exit:6", true), t("lib:libnccl.so", true)), "small")));
        index.put(new CrashIndex.Entry(2, new CrashSignature(List.of(t("exit:6", true), t("lib:libnccl.so", true),
                t("module:torch", true), t("exception:RuntimeError", true), t("os:linux", false), t("xid:79", true)), "large")));
        for (int i = 10; i < 30; i++) {
            index.put(new CrashIndex.Entry(i, new CrashSignature(List.of(t("xid:" + i, true), t("os:linux", false)), "other")));
        }
        double ab = alike(index, 1, 2);
        double ba = alike(index, 2, 1);
        assertThat(ab).isEqualTo(ba).isGreaterThan(0.2).isLessThan(1.0);
    }

    @Test
    void identicalSignaturesAreFullyAlikeAndDisjointOnesAreNotListed() {
        CrashIndex index = new CrashIndex();
        index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(t("exit:6", true), t("lib:a.so", true)), "a")));
        index.put(new CrashIndex.Entry(2, new CrashSignature(List.of(t("exit:6", true), t("lib:a.so", true)), "b")));
        index.put(new CrashIndex.Entry(3, new CrashSignature(List.of(t("xid:13", true)), "c")));
        assertThat(alike(index, 1, 2)).isEqualTo(1.0);
        assertThat(index.similar(1, 10)).extracting(CrashIndex.Similar::bundleId).doesNotContain(3L);
        assertThat(CrashIndex.similarity(0, 0, 0)).isZero();
    }

    @Test
    void aSignalIsSearchedAndShownByItsNameNotItsNumber() {
        var src = List.of(new dev.crashlab.fact.SourceRef("run.log", 9, "Aborted (core dumped)"));
        CrashSignature sig = CrashSignature.of("b", List.of(), List.of(
                new dev.crashlab.fact.ExitStatus(6, null, "SIGABRT", "abort()", dev.crashlab.fact.ExitStatus.Kind.SIGNAL, src),
                new dev.crashlab.fact.ExitStatus(-1073740791, "0xC0000409", "STATUS_STACK_BUFFER_OVERRUN", "fastfail",
                        dev.crashlab.fact.ExitStatus.Kind.NTSTATUS, src)), null);
        assertThat(sig.terms()).filteredOn(x -> x.kind().equals("exit")).extracting(SignatureTerm::label)
                .contains("SIGABRT (signal 6)", "exit code 0xC0000409 (STATUS_STACK_BUFFER_OVERRUN)")
                .noneMatch(l -> l.equals("exit code 6"));
    }

    private static List<Long> ids(List<CrashIndex.Similar> similar) {
        return similar.stream().map(CrashIndex.Similar::bundleId).toList();
    }

    // the first stage asked for every candidate at once: every bundle sharing a specific term is scored
    private static List<CrashIndex.Similar> exact(CrashIndex index, long id, int limit) {
        return index.similarTo(index.signature(id), id, limit, CrashIndex.MAX_CANDIDATES);
    }

    @Test
    void aSmallFirstStageGivesTheExactTopWhenItsOrderAndTheFinalOneDiffer() {
        CrashIndex index = new CrashIndex();
        List<SignatureTerm> mine = List.of(t("exit:6", true), t("lib:libnccl.so", true), t("module:torch", true), t("os:linux", false));
        index.put(new CrashIndex.Entry(1, new CrashSignature(mine, "mine")));
        // 40 bundles that share every term of mine and carry 12 rare ones of their own: the most shared weight (the
        // first stage's first 40) but the least alike
        for (int i = 0; i < 40; i++) {
            List<SignatureTerm> terms = new ArrayList<>(mine);
            for (int k = 0; k < 12; k++) {
                terms.add(t("xid:big" + i + "-" + k, true));
            }
            index.put(new CrashIndex.Entry(100 + i, new CrashSignature(terms, "big")));
        }
        // bundles that share less and hold nothing else: past the first stage's cut of 8, yet the most alike
        index.put(new CrashIndex.Entry(10, new CrashSignature(List.of(t("exit:6", true), t("lib:libnccl.so", true)), "a")));
        index.put(new CrashIndex.Entry(11, new CrashSignature(List.of(t("lib:libnccl.so", true), t("module:torch", true)), "b")));
        index.put(new CrashIndex.Entry(12, new CrashSignature(List.of(t("module:torch", true)), "c")));
        for (int i = 0; i < 200; i++) {
            index.put(new CrashIndex.Entry(1000 + i, new CrashSignature(List.of(t("xid:" + i, true), t("os:linux", false)), "other")));
        }
        List<CrashIndex.Similar> all = exact(index, 1, 5);
        assertThat(ids(all)).as("the exact top 5 holds bundles the first 8 by shared weight leave out").contains(10L, 11L, 12L);
        assertThat(index.similarTo(index.signature(1), 1, 5, 8)).isEqualTo(all);
        assertThat(index.similar(1, 5)).isEqualTo(all);
    }

    @Test
    void exactDuplicatesPastTheCutComeNewestFirstAsWhenEveryOneIsScored() {
        CrashIndex index = new CrashIndex();
        List<SignatureTerm> mine = List.of(t("exit:6", true), t("lib:libcudnn.so.8", true), t("gpu:rtx", false));
        for (int i = 1; i <= 300; i++) {
            index.put(new CrashIndex.Entry(i, new CrashSignature(mine, "same " + i)));
        }
        for (int i = 0; i < 50; i++) {
            index.put(new CrashIndex.Entry(1000 + i, new CrashSignature(List.of(t("exit:6", true), t("xid:" + i, true)), "other")));
        }
        List<CrashIndex.Similar> all = exact(index, 7, 5);
        assertThat(ids(all)).containsExactly(300L, 299L, 298L, 297L, 296L);
        assertThat(all).allMatch(x -> x.similarity() == 1.0);
        assertThat(index.similarTo(index.signature(7), 7, 5, 8)).isEqualTo(all);
    }

    @Test
    void onRandomSignaturesEveryCutGivesTheExactTop() {
        Random rnd = new Random(3);
        CrashIndex index = new CrashIndex();
        for (int i = 1; i <= 2000; i++) {
            List<SignatureTerm> terms = new ArrayList<>();
            terms.add(t("cause:c" + rnd.nextInt(8), true));
            terms.add(t("gpu:g" + rnd.nextInt(5), false));
            terms.add(t("cuda:" + rnd.nextInt(4), false));
            for (int k = rnd.nextInt(4); k > 0; k--) {
                terms.add(t("lib:l" + (int) Math.floor(Math.pow(rnd.nextDouble(), 3) * 300), true));
            }
            index.put(new CrashIndex.Entry(i, new CrashSignature(terms.stream().distinct().toList(), "r" + i)));
        }
        for (int q = 0; q < 60; q++) {
            long id = 1 + rnd.nextInt(2000);
            List<CrashIndex.Similar> all = exact(index, id, 10);
            for (int cut : new int[] {11, 16, 64}) {
                List<CrashIndex.Similar> mine = index.similarTo(index.signature(id), id, 10, cut);
                assertThat(mine).as("bundle %d, first stage %d", id, cut).isEqualTo(all);
            }
        }
    }

    @Test
    void bundlesReadAgainUntilTheirTermsDeletedCopiesOutnumberTheLiveOnesAreStillAlike() {
        // each put of a bundle read again deletes its old document, which Lucene's document frequency counts until a
        // merge: here lib:a.so's is 8 with 2 bundles live (the weight once went negative, which a Lucene boost refuses)
        CrashIndex index = new CrashIndex();
        for (int round = 0; round < 4; round++) {
            index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(t("lib:a.so", true), t("os:linux", false)), "a")));
            index.put(new CrashIndex.Entry(2, new CrashSignature(List.of(t("lib:a.so", true), t("os:linux", false)), "b")));
        }
        assertThat(index.similar(1, 5)).singleElement().satisfies(s -> {
            assertThat(s.bundleId()).isEqualTo(2L);
            assertThat(s.similarity()).isEqualTo(1.0);
        });
        assertThat(CrashIndex.idf(2, 8)).isPositive();
    }
}
