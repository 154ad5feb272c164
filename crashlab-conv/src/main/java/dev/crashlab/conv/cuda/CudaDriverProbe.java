package dev.crashlab.conv.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * Finds out once per JVM whether a CUDA device can run the kernels: the driver library loads, initialises,
 * has a device, is new enough for the PTX, and the device is new enough for its target.
 *
 * <p>NOTE: loading JCuda's driver bindings fails with an {@link UnsatisfiedLinkError} where the driver
 * library is absent, and every later use of the class with a {@link NoClassDefFoundError}; both are caught
 * here, once, so nothing else touches the bindings on a machine without a driver.
 */
final class CudaDriverProbe {

    /** PTX ISA 8.0 (the committed modules' version) is JIT-compiled by CUDA 12.0 drivers and newer. */
    static final int MIN_DRIVER_VERSION = 12000;
    /** The modules target sm_75 (Turing); a driver cannot JIT them for an older device. */
    static final int MIN_COMPUTE = 75;
    static final String NO_DEVICE = "no CUDA device: ";

    /** The outcome: a device, or why there is none. */
    record Result(CudaDevice device, String unavailableReason) {
        static Result unavailable(String reason) {
            return new Result(null, reason);
        }
    }

    private static Result cached;

    private CudaDriverProbe() {
    }

    /** The probe's result, computed on first use. */
    static synchronized Result result() {
        if (cached == null) {
            cached = probe();
        }
        return cached;
    }

    private static Result probe() {
        try {
            JCudaDriver.setExceptionsEnabled(false);
            int rc = JCudaDriver.cuInit(0);
            if (rc != 0) {
                return Result.unavailable(NO_DEVICE + "cuInit failed with " + CudaErrorNames.name(rc));
            }
            int[] value = new int[1];
            rc = JCudaDriver.cuDriverGetVersion(value);
            if (rc != 0) {
                return Result.unavailable(NO_DEVICE + "cuDriverGetVersion failed with " + CudaErrorNames.name(rc));
            }
            int driverVersion = value[0];
            rc = JCudaDriver.cuDeviceGetCount(value);
            if (rc != 0 || value[0] == 0) {
                return Result.unavailable(NO_DEVICE + (rc != 0 ? "cuDeviceGetCount failed with "
                        + CudaErrorNames.name(rc) : "the driver reports no device"));
            }
            CUdevice dev = new CUdevice();
            rc = JCudaDriver.cuDeviceGet(dev, 0);
            if (rc != 0) {
                return Result.unavailable(NO_DEVICE + "cuDeviceGet(0) failed with " + CudaErrorNames.name(rc));
            }
            byte[] name = new byte[256];
            JCudaDriver.cuDeviceGetName(name, name.length, dev);
            long[] total = new long[1];
            JCudaDriver.cuDeviceTotalMem(total, dev);
            int major = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
            int minor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
            int sms = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
            CudaDevice device = new CudaDevice(cString(name), major, minor, total[0], sms, driverVersion);
            return judge(device);
        } catch (Throwable t) {
            // UnsatisfiedLinkError, NoClassDefFoundError, or anything else a broken install throws
            return Result.unavailable(NO_DEVICE + describeLoadFailure(t));
        }
    }

    /** Accepts a device the kernels can run on, or says why not. */
    static Result judge(CudaDevice device) {
        if (device.driverVersion() < MIN_DRIVER_VERSION) {
            return Result.unavailable(NO_DEVICE + "the CUDA driver (CUDA " + device.driverCudaVersion() + ") is older than 12.0, "
                    + "which the kernels' PTX ISA 8.0 needs; found " + device);
        }
        if (device.computeMajor() * 10 + device.computeMinor() < MIN_COMPUTE) {
            return Result.unavailable(NO_DEVICE + device.name() + " has compute capability " + device.computeMajor() + "."
                    + device.computeMinor() + "; the kernels need 7.5 or newer");
        }
        return new Result(device, null);
    }

    private static int attribute(CUdevice dev, int attribute) {
        int[] v = new int[1];
        JCudaDriver.cuDeviceGetAttribute(v, attribute, dev);
        return v[0];
    }

    private static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8).trim();
    }

    private static final Pattern MISSING_LIBRARY = Pattern.compile(
            "([\\w.+-]+\\.(?:so(?:\\.\\d+)*|dll|dylib)): cannot open shared object file");

    /**
     * One line on why the bindings did not load: the missing driver library when the loader names one (JCuda's
     * own message is a page of nested stack traces), else the first line of the error.
     */
    static String describeLoadFailure(Throwable t) {
        String message = String.valueOf(t.getMessage());
        Matcher m = MISSING_LIBRARY.matcher(message);
        if (m.find()) {
            return m.group(1) + " not found (the CUDA driver is not installed)";
        }
        if (t instanceof NoClassDefFoundError) {
            return "the JCuda driver bindings failed to initialise earlier (" + firstLine(message) + ")";
        }
        return t.getClass().getSimpleName() + ": " + firstLine(message);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        String line = (nl < 0 ? s : s.substring(0, nl)).trim();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
