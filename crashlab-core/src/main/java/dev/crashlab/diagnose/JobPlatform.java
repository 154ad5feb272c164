package dev.crashlab.diagnose;

import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.ProcessFact;
import dev.crashlab.fact.SourceRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where the job ran, when the bundle's files disagree. The job's own output (an artifact with process facts: its
 * errors, traceback, exit status) shows the OS it ran on where a line proves it (a {@code C:\...\python.exe}
 * interpreter, WSL2's {@code /usr/lib/wsl/lib}). A summary written by another program describes the machine that
 * program ran on: the Linux collector run in WSL2 beside a native-Windows job, or on a server the log was copied to.
 * When the job's output names exactly one OS family, the platform statements of other artifacts that name a
 * different family describe another machine and are set aside (the job's OS, CPU and Python are not theirs).
 */
final class JobPlatform {

    private JobPlatform() {}

    /** Returns {@code input} with the other machine's platform statements set aside, or {@code input} itself. */
    static DiagnosisInput settle(DiagnosisInput input) {
        Set<String> jobArtifacts = new HashSet<>();
        for (Fact f : input.facts()) {
            if (f instanceof ProcessFact) {
                f.sources().forEach(s -> jobArtifacts.add(s.artifact()));
            }
        }
        Set<String> jobFamilies = new HashSet<>();
        for (Fact f : input.facts()) {
            if (f instanceof Platform p && p.osFamily() != null && fromJob(p, jobArtifacts)) {
                jobFamilies.add(p.osFamily().toLowerCase(Locale.ROOT));
            }
        }
        if (jobFamilies.size() != 1) {
            return input; // the job's output says nothing about its OS, or contradicts itself: nothing to settle
        }
        String family = jobFamilies.iterator().next();
        List<Fact> kept = new ArrayList<>(input.facts().size());
        boolean changed = false;
        for (Fact f : input.facts()) {
            if (f instanceof Platform p && p.osFamily() != null && !fromJob(p, jobArtifacts)
                    && !p.osFamily().toLowerCase(Locale.ROOT).equals(family)) {
                changed = true;
                continue;
            }
            kept.add(f);
        }
        return changed ? new DiagnosisInput(kept, input.lines()) : input;
    }

    private static boolean fromJob(Platform p, Set<String> jobArtifacts) {
        return p.sources().stream().map(SourceRef::artifact).anyMatch(jobArtifacts::contains);
    }
}
