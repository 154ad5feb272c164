package dev.crashlab.parse;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prefix a log collector or launcher writes before each line of a program's output: {@code docker compose}'s
 * service tag ({@code trainer-1  | }), an ISO time stamp ({@code kubectl logs --timestamps}, CI runners,
 * {@code ts}; with the stream in a Kubernetes container's log file), the systemd journal's date, host and
 * {@code program[pid]:}, {@code torchrun}'s rank tag ({@code [rank0]: }, {@code [default0]:}). The program printed the same
 * message without it, so a {@code text:} matcher written for the message (often anchored at the line's start)
 * reads the line with the prefix taken off as well.
 *
 * <p>NOTE: a glog / absl prefix ({@code W0104 13:46:27.896000 80302 torch/distributed/run.py:792] }) is the program's own
 * logger's, and its level letter is read: it stays (taking it off changed a corpus case's reading).
 */
public final class CollectorPrefix {

    private CollectorPrefix() {}

    private static final Pattern PREFIX = Pattern.compile(
            "^(?:"
                    // docker compose / swarm: "svc-1  | ", "home-assistant   | "
                    + "[A-Za-z0-9][\\w.-]{0,63}\\s{1,16}\\|\\s?"
                    // an ISO 8601 time stamp followed by a blank: "2025-03-14T09:00:01.123Z ", "2025-03-14 09:00:01,123 "; in a
                    // Kubernetes container's log file (CRI) the stream and the full/partial tag follow: "... stderr F "
                    + "|\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d{1,9})?(?:Z|[+-]\\d{2}:?\\d{2})?\\s+"
                    + "(?:(?:stdout|stderr) [FP] )?"
                    // the systemd journal's short form: "Nov 29 10:00:01 gpu-node python3[4242]: " (a program's, with its
                    // PID; the kernel's own "kernel: " lines are left as written)
                    + "|[A-Z][a-z]{2} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} [\\w.-]{1,64} [\\w.@/-]{1,64}\\[\\d{1,10}\\]: ?"
                    // torchrun / torch.distributed.elastic: "[rank0]: ", "[default0]:", "[rank3]:[W ..."
                    + "|\\[(?:rank|default)\\d{1,5}\\]:\\s?"
                    + "){1,3}");

    /** The line without its collector prefix, or the line itself when it has none. */
    public static String strip(String line) {
        Matcher m = PREFIX.matcher(line);
        if (m.lookingAt() && m.end() < line.length()) {
            return line.substring(m.end());
        }
        return line;
    }
}
