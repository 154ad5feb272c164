package dev.crashlab.diagnose;

import dev.crashlab.fact.SourceRef;
import java.util.List;

/**
 * One matched matcher of one article: the sentence shown to the user and the source lines behind it.
 *
 * @param matcher the matcher's id in the article
 * @param text the evidence sentence
 * @param weight the matcher's weight
 * @param specific whether it points at this cause rather than being merely consistent with it
 * @param sources the source lines (artifact, line, text) of the facts it matched
 * @param context true when it is context (the OS, the card's driver mode, a version present) that makes a cause
 *     plausible but is never its only evidence
 */
public record Evidence(String matcher, String text, double weight, boolean specific, List<SourceRef> sources,
        boolean context) {
    public Evidence {
        sources = List.copyOf(sources);
    }

    /** Evidence that is not context. */
    public Evidence(String matcher, String text, double weight, boolean specific, List<SourceRef> sources) {
        this(matcher, text, weight, specific, sources, false);
    }

    /** The fact kinds whose consistent matchers are context: what the machine is, not what happened on it. */
    static final java.util.Set<String> CONTEXT_KINDS = java.util.Set.of("Platform", "VersionFact", "BuildInfo", "GpuDevice",
            "TrainingSetup", "ConvSpec");

    /** Tells whether a matcher's match is context: consistent (not specific) and on a context fact kind. */
    static boolean isContext(dev.crashlab.kb.Matcher m) {
        return !m.specific() && m.source() == dev.crashlab.kb.Matcher.Source.FACT && CONTEXT_KINDS.contains(m.factKind());
    }
}
