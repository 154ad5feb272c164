package dev.crashlab.diagnose;

import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Keeps the lines of a text artifact that {@code text:} matchers and the similarity look at: the head and
 * the tail of the file (a crash's last words are at its end; versions at its start), bounded in size.
 */
public final class TextLines {

    /** Lines kept from the start of each text artifact. */
    public static final int HEAD_LINES = 2_000;
    /** Lines kept from the end of each text artifact. */
    public static final int TAIL_LINES = 20_000;
    /** The longest line kept, in characters. */
    public static final int MAX_LINE = 4_000;

    private TextLines() {}

    /** Tells whether artifacts of this type have text lines to keep. */
    public static boolean hasText(ArtifactType type) {
        return type != ArtifactType.BINARY && type != ArtifactType.EVTX;
    }

    /** What {@link #read} kept and how many lines it saw. */
    public record Window(List<TextLine> lines, long linesSeen, long chars) {}

    /**
     * Reads every line of {@code text} and keeps at most {@code headLines} from its start and {@code tailLines}
     * from its end, each cut at {@link #MAX_LINE} characters, and no more than {@code maxChars} characters in all.
     */
    public static Window read(String artifact, BufferedReader text, int headLines, int tailLines, long maxChars)
            throws IOException {
        List<TextLine> head = new ArrayList<>();
        Deque<TextLine> tail = new ArrayDeque<>();
        long headChars = 0;
        long tailChars = 0;
        long n = 0;
        for (String line = text.readLine(); line != null; line = text.readLine()) {
            n++;
            String kept = line.length() > MAX_LINE ? line.substring(0, MAX_LINE) : line;
            if (head.size() < headLines && headChars + kept.length() <= maxChars) {
                head.add(new TextLine(artifact, n, kept));
                headChars += kept.length();
                continue;
            }
            if (tailLines == 0) {
                continue;
            }
            tail.addLast(new TextLine(artifact, n, kept));
            tailChars += kept.length();
            while (tail.size() > tailLines || (!tail.isEmpty() && headChars + tailChars > maxChars)) {
                tailChars -= tail.removeFirst().text().length();
            }
        }
        List<TextLine> out = new ArrayList<>(head.size() + tail.size());
        out.addAll(head);
        out.addAll(tail);
        return new Window(out, n, headChars + tailChars);
    }
}
