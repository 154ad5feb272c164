package dev.crashlab.parse.evtx;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * Is one event of a log with the readable records just before and after it in file order, as an evidence link
 * opens it ({@code System.evtx:62782}: the record whose EventRecordID is 62782).
 *
 * @param record the record asked for
 * @param before up to the asked number of records before it, oldest first
 * @param after up to the asked number of records after it
 */
public record EvtxRecordWindow(EvtxRecord record, List<EvtxRecord> before, List<EvtxRecord> after) {

    public EvtxRecordWindow {
        before = List.copyOf(before);
        after = List.copyOf(after);
    }

    /** Finds the first record numbered {@code recordId} in {@code records}, with {@code neighbours} on each side. */
    public static Optional<EvtxRecordWindow> find(Iterator<EvtxRecord> records, long recordId, int neighbours) {
        Deque<EvtxRecord> before = new ArrayDeque<>();
        while (records.hasNext()) {
            EvtxRecord r = records.next();
            if (r.recordId() == recordId) {
                List<EvtxRecord> after = new ArrayList<>();
                while (after.size() < neighbours && records.hasNext()) {
                    after.add(records.next());
                }
                return Optional.of(new EvtxRecordWindow(r, new ArrayList<>(before), after));
            }
            before.addLast(r);
            if (before.size() > neighbours) {
                before.removeFirst();
            }
        }
        return Optional.empty();
    }
}
