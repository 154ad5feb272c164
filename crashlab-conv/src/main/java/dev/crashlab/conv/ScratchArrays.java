package dev.crashlab.conv;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The scratch arrays a CPU backend keeps from one pass to the next, so that a pass run again (the next batch, the
 * next step of a replay, a benchmark's samples) takes the arrays the last one gave back instead of allocating new
 * ones: a new large array costs page faults on freshly committed heap and, a few passes later, a collection; on the
 * ResNet-50 layers of {@code scripts/bench repro} the collector's threads and the kernel's time took 2-19 % of a pass's
 * CPU time (1x1 forward the most) before the arrays were kept.
 *
 * <p>NOTE: an array is handed out zeroed, as a new one would be (or as it was left, where the pass asks for that:
 * {@link Lease#unsetFloats}), and belongs to one pass until {@link Lease#release}; arrays nobody took in the last
 * {@link #KEEP_PASSES} passes are dropped, and what is kept is bounded by {@link #MAX_KEPT_BYTES}, so a replay that
 * moves from layer to layer holds at most its last passes' scratch (idle, outside any pass's {@code peak_bytes}), and
 * softly: the collector takes idle arrays back before the heap would run out. Thread-safe: a pass's tasks take arrays
 * concurrently.
 */
final class ScratchArrays {

    /** Passes an unused array is kept for: the three passes of one layer. */
    static final int KEEP_PASSES = 3;

    /** The most bytes of idle arrays kept between passes. */
    static final long MAX_KEPT_BYTES = 256L << 20;

    // softly held: the collector may take an idle array back when the heap runs short (a replay near the child JVM's
    // -Xmx), before it would fail an allocation
    private record Idle(SoftReference<Object> array, long bytes, long lastPass) {}

    private final Map<Integer, ArrayDeque<Idle>> floats = new HashMap<>();
    private final Map<Integer, ArrayDeque<Idle>> ints = new HashMap<>();
    private long passes;
    private long keptBytes;

    /** One pass's arrays, given back together when the pass ends. */
    final class Lease {
        private final List<Object> taken = new ArrayList<>();

        /** A zeroed array of {@code n} floats. */
        float[] floats(int n) {
            float[] a = (float[]) take(floats, n);
            if (a != null) {
                Arrays.fill(a, 0f);
            }
            return hold(a != null ? a : new float[n]);
        }

        /** An array of {@code n} floats holding whatever the pass that last used it left there (zeros if new). */
        float[] unsetFloats(int n) {
            float[] a = (float[]) take(floats, n);
            return hold(a != null ? a : new float[n]);
        }

        /** A zeroed array of {@code n} ints. */
        int[] ints(int n) {
            int[] a = (int[]) take(ints, n);
            if (a != null) {
                Arrays.fill(a, 0);
            }
            return hold(a != null ? a : new int[n]);
        }

        private synchronized <T> T hold(T a) {
            taken.add(a);
            return a;
        }

        /** Gives every array of this pass back; none may be used after this. */
        void release() {
            List<Object> all;
            synchronized (this) {
                all = new ArrayList<>(taken);
                taken.clear();
            }
            ScratchArrays.this.release(all);
        }
    }

    /** A lease for one pass. */
    Lease lease() {
        return new Lease();
    }

    private synchronized Object take(Map<Integer, ArrayDeque<Idle>> idle, int n) {
        ArrayDeque<Idle> q = idle.get(n);
        while (q != null && !q.isEmpty()) {
            Idle i = q.pollLast();
            keptBytes -= i.bytes();
            Object a = i.array().get();
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    private synchronized void release(List<Object> arrays) {
        passes++;
        for (Object a : arrays) {
            boolean isFloats = a instanceof float[];
            int n = isFloats ? ((float[]) a).length : ((int[]) a).length;
            long bytes = 4L * n;
            (isFloats ? floats : ints).computeIfAbsent(n, k -> new ArrayDeque<>())
                    .addLast(new Idle(new SoftReference<>(a), bytes, passes));
            keptBytes += bytes;
        }
        // drop what the last passes did not use, then the oldest until the rest fits the bound
        evict(passes - KEEP_PASSES, -1);
        for (long before = passes - KEEP_PASSES + 1; keptBytes > MAX_KEPT_BYTES && before <= passes; before++) {
            evict(before, MAX_KEPT_BYTES);
        }
    }

    // drops idle arrays last used in pass `before` or earlier, while more than `bound` bytes are kept
    private void evict(long before, long bound) {
        for (Map<Integer, ArrayDeque<Idle>> idle : List.of(floats, ints)) {
            for (Iterator<ArrayDeque<Idle>> qs = idle.values().iterator(); qs.hasNext();) {
                ArrayDeque<Idle> q = qs.next();
                for (Iterator<Idle> it = q.iterator(); it.hasNext() && keptBytes > bound;) {
                    Idle i = it.next();
                    if (i.lastPass() <= before) {
                        it.remove();
                        keptBytes -= i.bytes();
                    }
                }
                if (q.isEmpty()) {
                    qs.remove();
                }
            }
        }
    }

    /** Bytes of idle arrays kept now, those the collector took back included until they are looked for (for tests). */
    synchronized long keptBytes() {
        return keptBytes;
    }
}
