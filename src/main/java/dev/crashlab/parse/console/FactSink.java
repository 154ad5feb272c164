package dev.crashlab.parse.console;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.LogLine;
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
    /** {@link #logLineKey} of every log line kept: once full, a line's new fact is dropped without being made. */
    private long[] logLineKeys = new long[64];
    private int logLineCount;

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
            if (key instanceof LogLine l) {
                remember(logLineKey(l.severity(), l.origin(), l.message()));
            }
        }
        if (sources.size() < MAX_SOURCES && !sources.contains(at)) {
            sources.add(at);
        }
    }

    /** Tells whether no new distinct fact is kept any more. */
    boolean full() {
        return facts.size() >= MAX_FACTS;
    }

    /**
     * Tells whether a log line whose {@link #logLineKey} is {@code key} may be one of the facts kept (false: it is none of
     * them, so once {@link #full} it is dropped: see {@link #dropOne}).
     */
    boolean mayHoldLogLine(long key) {
        long k = key == 0 ? 1 : key;
        int mask = logLineKeys.length - 1;
        for (int i = (int) (k ^ (k >>> 32)) & mask; logLineKeys[i] != 0; i = (i + 1) & mask) {
            if (logLineKeys[i] == k) {
                return true;
            }
        }
        return false;
    }

    /** Counts a new distinct fact dropped past {@link #MAX_FACTS} without making it ({@link #full} must hold). */
    void dropOne() {
        dropped++;
    }

    private void remember(long key) {
        if (2 * (logLineCount + 1) > logLineKeys.length) {
            long[] old = logLineKeys;
            logLineKeys = new long[old.length * 2];
            logLineCount = 0;
            for (long k : old) {
                if (k != 0) {
                    remember(k);
                }
            }
        }
        long k = key == 0 ? 1 : key;
        int mask = logLineKeys.length - 1;
        int i = (int) (k ^ (k >>> 32)) & mask;
        while (logLineKeys[i] != 0) {
            if (logLineKeys[i] == k) {
                return;
            }
            i = (i + 1) & mask;
        }
        logLineKeys[i] = k;
        logLineCount++;
    }

    private static final long PRIME = 0x100000001B3L;

    // a multiply carries low bits only upwards: mix the high ones back down before the low ones pick a slot
    private static long mix(long h) {
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /** A 64-bit hash of a log line's fact; {@link #logLineKey(LogLine.Severity, byte[], int, int, int, int)} agrees on ASCII. */
    static long logLineKey(LogLine.Severity severity, String origin, String message) {
        long h = severity.ordinal() + 0xcbf29ce484222325L;
        if (origin == null) {
            h = (h ^ 0x1_0000) * PRIME;
        } else {
            for (int i = 0; i < origin.length(); i++) {
                h = (h ^ origin.charAt(i)) * PRIME;
            }
        }
        h = (h ^ 0x2_0000) * PRIME;
        for (int i = 0; i < message.length(); i++) {
            h = (h ^ message.charAt(i)) * PRIME;
        }
        return mix(h);
    }

    /** {@link #logLineKey(LogLine.Severity, String, String)} of ASCII bytes: origin {@code b[o, oe)}, message {@code b[m, me)}. */
    static long logLineKey(LogLine.Severity severity, byte[] b, int o, int oe, int m, int me) {
        long h = severity.ordinal() + 0xcbf29ce484222325L;
        for (int i = o; i < oe; i++) {
            h = (h ^ b[i]) * PRIME;
        }
        h = (h ^ 0x2_0000) * PRIME;
        for (int i = m; i < me; i++) {
            h = (h ^ b[i]) * PRIME;
        }
        return mix(h);
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
