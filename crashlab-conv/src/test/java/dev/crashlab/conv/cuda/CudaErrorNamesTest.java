package dev.crashlab.conv.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.driver.CUresult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CudaErrorNamesTest {

    @ParameterizedTest
    @CsvSource({
        "0, CUDA_SUCCESS",
        "1, CUDA_ERROR_INVALID_VALUE",
        "2, CUDA_ERROR_OUT_OF_MEMORY",
        "100, CUDA_ERROR_NO_DEVICE",
        "209, CUDA_ERROR_NO_BINARY_FOR_GPU",
        "218, CUDA_ERROR_INVALID_PTX",
        "222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "700, CUDA_ERROR_ILLEGAL_ADDRESS",
        "701, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        "702, CUDA_ERROR_LAUNCH_TIMEOUT",
        "719, CUDA_ERROR_LAUNCH_FAILED",
        "999, CUDA_ERROR_UNKNOWN",
    })
    void namesTheCodesAReplayMeets(int code, String name) {
        assertThat(CudaErrorNames.name(code)).isEqualTo(name);
    }

    @Test
    void aCodeItDoesNotKnowIsShownAsANumberNotGuessed() {
        assertThat(CudaErrorNames.name(12345)).isEqualTo("CUresult 12345");
        assertThat(CudaErrorNames.name(-1)).isEqualTo("CUresult -1");
    }

    @Test
    void agreesWithJCudasOwnTableWhereBothKnowACode() {
        // JCuda's CUresult is plain Java (no natives): an independent transcription of the same header
        int compared = 0;
        for (Map.Entry<Integer, String> e : CudaErrorNames.all().entrySet()) {
            String theirs = CUresult.stringFor(e.getKey());
            if (theirs.startsWith("INVALID CUresult")) {
                continue; // newer than JCuda 12.6
            }
            assertThat(theirs).as("code %d", e.getKey()).isEqualTo(e.getValue());
            compared++;
        }
        assertThat(compared).isGreaterThan(90);
    }

    @Test
    void coversEveryCodeOfTheInstalledCudaHeader() throws IOException {
        Path header = Path.of("/usr/local/cuda/include/cuda.h");
        assumeTrue(Files.isRegularFile(header), "no CUDA toolkit header at " + header);
        Map<Integer, String> declared = new LinkedHashMap<>();
        Matcher m = Pattern.compile("\\b(CUDA_(?:SUCCESS|ERROR_[A-Z0-9_]+))\\s*=\\s*(\\d+)").matcher(Files.readString(header));
        while (m.find()) {
            declared.putIfAbsent(Integer.parseInt(m.group(2)), m.group(1));
        }
        assertThat(declared).isNotEmpty();
        declared.forEach((code, name) -> assertThat(CudaErrorNames.name(code)).as("code %d", code).isEqualTo(name));
    }

    @Test
    void theErrorsThatPoisonAContextAreRealNamesAndAnOrdinaryFailureIsNotOne() {
        assertThat(CudaErrorNames.all().values()).containsAll(CudaCalls.STICKY);
        assertThat(CudaCalls.isSticky(CudaErrorNames.name(700))).isTrue();
        assertThat(CudaCalls.isSticky(CudaErrorNames.name(702))).isTrue();
        assertThat(CudaCalls.isSticky(CudaErrorNames.name(2))).as("out of memory leaves the context usable").isFalse();
        assertThat(CudaCalls.error(702, "cuEventSynchronize").errorName()).isEqualTo("CUDA_ERROR_LAUNCH_TIMEOUT");
        assertThat(CudaCalls.error(702, "cuEventSynchronize").getMessage())
                .isEqualTo("CUDA_ERROR_LAUNCH_TIMEOUT: cuEventSynchronize returned 702");
    }
}
