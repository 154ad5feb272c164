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
    private final Map<String, Integer> tagged;

    private LiteralScan(Map<String, Integer> literals) {
        this.literals = List.copyOf(literals.keySet());
        this.tagged = new LinkedHashMap<>(literals);
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
        if (used['\n'] || used['\r']) {
            throw new IllegalArgumentException("a literal holds a line end");
        }
        // line ends have a class of their own: every state goes from them to the start, marked (see scanLines)
        int eol = c++;
        classOf['\n'] = eol;
        classOf['\r'] = eol;
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
            next[s * classes + eol] = -1; // the start state, marked: no literal ends there, so a marked 0 is a line end
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

        /**
         * Builds a scanner that looks for at most the first {@code maxBytes} UTF-8 bytes of each literal (a smaller
         * automaton, so a faster walk), except for literals carrying one of {@code exactBits}, kept whole: a line holding
         * a literal holds its start, so the bits found are a superset of the whole literals' (never fewer).
         */
        LiteralScan buildShortened(int maxBytes, int exactBits) {
            Map<String, Integer> cut = new LinkedHashMap<>();
            literals.forEach((w, b) -> {
                String k = (b & exactBits) != 0 ? w : prefix(w, maxBytes);
                cut.merge(k, b, (x, y) -> x | y);
            });
            return new LiteralScan(cut);
        }

        // the longest start of w with at most max UTF-8 bytes, not splitting a character
        private static String prefix(String w, int max) {
            int bytes = 0;
            int i = 0;
            while (i < w.length()) {
                int cp = w.codePointAt(i);
                int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (bytes + n > max) {
                    break;
                }
                bytes += n;
                i += Character.charCount(cp);
            }
            return w.substring(0, i);
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
     * Scans {@code b[from, to)}, which ends with a line end, line by line: each {@code \n} or {@code \r} ends a line
     * (the caller joins {@code \r\n}); for each line, the position of its end and the rule bits of the literals in it
     * go to {@code first} for the lines before the middle and to {@code second} for the others, in order.
     *
     * <p>NOTE: the two halves are scanned in one loop, a byte of each per step: the automaton's next state waits on a
     * table load, and two independent walks keep the core busy while each waits (about twice the bytes per second of
     * one walk). A line end is a marked transition to the start state, so the loop tests nothing else per byte.
     */
    void scanLines(byte[] b, int from, int to, Lines first, Lines second) {
        first.count = 0;
        second.count = 0;
        int mid = from + (to - from) / 2;
        while (mid < to && b[mid] != '\n' && b[mid] != '\r') {
            mid++;
        }
        int split = Math.min(mid + 1, to);
        final int[] next = this.next;
        final int[] classOf = this.classOf;
        final int[] bits = this.bits;
        int sa = 0;
        int sb = 0;
        int fa = 0;
        int fb = 0;
        int i = from;
        int j = split;
        int both = from + Math.min(split - from, to - split);
        for (; i < both; i++, j++) {
            sa = next[sa + classOf[b[i] & 0xff]];
            sb = next[sb + classOf[b[j] & 0xff]];
            if ((sa | sb) < 0) {
                if (sa < 0) {
                    sa = -sa - 1;
                    if (sa == 0) {
                        first.add(i, fa);
                        fa = 0;
                    } else {
                        fa |= bits[sa];
                    }
                }
                if (sb < 0) {
                    sb = -sb - 1;
                    if (sb == 0) {
                        second.add(j, fb);
                        fb = 0;
                    } else {
                        fb |= bits[sb];
                    }
                }
            }
        }
        for (; i < split; i++) {
            sa = next[sa + classOf[b[i] & 0xff]];
            if (sa < 0) {
                sa = -sa - 1;
                if (sa == 0) {
                    first.add(i, fa);
                    fa = 0;
                } else {
                    fa |= bits[sa];
                }
            }
        }
        for (; j < to; j++) {
            sb = next[sb + classOf[b[j] & 0xff]];
            if (sb < 0) {
                sb = -sb - 1;
                if (sb == 0) {
                    second.add(j, fb);
                    fb = 0;
                } else {
                    fb |= bits[sb];
                }
            }
        }
    }

    /** Lines found by {@link #scanLines}: the position of each one's end and the rule bits in it. */
    static final class Lines {
        int[] ends = new int[1 << 12];
        int[] found = new int[1 << 12];
        int count;

        void add(int end, int bits) {
            if (count == ends.length) {
                ends = Arrays.copyOf(ends, count * 2);
                found = Arrays.copyOf(found, count * 2);
            }
            ends[count] = end;
            found[count++] = bits;
        }
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * Tells whether {@code b[from, to)} holds a byte over 0x7F, eight bytes at a time (a byte loop OR-ing into an int is
     * not turned into vector instructions: it ran at about 1 GB/s, a sixth of the reading pass).
     */
    static boolean anyHigh(byte[] b, int from, int to) {
        long or = 0;
        int i = from;
        for (int last = to - 8; i <= last; i += 8) {
            or |= (long) LONGS.get(b, i);
        }
        for (; i < to; i++) {
            or |= b[i];
        }
        return (or & 0x8080808080808080L) != 0;
    }

    /** Returns the rule bits of every literal in {@code text}. */
    int scan(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return scan(b, 0, b.length);
    }

    /** Hands each literal and its rule bits to {@code to}, in the order given. */
    void forEachLiteral(java.util.function.BiConsumer<Integer, String> to) {
        tagged.forEach((w, b) -> to.accept(b, w));
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
