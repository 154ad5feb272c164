package dev.crashlab.fact;

import java.util.List;

/**
 * One Windows Error Reporting report (Windows Error Reporting event 1001): what kind of problem was reported,
 * its bucket, and its problem signature P1..P10.
 *
 * @param eventName the WER event name ({@code APPCRASH}, {@code BEX64}, {@code CLR20r3}, {@code LiveKernelEvent}); null when not shown
 * @param bucket the fault bucket id; null when empty
 * @param bucketType the bucket type number; null when not shown
 * @param parameters P1..P10 in order, an empty string for an empty parameter, as many as were shown
 * @param application P1 where the event name says it is the application ({@code APPCRASH}, {@code BEX}, {@code BEX64},
 *     {@code CLR20r3}, {@code AppHang*}, {@code MoAppCrash}); null otherwise
 * @param exceptionCode the exception code from the signature, lowercase {@code 0x} + 8 hex digits: P7 of
 *     {@code APPCRASH}, P8 of {@code BEX}/{@code BEX64}; null for other events
 * @param attachedFiles the files WER attached (paths as printed); empty when none
 * @param reportId the report id (lowercase), shared with the Application Error 1000 event; null when absent
 * @param hashedBucket the hashed bucket; null when empty
 */
public record WerReport(String eventName, String bucket, Integer bucketType, List<String> parameters,
        String application, String exceptionCode, List<String> attachedFiles, String reportId, String hashedBucket,
        List<SourceRef> sources) implements WindowsFact {

    public WerReport {
        parameters = List.copyOf(parameters);
        attachedFiles = List.copyOf(attachedFiles);
        sources = List.copyOf(sources);
    }

    @Override
    public WerReport withSources(List<SourceRef> s) {
        return new WerReport(eventName, bucket, bucketType, parameters, application, exceptionCode, attachedFiles,
                reportId, hashedBucket, s);
    }
}
