package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import java.util.List;

/**
 * What a diagnosis reads: the bundle's facts and, where available, the lines of its text artifacts.
 *
 * @param facts every fact of every artifact
 * @param lines text lines (possibly only the head and tail of long logs); empty when only facts are known
 */
public record DiagnosisInput(List<Fact> facts, List<TextLine> lines) {
    public DiagnosisInput {
        facts = List.copyOf(facts);
        lines = List.copyOf(lines);
    }
}
