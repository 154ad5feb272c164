package dev.crashlab.parse.console;

import dev.crashlab.parse.TextDecoding;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds, in one pass over a line's bytes, which of many literals it contains: an Aho-Corasick automaton compiled
 * to a dense table (one transition per byte), each literal tagged with the rule bits that need it.
 *
 * <p>NOTE: literals are matched on their UTF-8 bytes, case-sensitively; a state's row has one entry per byte value and
 * states are stored premultiplied by 256, so a step is one table load indexed by the byte itself. (A table of byte
 * classes, one column per byte that occurs in a literal, made the table 2.6 times smaller but cost a second load per
 * byte: the walk over a 500 MB log took 1.00 CPU s under the first JIT tier against 0.89 without it, 0.83-1.06 against
 * 0.65-0.82 under the second; 1,500 states of 1 KiB, of which the walk touches a few rows most of the time.)
 */
final class LiteralScan {

    /** A state's row: one entry per byte value ({@code 1 << SHIFT}). */
    private static final int SHIFT = 8;
    private static final int ROW = 1 << SHIFT;
    /** next[state + byte] = next state, states premultiplied by {@link #ROW}. */
    private final int[] next;
    /** bits[state / ROW] = rule bits of every literal ending at that state (through failure links too). */
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
        if (used['\n'] || used['\r']) {
            throw new IllegalArgumentException("a literal holds a line end");
        }
        final int classes = ROW;
        // the trie (each state's children as a linked list), then the failure links breadth first, completing the
        // transitions into a DFA row by row: a state's row is its failure state's row (one copy) with its own children
        // set. NOTE: this runs once per JVM, in the interpreter, as the first bytes are about to be read: it loops
        // over states and literal bytes only (no loop over states x bytes), so that nothing of it is worth compiling
        int capacity = 1;
        for (byte[] w : words) {
            capacity += w.length;
        }
        int[] out = new int[capacity];
        int[] firstChild = new int[capacity];
        int[] sibling = new int[capacity];
        int[] classIn = new int[capacity];   // the byte leading into a state
        Arrays.fill(firstChild, -1);
        int n = 1;
        for (int w = 0; w < words.size(); w++) {
            int s = 0;
            for (byte x : words.get(w)) {
                int k = x & 0xff;
                int t = firstChild[s];
                while (t >= 0 && classIn[t] != k) {
                    t = sibling[t];
                }
                if (t < 0) {
                    t = n++;
                    classIn[t] = k;
                    sibling[t] = firstChild[s];
                    firstChild[s] = t;
                }
                s = t;
            }
            out[s] |= wordBits.get(w);
        }
        // next[] holds each target premultiplied, negated when a literal ends there (see scan); a state's final bits are
        // known once its failure link is: that state is shallower, so its own were known before
        next = new int[n * classes];
        bits = new int[n];
        int[] fail = new int[n];
        int[] queue = new int[n];
        int tail = 0;
        // line ends lead every state to the start, marked (see scanLines): no literal ends there, so a marked 0 is a line end
        next['\n'] = -1;
        next['\r'] = -1;
        for (int t = firstChild[0]; t >= 0; t = sibling[t]) {
            next[classIn[t]] = encoded(t, out[t], classes);
            queue[tail++] = t;
        }
        for (int head = 0; head < tail; head++) {
            int s = queue[head];
            int row = s * classes;
            int failRow = fail[s] * classes;
            System.arraycopy(next, failRow, next, row, classes);
            for (int t = firstChild[s]; t >= 0; t = sibling[t]) {
                int k = classIn[t];
                int f = next[failRow + k];
                fail[t] = (f < 0 ? -f - 1 : f) / classes;
                out[t] |= out[fail[t]];
                next[row + k] = encoded(t, out[t], classes);
                queue[tail++] = t;
            }
        }
        System.arraycopy(out, 0, bits, 0, n);
    }

    // a transition into state t: premultiplied, and negated where a literal ends (the hot loop needs no bits load for the others)
    private static int encoded(int t, int outBits, int classes) {
        return outBits != 0 ? -(t * classes) - 1 : t * classes;
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

        /** Hands each literal and its rule bits to {@code to}, in the order given. */
        void forEachLiteral(java.util.function.BiConsumer<Integer, String> to) {
            literals.forEach((w, b) -> to.accept(b, w));
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
            s = next[s + (b[i] & 0xff)];
            if (s < 0) {
                s = -s - 1;
                found |= bits[s >>> SHIFT];
            }
        }
        return found;
    }

    /** How many parts of a chunk {@link #scanLines} walks at once. */
    static final int WALKS = 4;

    /**
     * Scans {@code b[from, to)}, which ends with a line end, line by line: each {@code \n} or {@code \r} ends a line
     * (the caller joins {@code \r\n}); the bytes are cut into {@link #WALKS} parts at line ends, and for each line, the
     * position of its end and the rule bits of the literals in it go to {@code parts[k]} for the lines of part k, in order.
     *
     * <p>NOTE: the parts are scanned in one loop, a byte of each per step: the automaton's next state waits on a table
     * load, and four independent walks keep the core busy while each waits (on a 200 MB synthetic training log, alone
     * on one core: two walks ran at 540-570 MB/s, four at 600-650 MB/s). A line end is a marked transition to the
     * start state, so the loop tests nothing else per byte.
     */
    void scanLines(byte[] b, int from, int to, Lines[] parts) {
        Lines l0 = parts[0];
        Lines l1 = parts[1];
        Lines l2 = parts[2];
        Lines l3 = parts[3];
        l0.count = 0;
        l1.count = 0;
        l2.count = 0;
        l3.count = 0;
        int quarter = (to - from) / 4;
        int p1 = lineAfter(b, from + quarter, to);
        int p2 = lineAfter(b, Math.max(p1, from + 2 * quarter), to);
        int p3 = lineAfter(b, Math.max(p2, from + 3 * quarter), to);
        final int[] next = this.next;
        final int[] bits = this.bits;
        int s0 = 0;
        int s1 = 0;
        int s2 = 0;
        int s3 = 0;
        int f0 = 0;
        int f1 = 0;
        int f2 = 0;
        int f3 = 0;
        int steps = Math.min(Math.min(p1 - from, p2 - p1), Math.min(p3 - p2, to - p3));
        int i0 = from;
        int i1 = p1;
        int i2 = p2;
        int i3 = p3;
        for (int end = from + steps; i0 < end; i0++, i1++, i2++, i3++) {
            s0 = next[s0 + (b[i0] & 0xff)];
            s1 = next[s1 + (b[i1] & 0xff)];
            s2 = next[s2 + (b[i2] & 0xff)];
            s3 = next[s3 + (b[i3] & 0xff)];
            if ((s0 | s1 | s2 | s3) < 0) {
                if (s0 < 0) {
                    s0 = -s0 - 1;
                    if (s0 == 0) {
                        l0.add(i0, f0);
                        f0 = 0;
                    } else {
                        f0 |= bits[s0 >>> SHIFT];
                    }
                }
                if (s1 < 0) {
                    s1 = -s1 - 1;
                    if (s1 == 0) {
                        l1.add(i1, f1);
                        f1 = 0;
                    } else {
                        f1 |= bits[s1 >>> SHIFT];
                    }
                }
                if (s2 < 0) {
                    s2 = -s2 - 1;
                    if (s2 == 0) {
                        l2.add(i2, f2);
                        f2 = 0;
                    } else {
                        f2 |= bits[s2 >>> SHIFT];
                    }
                }
                if (s3 < 0) {
                    s3 = -s3 - 1;
                    if (s3 == 0) {
                        l3.add(i3, f3);
                        f3 = 0;
                    } else {
                        f3 |= bits[s3 >>> SHIFT];
                    }
                }
            }
        }
        // each part ends with a line end: what is left of each (at most about a line) is walked alone
        walk(b, i0, p1, s0, f0, l0);
        walk(b, i1, p2, s1, f1, l1);
        walk(b, i2, p3, s2, f2, l2);
        walk(b, i3, to, s3, f3, l3);
    }

    // the position just past the first line end at or after i (to if none)
    private static int lineAfter(byte[] b, int i, int to) {
        while (i < to && b[i] != '\n' && b[i] != '\r') {
            i++;
        }
        return Math.min(i + 1, to);
    }

    // one walk over b[i, to), from state s with the bits f found so far in the line
    private void walk(byte[] b, int i, int to, int s, int f, Lines out) {
        final int[] next = this.next;
        for (; i < to; i++) {
            s = next[s + (b[i] & 0xff)];
            if (s < 0) {
                s = -s - 1;
                if (s == 0) {
                    out.add(i, f);
                    f = 0;
                } else {
                    f |= bits[s >>> SHIFT];
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

    /** Tells whether {@code b[from, to)} holds a byte over 0x7F ({@link TextDecoding#anyHigh}). */
    static boolean anyHigh(byte[] b, int from, int to) {
        return TextDecoding.anyHigh(b, from, to);
    }

    /**
     * Tells whether {@code b[from, to)} is ASCII without a line end ({@code \n}, {@code \r}), eight bytes at a time (a
     * byte is {@code \n} or {@code \r} when its XOR with one of them is zero: the test for a zero byte in a word is
     * exact as to whether there is one).
     */
    static boolean plainAscii(byte[] b, int from, int to) {
        final long ones = 0x0101010101010101L;
        final long highs = 0x8080808080808080L;
        long bad = 0;
        int i = from;
        for (int last = to - 8; i <= last; i += 8) {
            long w = (long) LONGS.get(b, i);
            long lf = w ^ (ones * '\n');
            long cr = w ^ (ones * '\r');
            bad |= w | ((lf - ones) & ~lf) | ((cr - ones) & ~cr);
        }
        for (; i < to; i++) {
            byte c = b[i];
            if (c == '\n' || c == '\r' || c < 0) {
                return false;
            }
        }
        return (bad & highs) == 0;
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
        return next.length / ROW;
    }

}
