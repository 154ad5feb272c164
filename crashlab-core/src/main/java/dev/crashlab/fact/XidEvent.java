package dev.crashlab.fact;

import java.util.List;

/**
 * One NVIDIA Xid error the kernel driver logged ({@code NVRM: Xid (PCI:0000:3b:00): 79, ...}).
 *
 * @param code the Xid number
 * @param busId the PCI address as printed after {@code PCI:}
 * @param pid the process the driver blamed; null where not printed or {@code <unknown>}
 * @param mnemonic NVIDIA's short name for the code ({@code GPU_HAS_FALLEN_OFF_THE_BUS}); null if not in our table
 * @param meaning what the code means, in a sentence; null if not in our table
 * @param text the driver's own message after the code
 * @param processesOnGpu how many different processes (pids other than 0) the driver blamed for an Xid on this GPU
 *     (the same bus id) in the same log, this one included; null where this line names no process. A program's
 *     bug faults in its own process; one GPU faulting for many processes is a sign of the GPU (derived by the
 *     kernel-log parser once the whole log is read)
 */
public record XidEvent(int code, String busId, Long pid, String mnemonic, String meaning, String text,
        Integer processesOnGpu, List<SourceRef> sources) implements GpuFact {

    public XidEvent {
        sources = List.copyOf(sources);
    }

    /** This event with the count of processes that faulted on its GPU. */
    public XidEvent withProcessesOnGpu(Integer n) {
        return new XidEvent(code, busId, pid, mnemonic, meaning, text, n, sources);
    }

    @Override
    public XidEvent withSources(List<SourceRef> s) {
        return new XidEvent(code, busId, pid, mnemonic, meaning, text, processesOnGpu, s);
    }
}
