package dev.crashlab.fact;

import java.util.List;

/**
 * The hardware reported an error through WHEA ({@code Microsoft-Windows-WHEA-Logger}): a machine check, a PCI
 * Express error, a memory error; on GPU machines often the card's PCIe link.
 *
 * @param eventId the WHEA-Logger event id (17 corrected PCIe, 18 fatal, 19 corrected, 47 memory...); null when not shown
 * @param severity {@code fatal} or {@code corrected}, from the message; null when the message does not say
 * @param component the reporting component ({@code PCI Express Root Port}, {@code Processor Core}); null when not shown
 * @param errorSource the error source ({@code Advanced Error Reporting (PCI Express)}, {@code Machine Check Exception}); null when not shown
 * @param errorType the error type ({@code Cache Hierarchy Error}); null when not shown
 * @param location the primary bus:device:function ({@code 0x0:0x1:0x0}); null when not shown
 * @param deviceName the primary device name ({@code PCI\VEN_10DE&DEV_2484...}); null when not shown
 */
public record WheaEvent(Integer eventId, String severity, String component, String errorSource, String errorType,
        String location, String deviceName, List<SourceRef> sources) implements WindowsFact {

    public WheaEvent {
        sources = List.copyOf(sources);
    }

    @Override
    public WheaEvent withSources(List<SourceRef> s) {
        return new WheaEvent(eventId, severity, component, errorSource, errorType, location, deviceName, s);
    }
}
