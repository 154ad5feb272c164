package dev.crashlab.repro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** Holds the mapper that writes and reads replay results and memory estimates (snake_case, lower-case statuses). */
public final class ReproJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private ReproJson() {}

    /** The mapper for {@link ReplayResult} and {@link MemoryEstimate} (specs have their own: {@link ReproSpecJson}). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
