package dev.crashlab.repro;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Holds the one mapper of the reproduction wire format, outside the server: the CLI, the worker (its HTTP client and
 * its child JVM) and the stored rows of jobs read and write specs, results, estimates and worker messages with it.
 *
 * <p>NOTE: the wire shape is carried by the types themselves, not by this mapper's settings, so the server's own
 * (Quarkus') mapper writes the same JSON: a {@link ReproSpec} is always its {@code "format": 1} document
 * ({@link ReproSpecJson}, via annotations on the record); replay results, estimates and findings are snake_case
 * ({@code @JsonNaming} on each record, statuses in lower case); the worker protocol's messages and job views are
 * camelCase (Jackson's default). This mapper adds only what the server's has too: {@code java.time} values as ISO
 * text, and unknown properties ignored (a newer peer may add a field).
 */
public final class ReproJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .findAndAddModules()
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private ReproJson() {}

    /** The mapper (compact output). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** The mapper's writer with indentation, for what a person reads (the CLI's {@code --json}). */
    public static ObjectWriter pretty() {
        return MAPPER.writerWithDefaultPrettyPrinter();
    }

    /** Writes a value of the wire model as compact JSON. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a record of the wire model always serialises", e);
        }
    }

    /**
     * Reads a stored job result ({@code repro_job.result_json}). Every writer of that column has written snake_case
     * since the column exists (V3), so there is one spelling to read; a row that does not read is reported, not
     * guessed at.
     *
     * @throws IllegalArgumentException when the text is not a job result
     */
    public static JobResult readJobResult(String text) {
        try {
            return MAPPER.readValue(text, JobResult.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a reproduction job result: " + e.getOriginalMessage(), e);
        }
    }
}
