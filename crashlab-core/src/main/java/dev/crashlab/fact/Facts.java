package dev.crashlab.fact;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Merges duplicate facts, and writes facts as canonical JSON. */
public final class Facts {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .findAndAddModules()
            .build();

    private Facts() {}

    /**
     * Merges facts that differ only in their sources into one fact carrying all their sources, keeping
     * the order in which each fact was first seen.
     */
    public static List<Fact> dedupe(List<? extends Fact> facts) {
        Map<Fact, List<SourceRef>> merged = new LinkedHashMap<>();
        for (Fact f : facts) {
            merged.computeIfAbsent(f.withSources(List.of()), k -> new ArrayList<>()).addAll(f.sources());
        }
        List<Fact> out = new ArrayList<>(merged.size());
        merged.forEach((key, sources) -> out.add(key.withSources(List.copyOf(sources))));
        return out;
    }

    /** Returns the mapper that writes facts canonically (sorted keys, indented): golden files and the CLI use it. */
    public static ObjectMapper json() {
        return JSON;
    }
}
