package dev.crashlab.conv.cuda;

/**
 * Describes the CUDA device a backend runs on, as the driver reported it.
 *
 * @param name the product name ({@code NVIDIA H100 80GB HBM3})
 * @param computeMajor compute capability, major
 * @param computeMinor compute capability, minor
 * @param totalBytes device memory
 * @param multiprocessors streaming multiprocessors (the launch planner fills them)
 * @param driverVersion the driver's CUDA version as {@code cuDriverGetVersion} gives it (12040 = 12.4)
 */
public record CudaDevice(String name, int computeMajor, int computeMinor, long totalBytes, int multiprocessors,
        int driverVersion) {

    /** The driver's CUDA version as text ({@code 12.4}). */
    public String driverCudaVersion() {
        return driverVersion / 1000 + "." + (driverVersion % 1000) / 10;
    }

    @Override
    public String toString() {
        return name + " (sm_" + computeMajor + computeMinor + ", " + totalBytes / (1024 * 1024) + " MiB, driver CUDA "
                + driverCudaVersion() + ")";
    }
}
