package dev.crashlab.conv.cuda;

import dev.crashlab.conv.ConvBackend.DeviceError;
import java.util.Set;

/** Turns driver API result codes into {@link DeviceError}s named as the driver names them. */
final class CudaCalls {

    /**
     * Errors after which the context is unusable: per the CUDA Driver API reference, "the process [is left]
     * in an inconsistent state and any further CUDA work will return the same error".
     */
    static final Set<String> STICKY = Set.of("CUDA_ERROR_ECC_UNCORRECTABLE", "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ASSERT", "CUDA_ERROR_HARDWARE_STACK_ERROR",
            "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_INVALID_ADDRESS_SPACE",
            "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED");

    private CudaCalls() {
    }

    /** Throws a {@link DeviceError} named after {@code rc} unless it is {@code CUDA_SUCCESS}. */
    static void check(int rc, String call) throws DeviceError {
        if (rc != 0) {
            throw error(rc, call);
        }
    }

    static DeviceError error(int rc, String call) {
        return new DeviceError(CudaErrorNames.name(rc), call + " returned " + rc);
    }

    static boolean isSticky(String errorName) {
        return STICKY.contains(errorName);
    }
}
