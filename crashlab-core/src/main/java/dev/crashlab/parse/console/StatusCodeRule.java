package dev.crashlab.parse.console;

import dev.crashlab.fact.StatusCode;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads named status codes of the GPU libraries ({@code CUDNN_STATUS_*}, {@code CUBLAS_STATUS_*},
 * {@code CUDA_ERROR_*}, {@code cudaError*}, cuFFT/cuRAND/cuSOLVER/cuSPARSE, NCCL), the CUDA runtime's
 * messages that carry no name, numbered CUDA errors ({@code CUDA error = 999}, {@code THCudaCheck FAIL ... error=2}),
 * GPU architectures missing from a build, and NumPy ABI mismatches.
 */
final class StatusCodeRule {

    private static final Pattern NAMED = Pattern.compile(
            "\\b(CUDNN_STATUS_[A-Z_]{2,60}|CUBLAS_STATUS_[A-Z_]{2,60}|CUDA_ERROR_[A-Z_]{2,60}|cudaError[A-Z][A-Za-z]{1,60}"
                    + "|CUFFT_[A-Z_]{2,60}|CURAND_STATUS_[A-Z_]{2,60}|CUSOLVER_STATUS_[A-Z_]{2,60}|CUSPARSE_STATUS_[A-Z_]{2,60}"
                    + "|nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage|RemoteError)"
                    + "|VK_ERROR_[A-Z_]{2,60}|DXGI_ERROR_[A-Z_]{2,60})\\b");
    private static final Pattern ARCH = Pattern.compile(
            "(?:capability|with CUDA capability) (sm_\\d{2,3}) is not compatible with the current PyTorch installation");
    private static final Pattern OLD_ARCH = Pattern.compile("which is of cuda capability (\\d{1,2})\\.(\\d)");
    private static final Pattern NUMPY_API = Pattern.compile(
            "module compiled against (?:ABI|API) version (?:0x)?[0-9a-fA-F]{1,8} but this version of numpy is (?:0x)?[0-9a-fA-F]{1,8}");

    // "CUDA error = 999", "CUDA Error 2", "cuda runtime error (2) : out of memory", "CUDA error code 700"
    private static final Pattern NUMBERED = Pattern.compile(
            "(?i)\\bcuda(?: runtime)? error(?: code)?\\s{0,2}(?:[=:(#]\\s{0,2})?(\\d{1,4})\\b");
    // PyTorch 0.x/1.x: "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=66 error=2 : out of memory"
    private static final Pattern THC = Pattern.compile("THCudaCheck FAIL file=\\S{1,400} line=\\d{1,7} error=(\\d{1,4})");

    /**
     * cudaError_t values whose number means the same in every CUDA runtime (the enum of {@code driver_types.h}, as
     * the CUDA Runtime API reference lists it; 10.1 renumbered the launch and device errors, so the numbers of
     * only one era are kept where they do not collide with the other's).
     */
    private static final Map<Integer, String> RUNTIME_CODES = Map.ofEntries(
            Map.entry(2, "cudaErrorMemoryAllocation"),
            Map.entry(3, "cudaErrorInitializationError"), Map.entry(35, "cudaErrorInsufficientDriver"),
            Map.entry(46, "cudaErrorDevicesUnavailable"), Map.entry(100, "cudaErrorNoDevice"),
            Map.entry(101, "cudaErrorInvalidDevice"), Map.entry(209, "cudaErrorNoKernelImageForDevice"),
            Map.entry(214, "cudaErrorECCUncorrectable"), Map.entry(218, "cudaErrorInvalidPtx"),
            Map.entry(222, "cudaErrorUnsupportedPtxVersion"), Map.entry(700, "cudaErrorIllegalAddress"),
            Map.entry(701, "cudaErrorLaunchOutOfResources"), Map.entry(702, "cudaErrorLaunchTimeout"),
            Map.entry(710, "cudaErrorAssert"), Map.entry(715, "cudaErrorIllegalInstruction"),
            Map.entry(716, "cudaErrorMisalignedAddress"), Map.entry(719, "cudaErrorLaunchFailure"),
            Map.entry(803, "cudaErrorSystemDriverMismatch"), Map.entry(804, "cudaErrorCompatNotSupportedOnDevice"),
            Map.entry(999, "cudaErrorUnknown"));

    /** What a line holds when {@link #NUMBERED} or {@link #THC} can match (NUMBERED ignores case). */
    static final String[] NUMBERED_WORDS = {"uda error", "UDA error", "UDA Error", "UDA ERROR", "uda Error", "uda runtime error",
        "UDA runtime error", "UDA Runtime Error", "THCudaCheck"};

    /** CUDA runtime messages (as cudaGetErrorString prints them) and the error each one is. */
    private static final String[][] RUNTIME_MESSAGES = {
        {"CUDA driver version is insufficient for CUDA runtime version", "cudaErrorInsufficientDriver"},
        {"no kernel image is available for execution on the device", "cudaErrorNoKernelImageForDevice"},
        {"an illegal memory access was encountered", "cudaErrorIllegalAddress"},
        {"device-side assert triggered", "cudaErrorAssert"},
        {"unspecified launch failure", "cudaErrorLaunchFailure"},
        {"the launch timed out and was terminated", "cudaErrorLaunchTimeout"},
        {"no CUDA-capable device is detected", "cudaErrorNoDevice"},
        {"all CUDA-capable devices are busy or unavailable", "cudaErrorDevicesUnavailable"},
        {"misaligned address", "cudaErrorMisalignedAddress"},
        {"an illegal instruction was encountered", "cudaErrorIllegalInstruction"},
        {"uncorrectable ECC error encountered", "cudaErrorECCUncorrectable"},
        {"forward compatibility was attempted on non supported HW", "cudaErrorCompatNotSupportedOnDevice"},
    };

