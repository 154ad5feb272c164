package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The verdict policy, table-driven: each row a ranking (id:score:specific weights) and the verdict it earns. */
class VerdictPolicyTest {

    /** Only the two ids below name one cause (one the special case of the other). */
    static final BiPredicate<String, String> SAME = (a, b) -> a.equals(b)
            || (a.equals("gpu-hardware-fault") && b.equals("gpu-fallen-off-the-bus"))
            || (b.equals("gpu-hardware-fault") && a.equals("gpu-fallen-off-the-bus"));

    static Stream<Arguments> rows() {
        return Stream.of(
                // a message that names one cause, nothing else with evidence
                Arguments.of("decisive alone", "gpu-oom:1.1:0.9 host-oom:0.1 shm-too-small:0.05", "diagnosed", ""),
                // two specific matchers combine (noisy-OR: 1 - 0.4 * 0.3 = 0.88)
                Arguments.of("two matchers combine to decisive", "gpu-oom:1.0:0.6,0.7 host-oom:0.1", "diagnosed", ""),
                // one matcher below the decisive weight: the answer is a guess among siblings
                Arguments.of("specific but not decisive", "missing-cuda-dll:0.8:0.75 corrupt-install:0.14 wsl2-gpu-setup:0.1",
                        "weak", "missing-cuda-dll,corrupt-install"),
                // a sibling with its own specific evidence close behind
                Arguments.of("close rival with evidence", "driver-missing:1.0:0.75,0.7 wsl2-gpu-setup:0.68:0.6 cudnn-8-vs-9:0.17",
                        "weak", "driver-missing,wsl2-gpu-setup"),
                // a rival far behind does not matter
                Arguments.of("distant rival", "tdr-timeout:1.13:0.9,0.9 driver-bug:0.6:0.5 gpu-oom:0.1", "diagnosed", ""),
                // a close second without specific evidence is no rival
                Arguments.of("close second without evidence", "nccl-failure:0.99:0.85 shm-too-small:0.9", "diagnosed", ""),
                // the top cause's own special case close behind is the same cause, not a rival
                Arguments.of("special case is no rival", "gpu-hardware-fault:0.97:0.85 gpu-fallen-off-the-bus:0.9:0.6 gpu-oom:0.1",
                        "diagnosed", ""),
                // strong counter-evidence keeps a decisive match weak
                Arguments.of("counter-evidence", "cudnn-version-mismatch:0.9:0.95:against0.6 multiple-cuda-on-path:0.19",
                        "weak", "cudnn-version-mismatch,multiple-cuda-on-path"),
                // three close causes are all shown; the special case of one of them is not shown twice
                Arguments.of("three equals", "gpu-hardware-fault:0.6:0.6 gpu-fallen-off-the-bus:0.55:0.5 driver-bug:0.5:0.4 tdr-timeout:0.45:0.3 gpu-oom:0.1",
                        "weak", "gpu-hardware-fault,driver-bug,tdr-timeout"),
                // only consistent evidence: weak; nothing at all: no-evidence
                Arguments.of("consistent only", "host-oom:0.2:c0.45 gpu-oom:0.1", "weak", "host-oom,gpu-oom"),
                Arguments.of("nothing", "gpu-oom:0.1 host-oom:0.05", "no-evidence", ""),
                Arguments.of("empty ranking", "", "no-evidence", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void verdictFollowsTheTable(String name, String ranking, String verdict, String equals) {
        VerdictPolicy.Outcome o = VerdictPolicy.decide(parse(ranking), SAME);
        assertThat(o.verdict().written()).isEqualTo(verdict);
        assertThat(String.join(",", o.equals())).isEqualTo(equals);
    }

    /**
     * Reads {@code id:score[:w1,w2,...[:againstW]]}: each w a specific matcher's weight, {@code cW} a consistent
     * (non-specific) one.
     */
    static List<Hypothesis> parse(String ranking) {
        List<Hypothesis> out = new ArrayList<>();
        for (String h : ranking.isBlank() ? new String[0] : ranking.trim().split("\\s+")) {
            String[] p = h.split(":");
            List<Evidence> ev = new ArrayList<>();
            List<Evidence> against = new ArrayList<>();
            if (p.length > 2) {
                for (String w : p[2].split(",")) {
                    boolean specific = !w.startsWith("c");
                    ev.add(new Evidence("m" + ev.size(), "evidence", Double.parseDouble(specific ? w : w.substring(1)), specific, List.of()));
                }
            }
            if (p.length > 3) {
                against.add(new Evidence("a", "against", Double.parseDouble(p[3].substring("against".length())), true, List.of()));
            }
            double score = Double.parseDouble(p[1]);
            out.add(new Hypothesis(p[0], p[0], "test", score, score, ev, against));
        }
        return out;
    }
}
