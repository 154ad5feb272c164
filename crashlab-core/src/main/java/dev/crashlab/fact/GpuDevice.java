package dev.crashlab.fact;

import java.util.List;
import java.util.Map;

/**
 * One GPU as a tool or log reported it. Every field may be null: not shown by that output ({@code name} is null
 * only where a log states a GPU's compute capability or memory use without naming it). Values a tool printed
 * as an error ({@code ERR!}, {@code [Unknown Error]}, {@code GPU is lost}) are kept, as printed, in
 * {@code unavailable} under the field's name (an error is itself evidence); {@code N/A} and
 * {@code [Not Supported]} are no value and are not kept (an idle, healthy GPU prints many).
 *
 * @param index the GPU's index as the tool numbered it
 * @param name the product name ({@code NVIDIA GeForce RTX 3060 Laptop GPU})
 * @param busId the PCI bus id ({@code 00000000:01:00.0})
 * @param memoryTotalMiB total memory in MiB
 * @param memoryUsedMiB memory in use in MiB
 * @param driverVersion the NVIDIA driver version ({@code 531.79})
 * @param driverCudaVersion the highest CUDA version the driver supports ("CUDA Version" in nvidia-smi), not a toolkit
 * @param computeCapability e.g. {@code 8.6}
 * @param driverModel {@code WDDM} or {@code TCC} on Windows
 * @param computeMode {@code Default}, {@code Exclusive_Process}...
 * @param migMode {@code Enabled}/{@code Disabled}
 * @param eccUncorrected volatile double-bit/uncorrected ECC errors
 * @param retiredPages retired pages (or remapped rows on newer GPUs)
 * @param temperatureC temperature in °C
 * @param powerDrawW power draw in W
 * @param powerLimitW power limit in W
 * @param performanceState {@code P0}..{@code P12}
 * @param throttleReasons active clock throttle reasons, by nvidia-smi's names
 * @param unavailable fields printed as an error (ERR!, Unknown Error), with what was printed; never N/A
 */
public record GpuDevice(Integer index, String name, String uuid, String busId, Long memoryTotalMiB, Long memoryUsedMiB,
        String driverVersion, String driverCudaVersion, String computeCapability, String driverModel,
        String computeMode, String migMode, Long eccUncorrected, Long retiredPages, Integer temperatureC,
        Double powerDrawW, Double powerLimitW, String performanceState, List<String> throttleReasons,
        Map<String, String> unavailable, List<SourceRef> sources) implements GpuFact {

    public GpuDevice {
        throttleReasons = List.copyOf(throttleReasons);
        // sorted by field: the fact's JSON (stored, compared, hashed) is the same in every JVM (Map.copyOf's
        // iteration order changes from one JVM start to the next)
        unavailable = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(Map.copyOf(unavailable)));
        sources = List.copyOf(sources);
    }

    @Override
    public GpuDevice withSources(List<SourceRef> s) {
        return new GpuDevice(index, name, uuid, busId, memoryTotalMiB, memoryUsedMiB, driverVersion, driverCudaVersion,
                computeCapability, driverModel, computeMode, migMode, eccUncorrected, retiredPages, temperatureC,
                powerDrawW, powerLimitW, performanceState, throttleReasons, unavailable, s);
    }
}