    /** Every literal one of this rule's checks needs (the reading pass's prefilter looks for these first). */
    static String[] literals() {
        List<String> out = new java.util.ArrayList<>(List.of("CUDNN_", "CUBLAS_", "CUDA_ERROR_", "cudaError", "CUFFT_", "CURAND_",
                "CUSOLVER_", "CUSPARSE_", "nccl", "VK_ERROR_", "DXGI_ERROR_", "is not compatible with the current PyTorch",
                "which is of cuda capability", "DEVICE LOST", "Device is lost", "device lost", "numpy", "NumPy", "_ARRAY_API"));
        out.addAll(List.of(NUMBERED_WORDS));
        for (String[] m : RUNTIME_MESSAGES) {
            out.add(m[0]);
        }
        return out.toArray(String[]::new);
    }

    /** Reads every status named on the line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (t.contains("CUDNN_") || t.contains("CUBLAS_") || t.contains("CUDA_ERROR_") || t.contains("cudaError")
                || t.contains("CUFFT_") || t.contains("CURAND_") || t.contains("CUSOLVER_") || t.contains("CUSPARSE_")
                || t.contains("nccl") || t.contains("VK_ERROR_") || t.contains("DXGI_ERROR_")) {
            Matcher m = NAMED.matcher(t);
            int found = 0;
            while (m.find() && found++ < 8) {
                String name = m.group(1);
                if (name.endsWith("_SUCCESS") || name.equals("cudaErrorSuccess")) {
                    continue;
                }
                out.add(new StatusCode(family(name), name, List.of()), line.ref());
            }
        }
        boolean runtimeMessage = t.contains("CUDA") || t.contains("cuda") || t.contains("kernel image") || t.contains("device-side")
                || t.contains("launch") || t.contains("illegal") || t.contains("misaligned") || t.contains("ECC")
                || t.contains("compatib");
        for (int i = 0; runtimeMessage && i < RUNTIME_MESSAGES.length; i++) {
            String[] msg = RUNTIME_MESSAGES[i];
            if (t.contains(msg[0]) && !(msg[1].equals("cudaErrorECCUncorrectable") && t.contains("CUDA_ERROR_ECC_UNCORRECTABLE"))
                    && !(msg[1].equals("cudaErrorLaunchFailure") && t.contains("CUDA_ERROR_LAUNCH_FAILED"))) {
                out.add(new StatusCode("cuda-runtime", msg[1], List.of()), line.ref());
            }
        }
        if (t.contains("is not compatible with the current PyTorch")) {
            Matcher m = ARCH.matcher(t);
            if (m.find()) {
                out.add(new StatusCode("arch", m.group(1), List.of()), line.ref());
            }
        }
        if (t.contains("which is of cuda capability")) {
            Matcher m = OLD_ARCH.matcher(t);
            if (m.find() && t.contains("no longer supports")) {
                out.add(new StatusCode("arch", "sm_" + m.group(1) + m.group(2), List.of()), line.ref());
            }
        }
        if (ExitStatusRule.containsAny(t, NUMBERED_WORDS)) {
            Matcher m = t.contains("THCudaCheck") ? THC.matcher(t) : NUMBERED.matcher(t);
            if (m.find()) {
                int code = Integer.parseInt(m.group(1));
                if (code != 0) {
                    // a number no era agrees on is kept as printed: "CUDA error 30" still says the runtime failed
                    out.add(new StatusCode("cuda-runtime", RUNTIME_CODES.getOrDefault(code, "CUDA error " + code), List.of()),
                            line.ref());
                }
            }
        }
        if (t.contains("DEVICE LOST") || t.contains("Device is lost") || t.contains("device lost")) {
            out.add(new StatusCode("gpu", "DEVICE_LOST", List.of()), line.ref());
        }
        numpy(line, out);
    }

    private static void numpy(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (!(t.contains("numpy") || t.contains("NumPy") || t.contains("_ARRAY_API"))) {
            return;
        }
        String name = null;
        if (t.contains("but this version of numpy is") && NUMPY_API.matcher(t).find()) {
            name = "API_VERSION_MISMATCH";
        } else if (t.contains("numpy.core.multiarray failed to import") || t.contains("numpy.core._multiarray_umath failed to import")) {
            name = "MULTIARRAY_IMPORT_FAILED";
        } else if (t.contains("compiled using NumPy 1.x cannot be run in")) {
            name = "NUMPY2_ABI";
        } else if (t.contains("numpy.dtype size changed") || t.contains("numpy.ndarray size changed")) {
            name = "DTYPE_SIZE_CHANGED";
        } else if (t.contains("_ARRAY_API not found")) {
            name = "ARRAY_API_NOT_FOUND";
        }
        if (name != null) {
            out.add(new StatusCode("numpy-abi", name, List.of()), line.ref());
        }
    }

    private static String family(String name) {
        if (name.startsWith("CUDNN_")) {
            return "cudnn";
        }
        if (name.startsWith("CUBLAS_")) {
            return "cublas";
        }
        if (name.startsWith("CUDA_ERROR_")) {
            return "cuda-driver";
        }
        if (name.startsWith("cudaError")) {
            return "cuda-runtime";
        }
        if (name.startsWith("CUFFT_")) {
            return "cufft";
        }
        if (name.startsWith("CURAND_")) {
            return "curand";
        }
        if (name.startsWith("CUSOLVER_")) {
            return "cusolver";
        }
        if (name.startsWith("CUSPARSE_")) {
            return "cusparse";
        }
        if (name.startsWith("nccl")) {
            return "nccl";
        }
        return name.startsWith("VK_") ? "vulkan" : "dxgi";
    }
}
