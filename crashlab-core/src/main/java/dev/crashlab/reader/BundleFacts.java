package dev.crashlab.reader;

import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a bundle says, read once: per artifact its facts, problems, text window and parse status, and the
 * budgets reading it reached.
 *
 * @param parserVersion the {@link BundleReader#VERSION} that read it (a newer reader reads stored bundles again)
 * @param artifacts one entry per artifact, in the order read
 * @param budgetHits the budgets reached, in the order reached
 */
public record BundleFacts(int parserVersion, List<ArtifactRead> artifacts, List<BudgetHit> budgetHits) {

    public BundleFacts {
        artifacts = List.copyOf(artifacts);
        budgetHits = List.copyOf(budgetHits);
    }

    /** Every artifact's facts, duplicates merged. */
    public List<Fact> facts() {
        List<Fact> all = new ArrayList<>();
        artifacts.forEach(a -> all.addAll(a.facts()));
        return Facts.dedupe(all);
    }

    /** Every artifact's text window, in artifact order. */
    public List<TextLine> lines() {
        List<TextLine> all = new ArrayList<>();
        artifacts.forEach(a -> all.addAll(a.window()));
        return all;
    }

    /** What the diagnosis reads. */
    public DiagnosisInput diagnosisInput() {
        return new DiagnosisInput(facts(), lines());
    }
}
