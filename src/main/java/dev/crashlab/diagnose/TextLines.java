package dev.crashlab.diagnose;

import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Reads the lines of a text artifact that {@code text:} matchers and the similarity look at: the head and
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

    /** Appends the head and tail lines of an artifact to {@code out}; binary artifacts and unreadable files add nothing. */
    public static void read(ParseInput input, List<TextLine> out) {
        if (input.type() == ArtifactType.BINARY || input.type() == ArtifactType.EVTX) {
            return;
        }
        List<TextLine> head = new ArrayList<>();
        Deque<TextLine> tail = new ArrayDeque<>();
        try (BufferedReader r = input.openText()) {
            String line;
            long n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                TextLine t = new TextLine(input.path(), n, line.length() > MAX_LINE ? line.substring(0, MAX_LINE) : line);
                if (n <= HEAD_LINES) {
                    head.add(t);
                } else {
                    tail.addLast(t);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable file contributes its facts (or its parse problem) only
            return;
        }
        out.addAll(head);
        out.addAll(tail);
    }
}
