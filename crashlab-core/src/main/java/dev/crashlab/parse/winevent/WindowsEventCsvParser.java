package dev.crashlab.parse.winevent;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.Set;

/**
 * Reads Event Viewer's "Save as CSV" (positional columns in the display language, an unheaded quoted message
 * column spanning lines) and {@code Get-WinEvent | Export-Csv} (named columns) into {@code WindowsEvent}s and
 * their typed facts.
 */
public final class WindowsEventCsvParser implements ArtifactParser {

    @Override
    public String name() {
        return "eventlog-csv";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.EVENTLOG_CSV);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        return SavedEventParsing.parse(input, ',');
    }
}
