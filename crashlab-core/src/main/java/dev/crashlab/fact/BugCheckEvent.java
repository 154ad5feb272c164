package dev.crashlab.fact;

import java.util.List;

/**
 * Windows rebooted from a bugcheck (a blue screen): {@code Microsoft-Windows-WER-SystemErrorReporting} or
 * {@code BugCheck} event 1001.
 *
 * @param code the bugcheck code, lowercase {@code 0x} + 8 hex digits ({@code 0x00000116}, VIDEO_TDR_FAILURE)
 * @param parameters the four parameters as printed, lowercase; empty when not shown
 * @param dumpPath where the dump was written; null when not shown
 * @param reportId the report id; null when not shown
 */
public record BugCheckEvent(String code, List<String> parameters, String dumpPath, String reportId,
        List<SourceRef> sources) implements WindowsFact {

    public BugCheckEvent {
        parameters = List.copyOf(parameters);
        sources = List.copyOf(sources);
    }

    @Override
    public BugCheckEvent withSources(List<SourceRef> s) {
        return new BugCheckEvent(code, parameters, dumpPath, reportId, s);
    }
}
