package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.ProcessFact;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the bundle's snapshots of the machine's GPUs: an {@code nvidia-smi} table, {@code -q} or CSV output that
 * lists GPUs (with a bus id or UUID) or the processes on them, and holds nothing of the job's own output. A snapshot
 * says what the machine is at the moment it was taken (often an idle machine, after the crash, or another machine
 * altogether); the programs it lists are not the job's, and its lines are not the job's error lines.
 */
final class GpuSnapshots {

    private GpuSnapshots() {}

    /** The paths of the artifacts that are GPU snapshots. */
    static Set<String> artifacts(List<Fact> facts) {
        Set<String> snapshots = new HashSet<>();
        Set<String> jobOutput = new HashSet<>();
        for (Fact f : facts) {
            if (f instanceof GpuProcess || f instanceof GpuDevice g && (g.busId() != null || g.uuid() != null)) {
                f.sources().forEach(s -> snapshots.add(s.artifact()));
            } else if (f instanceof ProcessFact) {
                f.sources().forEach(s -> jobOutput.add(s.artifact()));
            }
        }
        snapshots.removeAll(jobOutput);
        return snapshots;
    }
}
