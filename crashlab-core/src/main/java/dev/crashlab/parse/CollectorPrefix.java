package dev.crashlab.parse;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prefix a log collector or launcher writes before each line of a program's output: {@code docker compose}'s
 * service tag ({@code trainer-1  | }), an ISO time stamp ({@code kubectl logs --timestamps}, CI runners,
 * {@code ts}), {@code torchrun}'s rank tag ({@code [rank0]: }, {@code [default0]:}). The program printed the same
 * message without it, so a {@code text:} matcher written for the message (often anchored at the line's start)
 * reads the line with the prefix taken off as well.
 */
public final class CollectorPrefix {

    private CollectorPrefix() {}

    private static final Pattern PREFIX = Pattern.compile(
            "^(?:"
                    // docker compose / swarm: "svc-1  | ", "home-assistant   | "
                    + "[A-Za-z0-9][\\w.-]{0,63}\\s{1,16}\\|\\s?"
                    // an ISO 8601 time stamp followed by a blank: "2025-03-14T09:00:01.123Z ", "2025-03-14 09:00:01,123 "
                    + "|\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d{1,9})?(?:Z|[+-]\\d{2}:?\\d{2})?\\s+"
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
