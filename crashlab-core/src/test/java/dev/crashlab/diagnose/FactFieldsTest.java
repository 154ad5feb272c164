package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.WindowsEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Field values as matchers see them: an empty map or list is no value, so {@code exists} does not hold on it. */
class FactFieldsTest {

    static WindowsEvent event(Map<String, String> data) {
        return new WindowsEvent("Application Error", 1000, null, "Error", "2024-06-13T10:00:00Z", "PC", "Application", 1L, data, null,
                List.of());
    }

    @Test
    void anEmptyMapIsNoValueAndAFilledOneIsItsJson() {
        FactFields fields = new FactFields();
        assertThat(fields.values(event(Map.of()), "data")).isEmpty();
        Map<String, String> data = new LinkedHashMap<>();
        data.put("AppName", "python.exe");
        assertThat(fields.values(event(data), "data")).singleElement().asString().contains("python.exe");
        assertThat(fields.values(event(data), "data.AppName")).containsExactly("python.exe");
        assertThat(fields.values(event(data), "data.Missing")).isEmpty();
    }
}
