package dev.crashlab.sniff;

import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Lists the lines that only program output contains: Python tracebacks, framework log lines, fatal
 * signals and exit codes, CUDA/cuDNN error statuses.
 *
 * <p>Each marker alone is enough to call a file a console log, so each must be specific: a marker that
 * also fires on an event log or an environment listing would steal those files. Many real crash logs
 * are a single such line ("Killed", one {@code ImportError}), which is why one marker suffices.
 */
final class ConsoleMarkers {

    private ConsoleMarkers() {}

    /**
     * One console-output marker.
     *
     * @param name     a short id for test messages
     * @param example  a line it recognises (checked by a test)
     * @param matches  the test, applied to a trimmed line
     */
    record Marker(String name, String example, Predicate<String> matches) {}

    // 2021-11-22 23:55:07.019016: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened ...
    private static final Pattern TF_LOG = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{1,9}: [IWEF] \\S");
    // I1209 16:36:56.860446 139725186250560 coordinator.py:224] Error reported to Coordinator
    private static final Pattern GLOG = Pattern.compile("^[IWEF]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{1,9} {1,8}\\d{1,20} [^\\s:]{1,200}+:\\d{1,7}\\]");
    // F tensorflow/core/kernels/conv_ops.cc:667] Check failed: ...
    private static final Pattern TF_SHORT = Pattern.compile("^[IWEF] (?:tensorflow|external|xla|third_party)/[^\\s:]{1,300}+:\\d{1,7}\\]");
    // Epoch 3/50
    private static final Pattern EPOCH = Pattern.compile("^Epoch \\d{1,6}/\\d{1,6}\\b");
    // 1875/1875 [==============================] - 12s 6ms/step - loss: 0.1432
    private static final Pattern KERAS_PROGRESS = Pattern.compile("^\\d{1,9}/\\d{1,9} \\[[=>.]{3,200}+\\]");

    /** Holds the markers, most common first (the order only affects speed). */
    static final List<Marker> ALL = List.of(
            new Marker("python-traceback", "Traceback (most recent call last):",
                    t -> t.contains("Traceback (most recent call last)")),
            new Marker("python-frame", "  File \"/opt/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py\", line 456, in forward",
                    t -> t.startsWith("File \"") && t.contains("\", line ")),
            new Marker("python-exception", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                    ConsoleMarkers::isExceptionLine),
            new Marker("fatal-python-error", "Fatal Python error: Segmentation fault", t -> t.contains("Fatal Python error")),
            new Marker("tensorflow-log", "2023-04-01 10:00:00.123456: W tensorflow/tsl/framework/bfc_allocator.cc:479] Allocator ran out of memory",
                    t -> startsWithDigit(t) && TF_LOG.matcher(t).lookingAt()),
            new Marker("glog", "E0401 10:00:00.123456  4242 cuda_dnn.cc:535] Could not create cudnn handle",
                    t -> t.length() > 1 && isSeverity(t.charAt(0)) && Character.isDigit(t.charAt(1))
                            && GLOG.matcher(t).lookingAt()),
            new Marker("tensorflow-log-short", "F tensorflow/stream_executor/cuda/cuda_dnn.cc:521] could not set cudnn tensor descriptor",
                    t -> t.length() > 1 && isSeverity(t.charAt(0)) && t.charAt(1) == ' ' && TF_SHORT.matcher(t).lookingAt()),
            new Marker("exit-code", "Process finished with exit code -1073740791 (0xC0000409)", ConsoleMarkers::isExitCode),
            new Marker("fatal-signal", "Segmentation fault (core dumped)", ConsoleMarkers::isFatalSignal),
            new Marker("glibc-abort", "*** Error in `python3': free(): invalid pointer: 0x00007f3a2c001230 ***",
                    t -> t.startsWith("*** Error in `") || t.contains("double free or corruption")
                            || t.startsWith("terminate called after throwing")),
            new Marker("cuda-status", "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", ConsoleMarkers::hasCudaStatus),
            new Marker("framework-error", "2 root error(s) found.", ConsoleMarkers::isFrameworkError),
            new Marker("library-load", "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file",
                    ConsoleMarkers::isLibraryLoadFailure),
            new Marker("keras-progress", "Epoch 1/20", t -> t.startsWith("Epoch ") && EPOCH.matcher(t).lookingAt()
                            || startsWithDigit(t) && KERAS_PROGRESS.matcher(t).lookingAt()),
            new Marker("pytorch-cudnn-repro", "torch.backends.cudnn.benchmark = True",
                    t -> t.startsWith("torch.backends.cudnn.") || t.startsWith("ConvolutionParams")
                            || t.contains("You can try to repro this exception")));

