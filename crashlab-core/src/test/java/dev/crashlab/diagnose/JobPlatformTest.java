package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.StatusCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The job's own output decides its OS when another file (a collector's env.txt) describes another machine. */
class JobPlatformTest {

    static Platform platform(String os, String family, String artifact) {
        return new Platform(os, family, "x86_64", "3.12.3", "some CPU", List.of("avx2"), List.of(new SourceRef(artifact, 1, "os")));
    }

    static final Fact ERROR = new StatusCode("cuda", "cudaErrorLaunchTimeout", List.of(new SourceRef("train.log", 9, "RuntimeError")));
    static final Platform LINUX_ENV = platform("Debian GNU/Linux 13", "linux", "env.txt");
    static final Platform WINDOWS_LOG = platform(null, "windows", "train.log");

    @Test
    void aWindowsJobLogSetsAsideTheCollectingMachinesLinux() {
        DiagnosisInput in = new DiagnosisInput(List.of(ERROR, LINUX_ENV, WINDOWS_LOG), List.of());
        assertThat(JobPlatform.settle(in).facts()).containsExactly(ERROR, WINDOWS_LOG);
    }

    @Test
    void aWsl2JobLogSetsAsideNativeLinux() {
        Platform wsl = platform(null, "wsl2", "train.log");
        DiagnosisInput in = new DiagnosisInput(List.of(ERROR, LINUX_ENV, wsl), List.of());
        assertThat(JobPlatform.settle(in).facts()).containsExactly(ERROR, wsl);
    }

    @Test
    void agreeingFilesAndAJobOutputThatNamesNoOsChangeNothing() {
        DiagnosisInput agree = new DiagnosisInput(List.of(ERROR, platform("Windows 11", "windows", "env.txt"), WINDOWS_LOG), List.of());
        assertThat(JobPlatform.settle(agree)).isSameAs(agree);
        DiagnosisInput silent = new DiagnosisInput(List.of(ERROR, LINUX_ENV), List.of());
        assertThat(JobPlatform.settle(silent)).isSameAs(silent);
    }

    @Test
    void onlyAnArtifactWithTheJobsOwnErrorsIsTheJobsOutput() {
        // a Windows statement in a file with no errors of the job (another listing) does not overrule env.txt
        DiagnosisInput in = new DiagnosisInput(List.of(ERROR, LINUX_ENV, platform(null, "windows", "notes.txt")), List.of());
        assertThat(JobPlatform.settle(in)).isSameAs(in);
    }

    @Test
    void aJobOutputThatContradictsItselfChangesNothing() {
        DiagnosisInput in = new DiagnosisInput(List.of(ERROR, LINUX_ENV, WINDOWS_LOG, platform(null, "wsl2", "train.log")), List.of());
        assertThat(JobPlatform.settle(in)).isSameAs(in);
    }
}
