package dev.crashlab.repro;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.fact.ReplayOutcome;
import dev.crashlab.fact.SourceRef;
import java.util.List;
import java.util.Optional;

/**
 * Turns a finished reproduction job's stored result into a {@link ReplayOutcome} fact, so that a replay becomes
 * evidence in the bundle's diagnosis (an out-of-memory reproduced under the reporter's cap raises
 * {@code gpu-oom}; a pass over 2 s on a GPU raises {@code tdr-timeout}; so do the findings' verdicts on the reporter's
 * card: a batch that does not fit it, a pass that needs more than 2 s on it).
 *
 * <p>NOTE: reads the worker's completion JSON ({@code {"replay": {...}, "child": {...}}}) as a tree and tolerates
 * missing parts: a job whose child crashed before writing a replay still states how it ended.
 */
public final class ReplayOutcomes {

    private ReplayOutcomes() {}

    /** The outcome of a finished job, or empty for a job without an end state or a result. */
    public static Optional<ReplayOutcome> of(long jobId, String state, JsonNode result) {
        if (state == null || result == null || result.isNull() || result.isMissingNode()) {
            return Optional.empty();
        }
        JsonNode replay = result.path("replay");
        boolean oom = false;
        boolean tdr = false;
        boolean mismatch = false;
        String detail = null;
        for (JsonNode layer : replay.path("layers")) {
            String status = layer.path("status").asText("");
            boolean layerTdr = layer.path("tdr_risk").asBoolean(false) || layer.path("tdrRisk").asBoolean(false);
            oom |= status.equals("out-of-memory");
            mismatch |= status.equals("mismatch");
            tdr |= layerTdr;
            if (detail == null && (!status.equals("passed") || layerTdr)) {
                String message = layer.path("message").asText(null);
                detail = layer.path("name").asText("a layer") + ": " + (layerTdr && status.equals("passed")
                        ? "a pass took longer than 2 s" : status + (message == null ? "" : " (" + message + ")"));
            }
        }
        if (detail == null && !state.equals("passed")) {
            String reason = replay.path("reason").asText(null);
            JsonNode child = result.path("child");
            detail = reason != null ? reason : child.isMissingNode() ? null : "the child " + child.path("ending").asText("ended");
        }
        String backend = replay.path("backend").asText(result.path("backend").asText(null));
        String device = replay.path("device").asText(null);
        long cap = replay.has("memory_cap_bytes") ? replay.path("memory_cap_bytes").asLong(0)
                : replay.path("memoryCapBytes").asLong(0);
        JsonNode findings = replay.path("findings");
        boolean tooBig = findings.path("exceeds_reporter_memory").asBoolean(false);
        boolean overWatchdog = findings.path("exceeds_watchdog").asBoolean(false);
        String memoryFinding = findings.path("memory").asText(null);
        String timeFinding = findings.path("time").asText(null);
        String summary = "repro job #" + jobId + " " + state + " on " + (device != null ? device : backend)
                + (cap > 0 ? " under a " + (cap >> 20) + " MiB cap" : "") + (detail != null ? ": " + detail : "");
        return Optional.of(new ReplayOutcome(jobId, state, backend, device, cap, oom, tdr, mismatch, detail, tooBig,
                overWatchdog, memoryFinding, timeFinding, List.of(new SourceRef("repro job #" + jobId, jobId, summary))));
    }
}
