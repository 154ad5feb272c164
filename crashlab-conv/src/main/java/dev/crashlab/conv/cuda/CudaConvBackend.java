package dev.crashlab.conv.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemsetD32;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvProblem;
import dev.crashlab.conv.ConvProblem.DType;
import dev.crashlab.conv.Layouts;
import java.util.Optional;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Runs convolution passes on the first CUDA device through the JCuda driver API, with our own kernels
 * ({@code src/main/cuda}) loaded from committed PTX.
 *
 * <p>NOTE: the constructor touches nothing native; the driver is probed once per JVM on first use, and a
 * machine without one gets {@link #unavailableReason()} = {@code no CUDA device: <why>} (running a pass there
 * is an {@link IllegalStateException}). Allocations are charged against {@link #memoryCap(long)}; the one
 * that would cross it fails with {@link ConvBackend.OutOfMemory} as the reporter's framework failed. A pass's
 * {@code kernelMillis} is the device time between two CUDA events around its kernels (the filter gradient's
 * zeroing and rounding included, the copies not); judging it (a Windows TDR limit of 2 s) is the replay's job.
 * After an error that leaves the context unusable (an illegal address, a launch timeout) every later pass
 * fails with the same error's name: the process must be restarted, as for the reporter.
 */
public final class CudaConvBackend implements ConvBackend {

    private final DeviceMemoryBudget budget = new DeviceMemoryBudget();
    private CudaContext context;
    private String unusableAfter;

    /** Creates the backend; nothing is probed or allocated until first use. */
    public CudaConvBackend() {
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(CudaDriverProbe.result().unavailableReason());
    }

    @Override
    public String device() {
        CudaDevice d = CudaDriverProbe.result().device();
        return d == null ? "no CUDA device" : d.name();
    }

    /** The device's details (compute capability, memory, driver), when there is one. */
    public Optional<CudaDevice> deviceInfo() {
        return Optional.ofNullable(CudaDriverProbe.result().device());
    }

    @Override
    public void memoryCap(long bytes) {
        budget.cap(bytes);
    }

    @Override
    public PassResult forward(ConvProblem p, float[] x, float[] w) throws BackendException {
        requireLength(p, "x", x, p.inputElements());
        requireLength(p, "w", w, p.filterElements());
        if (p.layout() == ConvProblem.Layout.NHWC) {
            // the kernels compute channels-first: explicit copies in and out, on the host
            PassResult r = forward(channelsFirst(p), firstIn(p, x), w);
            return new PassResult(lastOut(p, r.output()), r.kernelMillis(), r.peakBytes());
        }
        // a transposed layer's forward pass is the backward-data pass of the convolution it transposes
        return p.transposed()
                ? run(p, KernelPass.BACKWARD_DATA, x, "x (input)", w, "w (filter)", p.outputElements(), "y (output)")
                : run(p, KernelPass.FORWARD, x, "x (input)", w, "w (filter)", p.outputElements(), "y (output)");
    }

    @Override
    public PassResult backwardData(ConvProblem p, float[] dy, float[] w) throws BackendException {
        requireLength(p, "dy", dy, p.outputElements());
        requireLength(p, "w", w, p.filterElements());
        if (p.layout() == ConvProblem.Layout.NHWC) {
            PassResult r = backwardData(channelsFirst(p), firstOut(p, dy), w);
            return new PassResult(lastIn(p, r.output()), r.kernelMillis(), r.peakBytes());
        }
        return p.transposed()
                ? run(p, KernelPass.FORWARD, dy, "dy (output gradient)", w, "w (filter)", p.inputElements(), "dx (input gradient)")
                : run(p, KernelPass.BACKWARD_DATA, dy, "dy (output gradient)", w, "w (filter)", p.inputElements(),
                        "dx (input gradient)");
    }

    @Override
    public PassResult backwardFilter(ConvProblem p, float[] x, float[] dy) throws BackendException {
        requireLength(p, "x", x, p.inputElements());
        requireLength(p, "dy", dy, p.outputElements());
        if (p.layout() == ConvProblem.Layout.NHWC) {
            return backwardFilter(channelsFirst(p), firstIn(p, x), firstOut(p, dy));
        }
        // for a transposed layer the roles swap: its output gradient is the direct convolution's input
        return p.transposed()
                ? run(p, KernelPass.BACKWARD_FILTER, dy, "dy (output gradient)", x, "x (input)", p.filterElements(),
                        "dw (filter gradient)")
                : run(p, KernelPass.BACKWARD_FILTER, x, "x (input)", dy, "dy (output gradient)", p.filterElements(),
                        "dw (filter gradient)");
    }

    private static ConvProblem channelsFirst(ConvProblem p) {
        return new ConvProblem(p.name(), p.rank(), p.batch(), p.inChannels(), p.inDims(), p.outChannels(), p.kernel(),
                p.stride(), p.padBegin(), p.padEnd(), p.dilation(), p.groups(), p.dtype(), ConvProblem.Layout.NCHW,
                p.transposed());
    }

    private static float[] firstIn(ConvProblem p, float[] a) {
        return Layouts.toChannelsFirst(a, p.batch(), p.inChannels(), (int) (a.length / p.batch() / p.inChannels()));
    }

    private static float[] firstOut(ConvProblem p, float[] a) {
        return Layouts.toChannelsFirst(a, p.batch(), p.outChannels(), (int) (a.length / p.batch() / p.outChannels()));
    }

    private static float[] lastIn(ConvProblem p, float[] a) {
        return Layouts.toChannelsLast(a, p.batch(), p.inChannels(), (int) (a.length / p.batch() / p.inChannels()));
    }

    private static float[] lastOut(ConvProblem p, float[] a) {
        return Layouts.toChannelsLast(a, p.batch(), p.outChannels(), (int) (a.length / p.batch() / p.outChannels()));
    }

    /**
     * Runs one kernel pass: uploads the two operands ({@code a}, {@code b} in the kernel's parameter order),
     * launches the plan between two events, and downloads the result.
     */
    private PassResult run(ConvProblem p, KernelPass pass, float[] a, String aName, float[] b, String bName,
            long outElements, String outName) throws BackendException {
        CudaDevice device = requireDevice();
        if (unusableAfter != null) {
            throw new DeviceError(unusableAfter, "the CUDA context is unusable after an earlier " + unusableAfter
                    + " (the process must be restarted)");
        }
        if (outElements > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(p.name() + ": " + outName + " has " + outElements
                    + " elements, more than a Java array holds");
        }
        ConvGeometry g = ConvGeometry.of(p);
        ConvLaunchPlan plan;
        try {
            plan = ConvLaunchPlan.plan(g, pass, p.dtype(), device.multiprocessors());
        } catch (IllegalArgumentException e) {
            throw new DeviceError("CUDA_ERROR_INVALID_VALUE", "refused before launch: " + e.getMessage());
        }
        DType dtype = p.dtype();
        try {
            if (context == null) {
                context = CudaContext.open();
            }
            context.makeCurrent();
            budget.resetPeak();
            try (DeviceBuffers mem = new DeviceBuffers(budget)) {
                DeviceBuffers.Buffer in1 = mem.upload(aName, a, dtype);
                DeviceBuffers.Buffer in2 = mem.upload(bName, b, dtype);
                DeviceBuffers.Buffer out = mem.allocate(outName, outElements * dtype.bytes);
                // the filter gradient accumulates in float32 across reduction slices; half types round it after
                DeviceBuffers.Buffer acc = pass == KernelPass.BACKWARD_FILTER && dtype != DType.FLOAT32
                        ? mem.allocate("dw accumulator (float32 workspace)", outElements * 4)
                        : out;
                CUfunction kernel = context.function(pass.module, plan.kernel());
                context.startTimer();
                if (pass == KernelPass.BACKWARD_FILTER) {
                    CudaCalls.check(cuMemsetD32(acc.pointer(), 0, outElements), "cuMemsetD32 (zeroing dw)");
                }
                for (ConvLaunchPlan.GroupRun run : plan.launches()) {
                    Pointer params = Pointer.to(Pointer.to(g.kernelArgument(run.groupBase(), plan.splitK())),
                            Pointer.to(in1.pointer()), Pointer.to(in2.pointer()), Pointer.to(acc.pointer()));
                    CudaCalls.check(cuLaunchKernel(kernel, plan.gridX(), plan.gridY(), run.groups() * plan.splitK(),
                            ConvLaunchPlan.THREADS, 1, 1, 0, null, params, null), "cuLaunchKernel(" + plan.kernel() + ")");
                }
                if (acc != out) {
                    String rounding = "convert_f32_to_" + ConvLaunchPlan.typeSuffix(dtype);
                    Pointer params = Pointer.to(Pointer.to(acc.pointer()), Pointer.to(out.pointer()),
                            Pointer.to(new long[] {outElements}));
                    CudaCalls.check(cuLaunchKernel(context.function(pass.module, rounding),
                            ConvLaunchPlan.roundingBlocks(outElements), 1, 1, ConvLaunchPlan.THREADS, 1, 1, 0, null,
                            params, null), "cuLaunchKernel(" + rounding + ")");
                }
                float millis = context.stopTimer();
                float[] result = mem.download(out, (int) outElements, dtype);
                return new PassResult(result, millis, budget.peak());
            }
        } catch (DeviceError e) {
            if (CudaCalls.isSticky(e.errorName())) {
                unusableAfter = e.errorName();
            }
            throw e;
        }
    }

    private static CudaDevice requireDevice() {
        CudaDriverProbe.Result probe = CudaDriverProbe.result();
        if (probe.device() == null) {
            throw new IllegalStateException(probe.unavailableReason());
        }
        return probe.device();
    }

    private static void requireLength(ConvProblem p, String what, float[] v, long expected) {
        if (v == null || v.length != expected) {
            throw new IllegalArgumentException(p.name() + ": " + what + " needs " + expected + " elements, got "
                    + (v == null ? "none" : v.length));
        }
    }

    @Override
    public void close() {
        if (context != null) {
            context.close();
            context = null;
        }
    }
}
