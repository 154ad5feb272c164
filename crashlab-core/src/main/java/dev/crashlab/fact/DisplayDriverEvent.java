package dev.crashlab.fact;

import java.util.List;

/**
 * The display driver reported a problem: {@code Display} 4101 (the TDR watchdog reset a driver that stopped
 * responding) or an {@code nvlddmkm} event (13 graphics exception, 14, 153 reset, 0...).
 *
 * @param provider {@code Display} or the driver's own source ({@code nvlddmkm})
 * @param eventId the event id; null when not shown
 * @param driver the display driver's name ({@code nvlddmkm}); null when not named
 * @param device the kernel device ({@code \Device\Video3}); null when not shown
 * @param gpuId the GPU id the driver printed ({@code Error occurred on GPUID: 100} gives {@code 100}); null when not shown
 * @param detail the driver's own text other than the device (graphics exception, ESR values, GPU id line); null when none
 * @param recovered for {@code Display} 4101: whether Windows says the driver recovered after its reset; null for driver events
 */
public record DisplayDriverEvent(String provider, Integer eventId, String driver, String device, String gpuId,
        String detail, Boolean recovered, List<SourceRef> sources) implements WindowsFact {

    public DisplayDriverEvent {
        sources = List.copyOf(sources);
    }

    @Override
    public DisplayDriverEvent withSources(List<SourceRef> s) {
        return new DisplayDriverEvent(provider, eventId, driver, device, gpuId, detail, recovered, s);
    }
}
