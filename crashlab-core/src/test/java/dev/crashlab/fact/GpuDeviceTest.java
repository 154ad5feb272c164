package dev.crashlab.fact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A GPU fact's unreadable fields come out in one order, whatever order they were read in and whichever JVM runs. */
class GpuDeviceTest {

    private static GpuDevice withUnavailable(Map<String, String> unavailable) {
        return new GpuDevice(0, "NVIDIA GeForce RTX 3090", null, null, 24576L, null, null, null, null, null, null, null,
                null, null, null, null, null, null, List.of(), unavailable, List.of());
    }

    @Test
    void unavailableFieldsAreSortedByNameSoTheJsonIsStable() throws Exception {
        // as nvidia-smi prints them (not sorted); Map.copyOf's order would also change with each JVM start
        Map<String, String> read = new LinkedHashMap<>();
        for (String f : List.of("temperature.gpu", "power.draw", "ecc.errors.uncorrected", "clocks.sm", "fan.speed",
                "memory.used", "retired_pages.pending", "utilization.gpu")) {
            read.put(f, "[Unknown Error]");
        }
        GpuDevice d = withUnavailable(read);
        assertThat(d.unavailable().keySet()).containsExactly("clocks.sm", "ecc.errors.uncorrected", "fan.speed",
                "memory.used", "power.draw", "retired_pages.pending", "temperature.gpu", "utilization.gpu");
        // as stored (facts/FactsJson): the text lists them in that order, and reads back to an equal fact that writes
        // the same text
        String json = dev.crashlab.reader.FactsJson.facts(List.of(d));
        assertThat(json.indexOf("\"clocks.sm\"")).isPositive().isLessThan(json.indexOf("\"utilization.gpu\""));
        List<Fact> back = dev.crashlab.reader.FactsJson.readFacts(json);
        assertThat(back).containsExactly(d);
        assertThat(dev.crashlab.reader.FactsJson.facts(back)).isEqualTo(json);
    }

    @Test
    void theMapStaysReadOnlyAndRefusesNulls() {
        Map<String, String> withNull = new LinkedHashMap<>();
        withNull.put("fan.speed", null);
        assertThatThrownBy(() -> withUnavailable(withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> withUnavailable(Map.of("a", "b")).unavailable().put("c", "d"))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
