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
 */
public record XidEvent(int code, String busId, Long pid, String mnemonic, String meaning, String text,
        List<SourceRef> sources) implements GpuFact {

    public XidEvent {
        sources = List.copyOf(sources);
    }

    @Override
    public XidEvent withSources(List<SourceRef> s) {
        return new XidEvent(code, busId, pid, mnemonic, meaning, text, s);
    }
}
