package dev.crashlab.conv.cuda;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import dev.crashlab.conv.ConvBackend.DeviceError;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * Holds device 0's primary context with the kernels' PTX modules loaded (the driver JIT-compiles them for the
 * device) and the pair of events that time a pass.
 *
 * <p>NOTE: the primary context is the one a framework's runtime API uses, so a replay meets the same context
 * limits the reporter's process met.
 */
final class CudaContext implements AutoCloseable {

    private final CUdevice device;
    private final CUcontext context;
    private final Map<String, CUmodule> modules = new LinkedHashMap<>();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final CUevent start = new CUevent();
    private final CUevent stop = new CUevent();
    private int eventsCreated;

    private CudaContext(CUdevice device, CUcontext context) {
        this.device = device;
        this.context = context;
    }

    /** Creates the context and loads every module; on failure nothing stays allocated. */
    static CudaContext open() throws DeviceError {
        CUdevice device = new CUdevice();
        CudaCalls.check(cuDeviceGet(device, 0), "cuDeviceGet(0)");
        CUcontext ctx = new CUcontext();
        CudaCalls.check(cuDevicePrimaryCtxRetain(ctx, device), "cuDevicePrimaryCtxRetain");
        CudaContext c = new CudaContext(device, ctx);
        try {
            c.makeCurrent();
            for (String name : PtxModules.NAMES) {
                CUmodule module = new CUmodule();
                // JIT failures land here: CUDA_ERROR_INVALID_PTX, CUDA_ERROR_UNSUPPORTED_PTX_VERSION...
                CudaCalls.check(cuModuleLoadData(module, PtxModules.image(name)), "cuModuleLoadData(" + name + ".ptx)");
                c.modules.put(name, module);
            }
            CudaCalls.check(cuEventCreate(c.start, 0), "cuEventCreate");
            c.eventsCreated++;
            CudaCalls.check(cuEventCreate(c.stop, 0), "cuEventCreate");
            c.eventsCreated++;
            return c;
        } catch (DeviceError e) {
            c.close();
            throw e;
        }
    }

    /** Binds the context to the calling thread (a replay may call from any one thread at a time). */
    void makeCurrent() throws DeviceError {
        CudaCalls.check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    CUfunction function(String module, String kernel) throws DeviceError {
        CUfunction f = functions.get(kernel);
        if (f == null) {
            f = new CUfunction();
            CudaCalls.check(cuModuleGetFunction(f, modules.get(module), kernel), "cuModuleGetFunction(" + kernel + ")");
            functions.put(kernel, f);
        }
        return f;
    }

    /** Marks the start of the timed work on the default stream. */
    void startTimer() throws DeviceError {
        CudaCalls.check(cuEventRecord(start, null), "cuEventRecord");
    }

    /**
     * Marks the end, waits for it, and returns the device time in between in milliseconds. A kernel's own
     * failure (an illegal address, the watchdog's timeout) surfaces here.
     */
    float stopTimer() throws DeviceError {
        CudaCalls.check(cuEventRecord(stop, null), "cuEventRecord");
        CudaCalls.check(cuEventSynchronize(stop), "cuEventSynchronize (the kernels' completion)");
        float[] ms = new float[1];
        CudaCalls.check(cuEventElapsedTime(ms, start, stop), "cuEventElapsedTime");
        return ms[0];
    }

    @Override
    public void close() {
        // best effort: after a sticky error every call fails, and the process is expected to end anyway
        cuCtxSetCurrent(context);
        if (eventsCreated > 0) {
            cuEventDestroy(start);
        }
        if (eventsCreated > 1) {
            cuEventDestroy(stop);
        }
        modules.values().forEach(m -> cuModuleUnload(m));
        modules.clear();
        functions.clear();
        cuDevicePrimaryCtxRelease(device);
    }
}
