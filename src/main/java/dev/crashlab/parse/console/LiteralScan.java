package dev.crashlab.parse.console;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds, in one pass over a line's bytes, which of many literals it contains: an Aho-Corasick automaton compiled
 * to a dense table (one transition per byte), each literal tagged with the rule bits that need it.
 *
 * <p>NOTE: literals are matched on their UTF-8 bytes, case-sensitively; states are stored premultiplied by the
 * alphabet size, so a step is one table load. Bytes that occur in no literal share one alphabet class.
 */
final class LiteralScan {

    private final int[] classOf = new int[256];
    private final int classes;
    /** next[state + class] = next state, states premultiplied by {@link #classes}. */
    private final int[] next;
    /** bits[state] = rule bits of every literal ending at that state (through failure links too). */
    private final int[] bits;
    private final List<String> literals;

    private LiteralScan(Map<String, Integer> literals) {
        this.literals = List.copyOf(literals.keySet());
        List<byte[]> words = new ArrayList<>();
        List<Integer> wordBits = new ArrayList<>();
        boolean[] used = new boolean[256];
        literals.forEach((w, b) -> {
            byte[] bytes = w.getBytes(StandardCharsets.UTF_8);
            if (bytes.length == 0) {
                throw new IllegalArgumentException("empty literal");
            }
            words.add(bytes);
            wordBits.add(b);
            for (byte x : bytes) {
                used[x & 0xff] = true;
            }
        });
        int c = 1;
        for (int i = 0; i < 256; i++) {
            classOf[i] = used[i] ? c++ : 0;
        }
        classes = c;
        // the trie
        List<int[]> go = new ArrayList<>();
        List<Integer> out = new ArrayList<>();
        go.add(filled(classes));
        out.add(0);
        for (int w = 0; w < words.size(); w++) {
            int s = 0;
            for (byte x : words.get(w)) {
                int k = classOf[x & 0xff];
                if (go.get(s)[k] < 0) {
                    go.get(s)[k] = go.size();
                    go.add(filled(classes));
                    out.add(0);
                }
                s = go.get(s)[k];
            }
            out.set(s, out.get(s) | wordBits.get(w));
        }
        // failure links, breadth first, completing the transitions into a DFA
        int n = go.size();
        int[] fail = new int[n];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int k = 0; k < classes; k++) {
            int t = go.get(0)[k];
            if (t < 0) {
                go.get(0)[k] = 0;
            } else {
                fail[t] = 0;
                queue.add(t);
            }
        }
        while (!queue.isEmpty()) {
            int s = queue.poll();
            out.set(s, out.get(s) | out.get(fail[s]));
            for (int k = 0; k < classes; k++) {
                int t = go.get(s)[k];
                if (t < 0) {
                    go.get(s)[k] = go.get(fail[s])[k];
                } else {
                    fail[t] = go.get(fail[s])[k];
                    queue.add(t);
                }
            }
        }
        next = new int[n * classes];
        bits = new int[n * classes];
        for (int s = 0; s < n; s++) {
            for (int k = 0; k < classes; k++) {
                int t = go.get(s)[k];
                // a state where a literal ends is stored negated, so the hot loop needs no bits load for the others
                next[s * classes + k] = out.get(t) != 0 ? -(t * classes) - 1 : t * classes;
            }
            bits[s * classes] = out.get(s);
        }
    }

    private static int[] filled(int size) {
        int[] a = new int[size];
        Arrays.fill(a, -1);
        return a;
    }

    /** Returns a scanner for these literals, each with its rule bits (bits of a literal given twice are joined). */
    static LiteralScan of(Map<String, Integer> literals) {
        return new LiteralScan(literals);
    }

    /** Collects literals and their rule bits, joining the bits of repeated literals. */
    static final class Builder {
        private final Map<String, Integer> literals = new LinkedHashMap<>();

        Builder add(int ruleBits, String... words) {
            for (String w : words) {
                literals.merge(w, ruleBits, (a, b) -> a | b);
            }
            return this;
        }

        LiteralScan build() {
            return new LiteralScan(literals);
        }
    }

    /** The start state. */
    int start() {
        return 0;
    }

    /** Returns the rule bits of every literal in {@code b[from, to)}. */
    int scan(byte[] b, int from, int to) {
        int s = 0;
        int found = 0;
        for (int i = from; i < to; i++) {
            s = next[s + classOf[b[i] & 0xff]];
            if (s < 0) {
                s = -s - 1;
                found |= bits[s];
            }
        }
        return found;
    }

    /**
     * Scans {@code b} from {@code from} up to the first line end ({@code \n} or {@code \r}) or {@code to}, going on
     * from {@code scan}; returns where it stopped. Small on purpose: the JIT compiles this loop on its own.
     */
    int scanToLineEnd(byte[] b, int from, int to, Scan scan) {
        int s = scan.state;
        int found = scan.found;
        int any = 0;
        int i = from;
        for (; i < to; i++) {
            byte x = b[i];
            if (x == '\n' || x == '\r') {
                break;
            }
            any |= x;
            s = next[s + classOf[x & 0xff]];
            if (s < 0) {
                s = -s - 1;
                found |= bits[s];
            }
        }
        scan.state = s;
        scan.found = found;
        scan.high |= any < 0;
        return i;
    }

    /** Where a scan of one line stands: the automaton's state, the rule bits found, whether a non-ASCII byte was seen. */
    static final class Scan {
        int state;
        int found;
        boolean high;

        void reset() {
            state = 0;
            found = 0;
            high = false;
        }
    }

    /** Returns the rule bits of every literal in {@code text}. */
    int scan(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return scan(b, 0, b.length);
    }

    /** Returns the literals, in the order given. */
    List<String> literals() {
        return literals;
    }

    /** Returns how many states the automaton has (for the benchmark's table). */
    int states() {
        return next.length / classes;
    }

}
