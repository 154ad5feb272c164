package dev.crashlab.parse.env;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code pip list} tables (the {@code Package Version} columns with or without their header, and
 * the legacy {@code name (version)} form) into package versions and what framework and NVIDIA wheels say.
 */
public final class PipListParser implements ArtifactParser {

    private static final String ORIGIN = "pip list";
    private static final Pattern ROW = Pattern.compile("^([A-Za-z0-9][\\w.\\-]{0,100})\\s+(\\d[\\w.+!\\-]{0,100})(?:\\s+\\S.*)?$");
    private static final Pattern LEGACY = Pattern.compile("^([A-Za-z0-9][\\w.\\-]{0,100}) \\((\\d[\\w.+!\\-]{0,100})(?:, .*)?\\)$");

    @Override
    public String name() {
        return "pip-list";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.PIP_LIST);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        PlatformDraft platform = new PlatformDraft();
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            String t = text.strip();
            if (t.isEmpty() || t.length() > 1000) {
                return;
            }
            Matcher m = ROW.matcher(t);
            if (!m.matches()) {
                m = LEGACY.matcher(t);
                if (!m.matches()) {
                    return;
                }
            }
            PackageFacts.emit(out, m.group(1), m.group(2), ORIGIN, input.at(number, text));
            platform.family(PackageFacts.osFamilyOf(m.group(1)), input.at(number, text));
        });
        platform.emit(out);
        return out.build();
    }
}
