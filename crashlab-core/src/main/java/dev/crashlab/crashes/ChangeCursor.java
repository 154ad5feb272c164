package dev.crashlab.crashes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How far a server has read a change log whose ids come from a database sequence: the mark (every id at or below it
 * was applied, or given up as never coming) and what was applied above it.
 *
 * <p>NOTE: sequence values are taken when a transaction inserts, not when it commits, so id 7 can become visible
 * after id 8: a missing id below the highest one seen is a gap that may still fill. A gap is asked for again on
 * every poll until it fills or has been missing for {@code gapWait} (a rolled-back transaction leaves a gap that
 * never fills); only then does the mark pass it. The mark is what a server stores next to its index: after a
 * restart it reads again from there, and applying a change twice is harmless (a change is "make this bundle as the
 * database has it now"). Not thread-safe: one poller owns it.
 */
public final class ChangeCursor {

    /** The most missing ids tracked at once; a wider hole than this cannot be open transactions and is passed. */
    static final int MAX_GAPS = 10_000;

    private final long gapWaitMillis;
    private long mark;
    private final TreeSet<Long> appliedAbove = new TreeSet<>();
    // missing id -> when it was first found missing (epoch ms)
    private final TreeMap<Long, Long> gaps = new TreeMap<>();

    public ChangeCursor(long mark, Duration gapWait) {
        this.mark = mark;
        this.gapWaitMillis = gapWait.toMillis();
    }

    /** Every id at or below this was applied or given up. */
    public long mark() {
        return mark;
    }

    /** The highest id applied (at least the mark): new rows are those above it. */
    public long highest() {
        return appliedAbove.isEmpty() ? mark : Math.max(mark, appliedAbove.last());
    }

    /** The missing ids still waited for, lowest first, at most {@code max}. */
    public List<Long> gaps(int max) {
        List<Long> out = new ArrayList<>();
        for (Long id : gaps.keySet()) {
            if (out.size() >= max) {
                break;
            }
            out.add(id);
        }
        return out;
    }

    /** Whether a change with this id still has to be applied. */
    public boolean pending(long id) {
        return id > mark && !appliedAbove.contains(id);
    }

    /** Records that the change with this id was applied. */
    public void applied(long id) {
        if (id > mark) {
            appliedAbove.add(id);
            gaps.remove(id);
        }
    }

    /**
     * After a poll: notes the ids missing below the highest applied one as gaps (first seen {@code nowMillis}) and moves
     * the mark over everything applied, and over gaps missing for longer than the wait. Returns whether it moved.
     */
    public boolean advance(long nowMillis) {
        long before = mark;
        long top = highest();
        int tracked = gaps.size();
        for (long id = mark + 1; id < top && tracked < MAX_GAPS; id++) {
            if (!appliedAbove.contains(id) && gaps.putIfAbsent(id, nowMillis) == null) {
                tracked++;
            }
        }
        while (true) {
            long next = mark + 1;
            if (appliedAbove.remove(next)) {
                mark = next;
                continue;
            }
            if (next >= top) {
                break;
            }
            Long seen = gaps.get(next);
            // untracked (past the cap): a hole that wide is no set of transactions still open
            if (seen == null || nowMillis - seen >= gapWaitMillis) {
                gaps.remove(next);
                mark = next;
                continue;
            }
            break;
        }
        return mark != before;
    }
}
