package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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
}
