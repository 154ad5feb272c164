package dev.crashlab.conv;

import java.util.Optional;

/**
 * Opens a backend by name: the CPU backend directly, the CUDA backend by reflection, so this code compiles and
 * runs without it and without a CUDA driver.
 *
 * <p>NOTE: the CUDA backend's class is expected to have a public no-argument constructor that probes the
 * device without failing (it reports a missing driver through {@link ConvBackend#unavailableReason()}). Any
 * error while loading it (the class absent, a native library missing) becomes an unavailable backend with the
 * reason, never an exception or a crash.
 */
public final class ConvBackends {

    /** The CUDA backend's class, provided by the {@code repro/cuda} package when it is part of the build. */
    public static final String CUDA_CLASS = "dev.crashlab.conv.cuda.CudaConvBackend";

    private ConvBackends() {}

    /** Opens {@code cpu} or {@code cuda}; an unknown name is an {@link IllegalArgumentException}. */
    public static ConvBackend open(String name) {
        return switch (name) {
            case "cpu" -> new CpuConvBackend();
            case "cuda" -> cuda();
            default -> throw new IllegalArgumentException("unknown backend " + name + " (cpu or cuda)");
        };
    }

    private static ConvBackend cuda() {
        Class<?> type;
        try {
            type = Class.forName(CUDA_CLASS);
        } catch (ClassNotFoundException | LinkageError e) {
            return new Unavailable("cuda", "the CUDA backend is not part of this build (" + CUDA_CLASS + " not found)");
        }
        try {
            return (ConvBackend) type.getConstructor().newInstance();
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new Unavailable("cuda", "the CUDA backend failed to start: " + cause);
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            return new Unavailable("cuda", "the CUDA backend could not be loaded: " + e);
        }
    }

    /** Stands in for a backend that cannot run here, saying why. */
    static final class Unavailable implements ConvBackend {
        private final String name;
        private final String reason;

        Unavailable(String name, String reason) {
            this.name = name;
            this.reason = reason;
        }

        @Override public String name() { return name; }
        @Override public Optional<String> unavailableReason() { return Optional.of(reason); }
        @Override public String device() { return "none"; }
        @Override public void memoryCap(long bytes) { }

        @Override
        public PassResult forward(ConvProblem p, float[] x, float[] w) throws BackendException {
            throw new DeviceError("UNAVAILABLE", reason);
        }

        @Override
        public PassResult backwardData(ConvProblem p, float[] dy, float[] w) throws BackendException {
            throw new DeviceError("UNAVAILABLE", reason);
        }

        @Override
        public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) throws BackendException {
            throw new DeviceError("UNAVAILABLE", reason);
        }

        @Override public void close() { }
    }
}
