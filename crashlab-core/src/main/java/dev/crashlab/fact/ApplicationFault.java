package dev.crashlab.fact;

import java.util.List;

/**
 * A program that crashed or hung, as Windows recorded it: Application Error 1000, Application Hang 1002, or a
 * .NET Runtime event that names an unhandled exception.
 *
 * <p>NOTE: for {@code dotnet} events {@code module} holds the .NET exception type
 * ({@code System.IO.FileNotFoundException}): the runtime names no faulting module, and the exception is what
 * faulted.
 *
 * @param event {@code crash} (Application Error 1000), {@code hang} (Application Hang 1002) or {@code dotnet}
 *     (.NET Runtime 1026, or another .NET Runtime event naming an exception)
 * @param application the executable's name ({@code python.exe}); null when not shown
 * @param applicationVersion its file version; null when not shown
 * @param applicationPath its full path; null when not shown or left unresolved ({@code %11})
 * @param module the faulting module ({@code ucrtbase.dll}), or for {@code dotnet} the exception type; null when not shown
 * @param moduleVersion the module's file version; null when not shown
 * @param modulePath the module's full path; null when not shown or unresolved
 * @param exceptionCode lowercase {@code 0x} + 8 hex digits ({@code 0xc0000409}); null when not shown
 * @param faultOffset the offset in the module, lowercase {@code 0x} + hex as printed; null when not shown
 * @param processId the faulting process id (Windows prints it in hex); null when not shown
 * @param reportId the Windows Error Reporting report id (a GUID, lowercase), linking to the WER 1001 event; null when absent
 */
public record ApplicationFault(String event, String application, String applicationVersion,
        String applicationPath, String module, String moduleVersion, String modulePath,
        String exceptionCode, String faultOffset, Long processId, String reportId,
        List<SourceRef> sources) implements WindowsFact {

    public ApplicationFault {
        sources = List.copyOf(sources);
    }

    @Override
    public ApplicationFault withSources(List<SourceRef> s) {
        return new ApplicationFault(event, application, applicationVersion, applicationPath, module, moduleVersion,
                modulePath, exceptionCode, faultOffset, processId, reportId, s);
    }
}
