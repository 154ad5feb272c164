package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CudaDriverProbeTest {

    @Test
    void namesTheMissingDriverLibraryInOneLine() {
        // the shape of JCuda's message where libcuda is absent (abridged; the real one nests two stack traces)
        UnsatisfiedLinkError e = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\"\n"
                + "Stack trace from the attempt to load the library as a resource:\n"
                + "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: "
                + "cannot open shared object file: No such file or directory\n\tat java.base/...");
        assertThat(CudaDriverProbe.describeLoadFailure(e)).isEqualTo("libcuda.so.1 not found (the CUDA driver is not installed)");
    }

    @Test
    void otherwiseKeepsTheFirstLineOfTheError() {
        assertThat(CudaDriverProbe.describeLoadFailure(new UnsatisfiedLinkError("something else\nmore")))
                .isEqualTo("UnsatisfiedLinkError: something else");
        assertThat(CudaDriverProbe.describeLoadFailure(new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver")))
                .startsWith("the JCuda driver bindings failed to initialise earlier");
    }

    @Test
    void refusesADriverTooOldForPtxIsa80() {
        CudaDriverProbe.Result r = CudaDriverProbe.judge(new CudaDevice("Tesla T4", 7, 5, 16L << 30, 40, 11080));
        assertThat(r.device()).isNull();
        assertThat(r.unavailableReason()).startsWith("no CUDA device: the CUDA driver (CUDA 11.8) is older than 12.0");
    }

    @Test
    void refusesADeviceOlderThanTheKernelsTarget() {
        CudaDriverProbe.Result r = CudaDriverProbe.judge(new CudaDevice("Tesla V100", 7, 0, 16L << 30, 80, 12040));
        assertThat(r.unavailableReason()).isEqualTo("no CUDA device: Tesla V100 has compute capability 7.0; the kernels need 7.5 or newer");
    }

    @Test
    void acceptsATuringCardOnACuda12Driver() {
        CudaDevice d = new CudaDevice("NVIDIA GeForce RTX 2060", 7, 5, 6L << 30, 30, 12000);
        assertThat(CudaDriverProbe.judge(d).device()).isEqualTo(d);
        assertThat(CudaDriverProbe.judge(d).unavailableReason()).isNull();
        assertThat(d.toString()).isEqualTo("NVIDIA GeForce RTX 2060 (sm_75, 6144 MiB, driver CUDA 12.0)");
    }
}
