package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.SourceRef;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Measures how similar each article is to the bundle's error lines (the facts' source lines and lines that
 * read like errors): a weak signal that breaks ties and ranks bundles no matcher recognises.
 */
final class MeasureTextSimilarity implements Rule {

    private static final Pattern ERRORISH = Pattern.compile(
            "(?i)error|fail|exception|fatal|abort|killed|could not|cannot|can't|unable|not found|exit code|status|"
                    + "out of memory|illegal|segmentation|core dumped|crash|stopped|warning");

    /** The most lines sent as the similarity query. */
    static final int MAX_LINES = 200;

    @Override
    public String name() {
        return "measure-text-similarity";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.similarity != TextSimilarity.NONE;
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        Set<String> lines = new LinkedHashSet<>();
        for (Fact f : ctx.input.facts()) {
            for (SourceRef s : f.sources()) {
                lines.add(s.text());
            }
        }
        for (TextLine l : ctx.input.lines()) {
            if (lines.size() >= MAX_LINES) {
                break;
            }
            if (l.text().length() < 600 && ERRORISH.matcher(l.text()).find()) {
                lines.add(l.text());
            }
        }
        if (!lines.isEmpty()) {
            ctx.similarityScores.putAll(ctx.similarity.similarity(List.copyOf(lines).subList(0, Math.min(lines.size(), MAX_LINES))));
        }
    }
}
