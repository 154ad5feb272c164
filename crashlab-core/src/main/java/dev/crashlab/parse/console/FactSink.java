package dev.crashlab.parse.console;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.LogLine;
import dev.crashlab.fact.SourceRef;
import java.nio.charset.StandardCharsets;
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
    /**
     * One bit per value of a key's top 16 bits, set for every key kept: 8 KB that stay in the first-level cache, where
     * the table of keys does not, so most lines that are none of the kept ones are told so by one load.
     */
    private final long[] logLineBits = new long[1 << 10];

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
        int top = (int) (k >>> 48);
        if ((logLineBits[top >>> 6] & (1L << top)) == 0) {
            return false;
        }
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
        int top = (int) (k >>> 48);
        logLineBits[top >>> 6] |= 1L << top;
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

    /**
     * A 64-bit hash of a log line's fact: of its ASCII form, so {@link #logLineKey(LogLine.Severity, byte[], int, int, int,
     * int)} agrees on a line of ASCII bytes (a fact with other characters equals no such line: any key will do for it).
     */
    static long logLineKey(LogLine.Severity severity, String origin, String message) {
        byte[] o = (origin == null ? "" : origin).getBytes(StandardCharsets.ISO_8859_1);
        byte[] m = message.getBytes(StandardCharsets.ISO_8859_1);
        long h = region(severity.ordinal() + (origin == null ? 0x5bd1e995L : 0xcbf29ce484222325L), o, 0, o.length);
        return mix(region(h, m, 0, m.length));
    }

    /** {@link #logLineKey(LogLine.Severity, String, String)} of ASCII bytes: origin {@code b[o, oe)}, message {@code b[m, me)}. */
    static long logLineKey(LogLine.Severity severity, byte[] b, int o, int oe, int m, int me) {
        long h = region(severity.ordinal() + 0xcbf29ce484222325L, b, o, oe);
        return mix(region(h, b, m, me));
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    // eight bytes a step (a multiply per byte waited on the one before: a tenth of the reading pass's time on warnings)
    private static long region(long h, byte[] b, int from, int to) {
        int i = from;
        for (int last = to - 8; i <= last; i += 8) {
            h = Long.rotateLeft((h ^ (long) LONGS.get(b, i)) * PRIME, 29);
        }
        long tail = 0;
        for (int k = 0; i < to; i++, k += 8) {
            tail |= (b[i] & 0xffL) << k;
        }
        h = Long.rotateLeft((h ^ tail) * PRIME, 29);
        return (h ^ (to - from)) * 0x9e3779b97f4a7c15L;
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
