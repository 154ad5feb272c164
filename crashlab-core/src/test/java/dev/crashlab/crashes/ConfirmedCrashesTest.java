package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ConfirmedCrash;
import dev.crashlab.crashes.CrashIndex;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which confirmed similar crashes become evidence: an identifying term must be shared, not just a common code. */
class ConfirmedCrashesTest {

    static SignatureTerm exit = new SignatureTerm("exit:0xc0000409", "exit code 0xC0000409", true);
    static SignatureTerm runtime = new SignatureTerm("exception:RuntimeError", "RuntimeError", true);
    static SignatureTerm zlib = new SignatureTerm("lib:zlibwapi.dll", "cannot load zlibwapi.dll", true);
    static SignatureTerm windows = new SignatureTerm("os:windows", "windows", false);

    @Test
    void onlyCrashesSharingALibraryModuleOrEventCountAndOnlyConfirmedOnes() {
        CrashIndex index = new CrashIndex();
        index.put(new CrashIndex.Entry(1, new CrashSignature(List.of(exit, runtime, windows), "generic twin")));
        index.put(new CrashIndex.Entry(2, new CrashSignature(List.of(exit, zlib, windows), "zlib twin")));
        index.put(new CrashIndex.Entry(3, new CrashSignature(List.of(exit, zlib), "unconfirmed zlib twin")));
        for (int i = 10; i < 30; i++) { // unrelated crashes, so that idf means something
            index.put(new CrashIndex.Entry(i, new CrashSignature(List.of(new SignatureTerm("xid:" + i, "Xid " + i, true)), "other")));
        }
        Map<Long, String> confirmed = Map.of(1L, "cudnn-version-mismatch", 2L, "missing-zlibwapi");
        CrashSignature mine = new CrashSignature(List.of(exit, runtime, zlib, windows), "mine");
        List<CrashIndex.Similar> similar = index.similarTo(mine, 99, 10);
        assertThat(similar).extracting(CrashIndex.Similar::bundleId).contains(1L, 2L, 3L);

        List<ConfirmedCrash> facts = ConfirmedCrashes.of(similar, id -> "bundle-" + id, confirmed::get);
        assertThat(facts).extracting(ConfirmedCrash::bundleId).containsExactly(2L);
        ConfirmedCrash f = facts.getFirst();
        assertThat(f.articleId()).isEqualTo("missing-zlibwapi");
        assertThat(f.shared()).contains("cannot load zlibwapi.dll", "exit code 0xC0000409");
        assertThat(f.similarity()).isGreaterThanOrEqualTo(ConfirmedCrashes.MIN_SIMILARITY).isLessThan(1.0);
        assertThat(f.sources().getFirst().artifact()).isEqualTo("bundle #2");

        // a bundle that is gone (no name) is left out
        assertThat(ConfirmedCrashes.of(similar, id -> null, confirmed::get)).isEmpty();
    }
}
