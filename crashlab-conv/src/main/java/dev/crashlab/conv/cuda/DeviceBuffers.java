package dev.crashlab.conv.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import dev.crashlab.conv.ConvBackend.DeviceError;
import dev.crashlab.conv.ConvBackend.OutOfMemory;
import dev.crashlab.conv.ConvProblem.DType;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * Holds the device allocations of one pass under a {@link DeviceMemoryBudget} and frees them all on close.
 * Uploads convert float32 host tensors to the storage type on the way in; downloads widen on the way out.
 */
final class DeviceBuffers implements AutoCloseable {

    private static final int CUDA_ERROR_OUT_OF_MEMORY = 2;

    /** One allocation. */
    record Buffer(String what, CUdeviceptr pointer, long bytes) {}

    private final DeviceMemoryBudget budget;
    private final List<Buffer> held = new ArrayList<>();

    DeviceBuffers(DeviceMemoryBudget budget) {
        this.budget = budget;
    }

    /** Allocates {@code bytes}, refused like the reporter's allocation when it exceeds the cap or the device. */
    Buffer allocate(String what, long bytes) throws OutOfMemory, DeviceError {
        budget.reserve(what, bytes);
        CUdeviceptr pointer = new CUdeviceptr();
        int rc = cuMemAlloc(pointer, Math.max(1, bytes));
        if (rc != 0) {
            budget.release(bytes);
            if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
                long[] free = new long[1];
                long[] total = new long[1];
                cuMemGetInfo(free, total);
                throw new OutOfMemory(what, bytes, free[0]);
            }
            throw CudaCalls.error(rc, "cuMemAlloc(" + bytes + ") for " + what);
        }
        Buffer b = new Buffer(what, pointer, bytes);
        held.add(b);
        return b;
    }

    /** Allocates a tensor of {@code dtype} and copies {@code values} into it, rounded to {@code dtype}. */
    Buffer upload(String what, float[] values, DType dtype) throws OutOfMemory, DeviceError {
        Buffer b = allocate(what, (long) values.length * dtype.bytes);
        Pointer host = dtype == DType.FLOAT32
                ? Pointer.to(values)
                : Pointer.to(StorageConversion.toBits(values, dtype));
        CudaCalls.check(cuMemcpyHtoD(b.pointer(), host, b.bytes()), "cuMemcpyHtoD for " + what);
        return b;
    }

    /** Copies {@code elements} of {@code dtype} back and widens them to float32. */
    float[] download(Buffer b, int elements, DType dtype) throws DeviceError {
        if (dtype == DType.FLOAT32) {
            float[] out = new float[elements];
            CudaCalls.check(cuMemcpyDtoH(Pointer.to(out), b.pointer(), (long) elements * 4), "cuMemcpyDtoH for " + b.what());
            return out;
        }
        short[] bits = new short[elements];
        CudaCalls.check(cuMemcpyDtoH(Pointer.to(bits), b.pointer(), (long) elements * 2), "cuMemcpyDtoH for " + b.what());
        return StorageConversion.fromBits(bits, dtype);
    }

    @Override
    public void close() {
        // after a sticky error cuMemFree fails too; the books are kept regardless, the context is lost anyway
        for (Buffer b : held) {
            cuMemFree(b.pointer());
            budget.release(b.bytes());
        }
        held.clear();
    }
}
