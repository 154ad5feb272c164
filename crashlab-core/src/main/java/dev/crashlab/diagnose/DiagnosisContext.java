package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatData;
import dev.crashlab.compat.CompatOutcome;
import dev.crashlab.compat.SoftwareStack;
import dev.crashlab.kb.KnowledgeBase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state the rule pipeline works on: its inputs, and what each rule adds (stack, compat outcomes,
 * evidence per article, scores, notes, a log of what each rule did).
 */
public final class DiagnosisContext {

    /** The facts and lines that may be evidence (Windows events of other programs and times set aside). */
    final DiagnosisInput input;
    /** Everything the bundle holds, evidence or not (what "To be sure" must not ask for again). */
    DiagnosisInput allInput;
    final KnowledgeBase kb;
    final CompatData compatData;
    final TextSimilarity similarity;
    final FactFields fields = new FactFields();
    SoftwareStack stack;
    List<CompatOutcome> compat = List.of();
    final Map<String, Map<String, Evidence>> evidence = new LinkedHashMap<>();
    final Map<String, Map<String, Evidence>> against = new LinkedHashMap<>();
    final Map<String, Double> similarityScores = new HashMap<>();
    final Map<String, Double> scores = new HashMap<>();
    /** The lines text matchers read (built once, by {@link MatchTextMatchers#lines}). */
    List<dev.crashlab.fact.SourceRef> textLines;
    List<Hypothesis> ranked = List.of();
    List<Ask> ask = List.of();
    final List<String> notes = new ArrayList<>();
    final List<String> log = new ArrayList<>();

    DiagnosisContext(DiagnosisInput input, KnowledgeBase kb, CompatData compatData, TextSimilarity similarity) {
        this.input = input;
        this.allInput = input;
        this.kb = kb;
        this.compatData = compatData;
        this.similarity = similarity;
    }

    /** Records a match; a matcher counts once per article, its sources accumulate. */
    void addEvidence(String article, Evidence e, boolean counter) {
        Map<String, Evidence> m = (counter ? against : evidence).computeIfAbsent(article, k -> new LinkedHashMap<>());
        m.merge(e.matcher(), e, (a, b) -> {
            List<dev.crashlab.fact.SourceRef> s = new ArrayList<>(a.sources());
            b.sources().stream().filter(x -> !s.contains(x)).forEach(s::add);
            return new Evidence(a.matcher(), a.text(), a.weight(), a.specific(), s.size() > 8 ? s.subList(0, 8) : s, a.context());
        });
    }

    /** Adds a note (a rule failure, a regex that ran out of time). */
    void note(String note) {
        if (!notes.contains(note) && notes.size() < 50) {
            notes.add(note);
        }
    }
}
