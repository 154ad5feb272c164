package dev.crashlab.parse.console;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects facts while a log streams by, merging repeats at once and capping both the distinct facts and
 * the sources per fact, so a gigabyte of repeated warnings stays a few megabytes of facts.
 */
final class FactSink {

    /** The most distinct facts kept from one artifact. */
    static final int MAX_FACTS = 5000;
    /** The most sources kept per fact (the first ones). */
    static final int MAX_SOURCES = 16;

    private final Map<Fact, List<SourceRef>> facts = new LinkedHashMap<>();
    private long dropped;

    /** Adds a fact read at {@code at}. */
    void add(Fact fact, SourceRef at) {
        Fact key = fact.sources().isEmpty() ? fact : fact.withSources(List.of());
        List<SourceRef> sources = facts.get(key);
        if (sources == null) {
            if (facts.size() >= MAX_FACTS) {
                dropped++;
                return;
            }
            sources = new ArrayList<>(2);
            facts.put(key, sources);
        }
        if (sources.size() < MAX_SOURCES && !sources.contains(at)) {
            sources.add(at);
        }
    }

    /** Returns how many distinct facts were dropped past {@link #MAX_FACTS}. */
    long dropped() {
        return dropped;
    }

    /** Returns the facts, each with its sources, in the order first seen. */
    List<Fact> facts() {
        List<Fact> out = new ArrayList<>(facts.size());
        facts.forEach((k, s) -> out.add(k.withSources(s)));
        return out;
    }
}
