package dev.crashlab.parse.evtx;

import dev.crashlab.parse.evtx.EvtxTestWriter.Event;
import dev.crashlab.parse.evtx.EvtxTestWriter.Value;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A System log written by {@link EvtxTestWriter} for tests outside this package (the evidence viewer's browser
 * test): {@code count} service events numbered from {@code first}, 20 to a chunk, with a Kernel-Power 41 (the
 * machine rebooted without shutting down cleanly) at record {@link #kernelPowerRecord}.
 */
public final class EvtxSystemLogFixture {

    private EvtxSystemLogFixture() {}

    /** The record number of the Kernel-Power 41 in {@code bytes(first, count)}: the middle one. */
    public static long kernelPowerRecord(long first, int count) {
        return first + count / 2;
    }

    /** The log's bytes; each record's EventRecordID is its record header's number, as in a live log. */
    public static byte[] bytes(long first, int count) {
        EvtxTestWriter w = new EvtxTestWriter(20, first);
        long power = kernelPowerRecord(first, count);
        for (long n = first; n < first + count; n++) {
            long ticks = EvtxReaderTest.T0 + (n - first) * 10_000_000L;
            if (n == power) {
                Map<String, Value> data = new LinkedHashMap<>();
                data.put("BugcheckCode", Value.uint32(0));
                data.put("PowerButtonTimestamp", Value.uint64(0));
                data.put("SleepInProgress", Value.bool(false));
                w.add(new Event(n, "Microsoft-Windows-Kernel-Power", 41, 1, ticks, "System", "GPU-BOX", Value.sid(5, 18), data));
            } else {
                Map<String, Value> data = new LinkedHashMap<>();
                data.put("param1", Value.string("Service " + n));
                data.put("param2", Value.string("running"));
                w.add(new Event(n, "Service Control Manager", 7036, 4, ticks, "System", "GPU-BOX", null, data));
            }
        }
        return w.build();
    }
}
