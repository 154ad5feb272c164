package dev.crashlab.fact;

import java.util.List;

/**
 * Windows rebooted without shutting down cleanly ({@code Microsoft-Windows-Kernel-Power} 41): a hard hang, a
 * power loss, or a bugcheck whose dump never got written.
 *
 * @param bugcheckCode the bugcheck code as lowercase {@code 0x} + 8 hex digits; {@code 0x00000000} means no bugcheck
 *     was recorded (power loss or hard hang); null when the event data was not shown
 * @param bugcheckParameters the four bugcheck parameters as printed; empty when not shown
 * @param sleepInProgress whether the machine was entering or leaving sleep; null when not shown
 * @param powerButtonPressed whether the power button was pressed before the reboot; null when not shown
 */
public record KernelPowerEvent(String bugcheckCode, List<String> bugcheckParameters, Boolean sleepInProgress,
        Boolean powerButtonPressed, List<SourceRef> sources) implements WindowsFact {

    public KernelPowerEvent {
        bugcheckParameters = List.copyOf(bugcheckParameters);
        sources = List.copyOf(sources);
    }

    @Override
    public KernelPowerEvent withSources(List<SourceRef> s) {
        return new KernelPowerEvent(bugcheckCode, bugcheckParameters, sleepInProgress, powerButtonPressed, s);
    }
}
