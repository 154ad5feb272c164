package dev.crashlab.parse.winevent;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.BoundedLineReader;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.Set;

/**
 * Reads Event Viewer's "Save as Text (Tab delimited)" ({@code Level⇥Date and Time⇥Source⇥Event ID⇥Task Category},
 * then rows whose sixth, unheaded column is the quoted, multi-line message) into {@code WindowsEvent}s and their
 * typed facts.
 *
 * <p>NOTE: the sniffer types these files as event text, like the other text renderings; this parser reads only
 * a file whose first non-blank line is such a header, and {@link WindowsEventTextParser} leaves those alone.
 */
public final class WindowsEventTabParser implements ArtifactParser {

    @Override
    public String name() {
        return "eventlog-tab";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.EVENTLOG_TEXT);
    }

    /** Tells whether {@code line} is the header of a tab-delimited export. */
    static boolean isHeader(String line) {
        return line.indexOf('\t') >= 0 && SavedEventTable.ofHeader(SavedEventTable.split(line.strip(), '\t')) != null;
    }

    /** How far ahead of the header the parser may look before going back (characters). */
    private static final int HEADER_LOOKAHEAD = 1 << 20;

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        // one open: the bytes may be a single pass shared with other parsers, so look at the header and go back
        try (BufferedReader text = input.openText()) {
            text.mark(HEADER_LOOKAHEAD);
            BoundedLineReader lines = new BoundedLineReader(text, SavedEventParsing.MAX_LINE);
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.isBlank()) {
                    if (!isHeader(line.replace("\uFEFF", ""))) {
                        return ParseResult.empty(); // another text rendering: WindowsEventTextParser reads it
                    }
                    break;
                }
            }
            try {
                text.reset();
            } catch (IOException pastTheMark) {
                return ParseResult.empty(); // over a megabyte of blank lines before the header: not an export we know
            }
            return SavedEventParsing.parse(input, '\t', text);
        }
    }
}
