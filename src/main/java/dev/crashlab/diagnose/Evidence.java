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
 */
public record Evidence(String matcher, String text, double weight, boolean specific, List<SourceRef> sources) {
    public Evidence {
        sources = List.copyOf(sources);
    }
}
