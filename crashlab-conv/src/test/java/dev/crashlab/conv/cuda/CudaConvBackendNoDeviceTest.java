package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvProblem;
import org.junit.jupiter.api.Test;

/** On a machine without a usable device the backend says why, once, and never brings the JVM down. */
class CudaConvBackendNoDeviceTest {

    @Test
    void reportsNoCudaDeviceWithTheReasonAndRefusesToRun() {
        // the name the replay loads reflectively, with a public no-arg constructor
        ConvBackend backend = assertThatLoadsReflectively();
        assumeTrue(backend.unavailableReason().isPresent(), "a CUDA device is present: the GPU tests cover it");
        String reason = backend.unavailableReason().orElseThrow();
        System.out.println("CudaConvBackend here: " + reason);
        assertThat(reason).startsWith("no CUDA device: ").doesNotContain("\n");
        assertThat(backend.name()).isEqualTo("cuda");
        assertThat(backend.device()).isEqualTo("no CUDA device");
        ConvProblem p = ConvGeometryTest.conv(1, 1, 1, new int[] {4}, 1, new int[] {3}, new int[] {1}, new int[] {0},
                new int[] {0}, new int[] {1}, 1, false);
        assertThatThrownBy(() -> backend.forward(p, new float[4], new float[3]))
                .isInstanceOf(IllegalStateException.class).hasMessage(reason);
        // asked again (a second backend, as a second replay in the same JVM would): the same cached answer
        try (ConvBackend again = new CudaConvBackend()) {
            assertThat(again.unavailableReason()).contains(reason);
        }
        backend.close();
    }

    private static ConvBackend assertThatLoadsReflectively() {
        try {
            Object o = Class.forName("dev.crashlab.conv.cuda.CudaConvBackend").getConstructor().newInstance();
            assertThat(o).isInstanceOf(ConvBackend.class);
            return (ConvBackend) o;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("the replay cannot load the CUDA backend by name", e);
        }
    }

    @Test
    void theProbeRunsOncePerJvm() {
        assertThat(CudaDriverProbe.result()).isSameAs(CudaDriverProbe.result());
    }
}
