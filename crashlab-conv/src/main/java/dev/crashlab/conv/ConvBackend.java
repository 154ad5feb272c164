package dev.crashlab.conv;

import java.util.Optional;

/**
 * Runs the three passes of one convolution on some hardware: the seam between the replay (which
 * decides what to run and judges the result) and a backend (the pure-Java CPU reference, or CUDA).
 *
 * <p>NOTE: tensors cross this interface as float32 host arrays, activations in the problem's
 * {@link ConvProblem#layout()} (NCHW: channels first, (N, C, spatial...); NHWC: channels last,
 * (N, spatial..., C)), whatever {@link ConvProblem#dtype()} says; a backend that computes in the other order
 * converts explicitly on the way in and out (the CPU backend counts the copies in {@code peakBytes}), never
 * silently replaying one layout as the other; a backend that computes in a half type converts on the way
 * in and out (so its rounding shows up in the numeric check, as it would for the reporter). Filters are
 * (K, C/groups, kernel...) for a convolution and (C, K/groups, kernel...) for a transposed one.
 * A backend is not thread-safe; one replay uses one backend at a time.
 */
public interface ConvBackend extends AutoCloseable {

    /** A short name for reports: {@code cpu}, {@code cuda}. */
    String name();

    /** Why this backend cannot run here (e.g. {@code no CUDA device: libcuda.so.1 not found}), or empty. */
    Optional<String> unavailableReason();

    /** The device this backend runs on, for reports ({@code NVIDIA H100 80GB HBM3}, {@code 16-core CPU}). */
    String device();

    /**
     * Caps the memory this backend may allocate for tensors and workspace, in bytes, to emulate a smaller
     * card; 0 means no cap beyond the device's own.
     */
    void memoryCap(long bytes);

    /** Computes y = conv(x, w). */
    PassResult forward(ConvProblem p, float[] x, float[] w) throws BackendException;

    /** Computes dx from dy and w (the gradient of the input). */
    PassResult backwardData(ConvProblem p, float[] dy, float[] w) throws BackendException;

    /** Computes dw from x and dy (the gradient of the filter). */
    PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) throws BackendException;

    /**
     * Computes y = conv(x, w) into {@code y}, an array the caller owns and may reuse from pass to pass: whatever it
     * holds on entry is overwritten, and the result's {@link PassResult#output()} is {@code y} itself. A replay
     * reuses its arrays across passes and layers, so that no pass pays for allocating (and zeroing) a fresh one.
     *
     * @throws IllegalArgumentException if {@code y} does not have {@link ConvProblem#outputElements()} elements
     */
    default PassResult forward(ConvProblem p, float[] x, float[] w, float[] y) throws BackendException {
        checkOutput("y", y, p.outputElements());
        return copiedInto(forward(p, x, w), y);
    }

    /** Computes dx into {@code dx}, which the caller owns (see {@link #forward(ConvProblem, float[], float[], float[])}). */
    default PassResult backwardData(ConvProblem p, float[] dy, float[] w, float[] dx) throws BackendException {
        checkOutput("dx", dx, p.inputElements());
        return copiedInto(backwardData(p, dy, w), dx);
    }

    /** Computes dw into {@code dw}, which the caller owns (see {@link #forward(ConvProblem, float[], float[], float[])}). */
    default PassResult backwardFilter(ConvProblem p, float[] x, float[] dy, float[] dw) throws BackendException {
        checkOutput("dw", dw, p.filterElements());
        return copiedInto(backwardFilter(p, x, dy), dw);
    }

    /** Refuses an output array of the wrong size before anything runs. */
    static void checkOutput(String what, float[] out, long elements) {
        if (out == null || out.length != elements) {
            throw new IllegalArgumentException("the output array " + what + " must have " + elements + " elements, has "
                    + (out == null ? "none" : out.length));
        }
    }

    // A backend without its own overloads computes into a new array and copies it into the caller's (an output of
    // the wrong size is handed back as it is, for the caller's check to report).
    private static PassResult copiedInto(PassResult r, float[] out) {
        if (r.output() == null || r.output().length != out.length) {
            return r;
        }
        if (r.output() != out) {
            System.arraycopy(r.output(), 0, out, 0, out.length);
        }
        return new PassResult(out, r.kernelMillis(), r.peakBytes());
    }

    @Override
    void close();

    /**
     * What one pass produced.
     *
     * @param output the result tensor, float32, in the problem's layout
     * @param kernelMillis time spent in the computation itself (device time for a GPU, from events), not copies
     * @param peakBytes the most memory the pass held on the device at once (tensors plus workspace)
     */
    record PassResult(float[] output, double kernelMillis, long peakBytes) {}

    /** A pass failed the way the reporter's framework would have seen it. */
    sealed class BackendException extends Exception permits OutOfMemory, DeviceError {
        BackendException(String message) {
            super(message);
        }
    }

    /** An allocation did not fit: the device's memory, or the cap that emulates the reporter's card. */
    final class OutOfMemory extends BackendException {
        private final long requestedBytes;
        private final long availableBytes;

        public OutOfMemory(String what, long requestedBytes, long availableBytes) {
            super("out of memory allocating " + what + ": " + requestedBytes + " bytes requested, "
                    + availableBytes + " available");
            this.requestedBytes = requestedBytes;
            this.availableBytes = availableBytes;
        }

        public long requestedBytes() {
            return requestedBytes;
        }

        public long availableBytes() {
            return availableBytes;
        }
    }

    /** The device reported an error ({@code CUDA_ERROR_ILLEGAL_ADDRESS}, {@code CUDA_ERROR_LAUNCH_TIMEOUT}...). */
    final class DeviceError extends BackendException {
        private final String errorName;

        public DeviceError(String errorName, String message) {
            super(errorName + ": " + message);
            this.errorName = errorName;
        }

        /** The error's symbolic name, as the vendor's API spells it. */
        public String errorName() {
            return errorName;
        }
    }
}
