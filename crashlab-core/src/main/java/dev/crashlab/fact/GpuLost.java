package dev.crashlab.fact;

import java.util.List;

/**
 * A GPU the driver could not reach, or a driver nvidia-smi could not talk to ("GPU is lost", "Unable to
 * determine the device handle", "couldn't communicate with the NVIDIA driver").
 *
 * @param busId the PCI bus id of the lost GPU as printed; null where the message names none
 * @param message the message as printed
 */
public record GpuLost(String busId, String message, List<SourceRef> sources) implements GpuFact {

    public GpuLost {
        sources = List.copyOf(sources);
    }

    @Override
    public GpuLost withSources(List<SourceRef> s) {
        return new GpuLost(busId, message, s);
    }
}
