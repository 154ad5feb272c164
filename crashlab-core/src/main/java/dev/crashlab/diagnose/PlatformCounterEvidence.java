package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Platform;
import dev.crashlab.kb.KbArticle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Counts a stated platform outside an article's {@code platforms:} against it (README: "evidence of another
 * platform counts against"); e.g. a zlibwapi.dll article on a Linux job.
 */
final class PlatformCounterEvidence implements Rule {

    /** How strongly another platform counts against: strong, since the cause cannot occur there. */
    static final double WEIGHT = 0.8;

    @Override
    public String name() {
        return "platform-counter-evidence";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.input.facts().stream().anyMatch(f -> f instanceof Platform p && p.osFamily() != null);
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        List<Platform> platforms = new ArrayList<>();
        for (Fact f : ctx.input.facts()) {
            if (f instanceof Platform p && p.osFamily() != null) {
                platforms.add(p);
            }
        }
        for (KbArticle a : ctx.kb.articles()) {
            if (a.platforms().isEmpty()) {
                continue;
            }
            boolean fits = platforms.stream().anyMatch(p -> fits(a.platforms(), p.osFamily().toLowerCase(Locale.ROOT)));
            if (!fits) {
                Platform p = platforms.getFirst();
                ctx.addEvidence(a.id(), new Evidence("platform", "the job ran on " + p.osFamily() + "; this cause occurs on "
                        + String.join(", ", a.platforms()), WEIGHT, false, p.sources().stream().limit(1).toList()), true);
            }
        }
    }

    // WSL2 runs Linux builds and a Linux kernel, so a Linux cause applies there too
    private static boolean fits(List<String> platforms, String os) {
        return platforms.contains(os) || (os.equals("wsl2") && platforms.contains("linux"));
    }
}
