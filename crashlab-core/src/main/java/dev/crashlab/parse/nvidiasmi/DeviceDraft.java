package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.SourceRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects one GPU's fields as a parser meets them, in any order, and builds the {@link GpuDevice}.
 *
 * <p>NOTE: ECC and retirement counts are summed over the counters a format shows, since different
 * driver generations split them differently (single/double bit, SRAM/DRAM, retired/remapped).
 */
final class DeviceDraft {

    Integer index;
    String name;
    String uuid;
    String busId;
    Long memoryTotalMiB;
    Long memoryUsedMiB;
    String driverVersion;
    String driverCudaVersion;
    String computeCapability;
    String driverModel;
    String computeMode;
    String migMode;
    Long eccUncorrected;
    Long retiredPages;
    Integer temperatureC;
    Double powerDrawW;
    Double powerLimitW;
    String performanceState;
    final List<String> throttleReasons = new ArrayList<>();
    final Map<String, String> unavailable = new LinkedHashMap<>();
    final SourceRef source;

    DeviceDraft(SourceRef source) {
        this.source = source;
    }

    /**
     * Tells whether a value is one of the "no value" spellings (ERR!, N/A, [Not Supported] ...), keeping it under the
     * field's name only when it is an error (ERR!, Unknown Error, GPU is lost): N/A is no evidence of anything.
     */
    boolean keepUnavailable(String field, String value) {
        if (!SmiValues.unavailable(value)) {
            return false;
        }
        if (SmiValues.error(value) && unavailable.size() < 64) {
            unavailable.putIfAbsent(field, value.trim());
        }
        return true;
    }

    /** Adds a throttle reason once, bounded, since hostile input may repeat one forever. */
    void throttle(String reason) {
        if (!throttleReasons.contains(reason) && throttleReasons.size() < 32) {
            throttleReasons.add(reason);
        }
    }

    /** Tells whether anything beyond the bus id was read, i.e. whether the device is worth a fact. */
    boolean hasContent() {
        return name != null || memoryTotalMiB != null || memoryUsedMiB != null || eccUncorrected != null
                || retiredPages != null || temperatureC != null || powerDrawW != null || uuid != null
                || performanceState != null || !throttleReasons.isEmpty() || !unavailable.isEmpty();
    }

    /**
     * Sets a field by its {@code GpuDevice} component name from a value as printed; the first value wins,
     * a "no value" spelling goes to {@code unavailable}, and a value that does not parse is ignored.
     */
    void set(String field, String value) {
        String v = SmiValues.text(value);
        if (v == null) {
            return;
        }
        if (keepUnavailable(field, v)) {
            if (field.equals("name") && name == null) {
                name = v; // an ERR! name is kept as printed: the device is there, its name unreadable
            }
            return;
        }
        switch (field) {
            case "index" -> index = index != null ? index : SmiValues.integer(v);
            case "name" -> name = name != null ? name : v;
            case "uuid" -> uuid = uuid != null ? uuid : v;
            case "busId" -> busId = busId != null ? busId : v;
            case "memoryTotalMiB" -> memoryTotalMiB = memoryTotalMiB != null ? memoryTotalMiB : SmiValues.mebibytes(v);
            case "memoryUsedMiB" -> memoryUsedMiB = memoryUsedMiB != null ? memoryUsedMiB : SmiValues.mebibytes(v);
            case "driverVersion" -> driverVersion = driverVersion != null ? driverVersion : v;
            case "driverCudaVersion" -> driverCudaVersion = driverCudaVersion != null ? driverCudaVersion : v;
            case "computeCapability" -> computeCapability = computeCapability != null ? computeCapability : v;
            case "driverModel" -> driverModel = driverModel != null ? driverModel : v;
            case "computeMode" -> computeMode = computeMode != null ? computeMode : v;
            case "migMode" -> migMode = migMode != null ? migMode : v;
            case "temperatureC" -> temperatureC = temperatureC != null ? temperatureC : SmiValues.integer(v);
            case "powerDrawW" -> powerDrawW = powerDrawW != null ? powerDrawW : SmiValues.number(v);
            case "powerLimitW" -> powerLimitW = powerLimitW != null ? powerLimitW : SmiValues.number(v);
            case "performanceState" -> performanceState = performanceState != null ? performanceState : v;
            case "eccUncorrected" -> eccUncorrected = SmiValues.sum(eccUncorrected, SmiValues.whole(v));
            case "retiredPages" -> retiredPages = SmiValues.sum(retiredPages, SmiValues.whole(v));
            default -> throw new IllegalArgumentException("no GpuDevice field " + field);
        }
    }

    GpuDevice build() {
        // a field one counter left N/A but another filled (retired pages N/A, remapped rows 2) has a value
        Map<String, String> missing = new LinkedHashMap<>(unavailable);
        missing.keySet().removeIf(this::hasValue);
        return new GpuDevice(index, name, uuid, busId, memoryTotalMiB, memoryUsedMiB, driverVersion, driverCudaVersion,
                computeCapability, driverModel, computeMode, migMode, eccUncorrected, retiredPages, temperatureC,
                powerDrawW, powerLimitW, performanceState, throttleReasons, missing, List.of(source));
    }

    private boolean hasValue(String field) {
        return switch (field) {
            case "index" -> index != null;
            case "name" -> false;
            case "busId" -> busId != null;
            case "memoryTotalMiB" -> memoryTotalMiB != null;
            case "memoryUsedMiB" -> memoryUsedMiB != null;
            case "driverModel" -> driverModel != null;
            case "computeMode" -> computeMode != null;
            case "migMode" -> migMode != null;
            case "eccUncorrected" -> eccUncorrected != null;
            case "retiredPages" -> retiredPages != null;
            case "temperatureC" -> temperatureC != null;
            case "powerDrawW" -> powerDrawW != null;
            case "powerLimitW" -> powerLimitW != null;
            case "performanceState" -> performanceState != null;
            case "throttleReasons" -> !throttleReasons.isEmpty();
            default -> false;
        };
    }
}