    // Cheap guards in front of the anchored regexes (each regex needs them to match): most lines fail them, and a
    // matcher is never made for those.
    private static boolean startsWithDigit(String t) {
        return !t.isEmpty() && t.charAt(0) >= '0' && t.charAt(0) <= '9';
    }

    private static boolean isSeverity(char c) {
        return c == 'I' || c == 'W' || c == 'E' || c == 'F';
    }

    /** Returns the index of the first line (anywhere in the text) that any marker matches, or -1. */
    static int firstLine(SniffText text) {
        // a run of equal lines (progress output, a repeated warning) is tested once, and stepped over at once
        for (int i = text.firstNonBlank(); i >= 0 && i < text.size(); i = text.nextDifferent(i)) {
            if (matches(text.trimmed(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Tells whether a trimmed line is console output by any marker. */
    static boolean matches(String trimmed) {
        for (Marker m : ALL) {
            if (m.matches().test(trimmed)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Recognises a Python exception line ({@code ValueError: ...}, {@code a.b.InternalError: ...},
     * {@code ResourceExhaustedError (see above for traceback): ...}) by scanning the leading dotted name,
     * because a regex over it would backtrack on long identifier runs.
     */
    static boolean isExceptionLine(String t) {
        int i = 0;
        int n = Math.min(t.length(), 300);
        while (i < n) {
            char c = t.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '.')) {
                break;
            }
            i++;
        }
        if (i == 0 || !Character.isLetter(t.charAt(0))) {
            return false;
        }
        String name = t.substring(0, i);
        String simple = name.substring(name.lastIndexOf('.') + 1);
        // A bare "Exception code:" / "Error:" is an event-log field or a heading, not a Python class.
        boolean pythonish = (simple.endsWith("Error") && simple.length() > 5)
                || (simple.endsWith("Exception") && simple.length() > 9)
                || simple.equals("KeyboardInterrupt") || simple.equals("SystemExit");
        if (!pythonish) {
            return false;
        }
        return i == t.length() || t.charAt(i) == ':' || t.startsWith(" (", i);
    }

    private static boolean isExitCode(String t) {
        if (t.contains("Process finished with exit code") || t.contains("进程已结束")) {
            return true;
        }
        // "... exited with code -1073740791 (0xC0000409)": an NTSTATUS in parentheses is how Windows
        // shells and IDEs report a crashed process.
        int p = t.indexOf("(0x");
        while (p >= 0 && p + 12 <= t.length()) {
            String hex = t.substring(p + 3, p + 11);
            if (t.charAt(p + 11) == ')' && (hex.startsWith("C0000") || hex.startsWith("c0000"))) {
                return true;
            }
            p = t.indexOf("(0x", p + 3);
        }
        return false;
    }

    private static boolean isFatalSignal(String t) {
        return t.equals("Killed") || t.startsWith("Segmentation fault") || t.startsWith("Aborted (core dumped)")
                || t.startsWith("Illegal instruction") || t.startsWith("Bus error (core dumped)")
                || t.startsWith("Floating point exception") || t.endsWith(": Killed")
                || t.contains("Segmentation fault (core dumped)");
    }

    private static boolean hasCudaStatus(String t) {
        return t.contains("CUDNN_STATUS_") || t.contains("CUBLAS_STATUS_") || t.contains("CUDA_ERROR_")
                || t.contains("CUSOLVER_STATUS_") || t.contains("CUFFT_") || t.contains("CUDA out of memory")
                || t.contains("OOM when allocating") || t.contains("CUDA error: ") || t.contains("cuda runtime error")
                || t.contains("cudaErrorMemoryAllocation") || t.contains("NCCL error");
    }

    /** Recognises TensorFlow and PyTorch runtime errors that are printed without a traceback. */
    private static boolean isFrameworkError(String t) {
        return t.contains("root error(s) found") || t.contains("Failed to get convolution algorithm")
                || t.contains("is not compatible with the current PyTorch installation")
                || t.contains("no kernel image is available for execution");
    }

    private static boolean isLibraryLoadFailure(String t) {
        String l = SniffText.lower(t);
        return l.contains("could not load dynamic library") || l.contains("dll load failed")
                || l.contains("cannot open shared object file") || l.startsWith("could not load library ")
                || l.contains("[winerror ") || (l.contains("could not find '") && l.contains(".dll"));
    }
}
