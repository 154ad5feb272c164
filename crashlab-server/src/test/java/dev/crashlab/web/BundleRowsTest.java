package dev.crashlab.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.crashes.service.CrashSearchService.RowFacts;
import org.junit.jupiter.api.Test;

/** The names the Bundles list shows: collector bundles by what was read in them, generic files with what tells them apart. */
class BundleRowsTest {

    static RowFacts facts(String exception, String framework, String gpu, String os) {
        return new RowFacts(null, null, gpu, framework, exception, os);
    }

    @Test
    void appliesWhenTheNameIsTheCollectorsDefault() {
        assertThat(BundleRows.collectorDefault("crash-bundle-20261129-051200.zip")).isTrue();
        assertThat(BundleRows.collectorDefault("crash-bundle-20261129-051200.tar.gz")).isTrue();
        assertThat(BundleRows.collectorDefault("/home/u/crash-bundle-20261129-051200.ZIP")).isTrue();
        String shown = BundleRows.displayName("crash-bundle-20261129-051200.zip", 9,
                facts("tensorflow.python.framework.errors_impl.UnknownError", "tensorflow 2.6", "GeForce RTX 2080", "Windows 10"));
        assertThat(shown).isEqualTo("UnknownError · tensorflow 2.6 · GeForce RTX 2080");
        // no GPU named: the OS stands for the machine (the collectors write <host> for the host name by default)
        assertThat(BundleRows.displayName("crash-bundle-20261129-051200.zip", 9, facts("exit 0xC0000409", "pytorch 2.1", null, "Windows 11")))
                .isEqualTo("exit 0xC0000409 · pytorch 2.1 · Windows 11");
    }

    @Test
    void doesNotApplyWhenTheNameWasChosenOrNothingIsKnownYet() {
        assertThat(BundleRows.collectorDefault("crash-bundle-resnet.zip")).isFalse();
        assertThat(BundleRows.collectorDefault("my-crash-bundle-20261129-051200.zip")).isFalse();
        RowFacts f = facts("RuntimeError", "pytorch 2.1", "A100", null);
        assertThat(BundleRows.displayName("resnet-oom.zip", 3, f)).isEqualTo("resnet-oom.zip");
        // not diagnosed yet, or nothing read that names the crash: the default name as it is
        assertThat(BundleRows.displayName("crash-bundle-20261129-051200.zip", 9, null)).isEqualTo("crash-bundle-20261129-051200.zip");
        assertThat(BundleRows.displayName("crash-bundle-20261129-051200.zip", 9, facts(null, null, null, null)))
                .isEqualTo("crash-bundle-20261129-051200.zip");
        // a generic file keeps its name in front
        assertThat(BundleRows.displayName("crash.log", 1, f)).isEqualTo("crash.log · RuntimeError · A100");
    }

    @Test
    void aSignalIsWrittenByItsNameAsEverywhereElse() {
        // the signature keeps exit:sigabrt and exit:0xc0000409; the heading said "crash.log · exit sigabrt" (c021, seen in the walk)
        assertThat(BundleRows.displayName("crash.log", 1, facts("exit sigabrt", null, null, null))).isEqualTo("crash.log · exit SIGABRT");
        assertThat(BundleRows.displayName("crash-bundle-20261129-051200.zip", 2, facts("exit sigsegv", "pytorch 2.1", null, "Ubuntu 22.04")))
                .isEqualTo("exit SIGSEGV · pytorch 2.1 · Ubuntu 22.04");
        assertThat(BundleRows.displayName("crash.log", 1, facts("exit 0xc0000409", null, null, null))).isEqualTo("crash.log · exit 0xC0000409");
        assertThat(BundleRows.displayName("crash.log", 1, facts("exit 1", null, null, null))).isEqualTo("crash.log · exit 1");
    }
}
