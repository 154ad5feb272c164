package dev.crashlab.parse.env;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code conda list} output (with or without its {@code # packages in environment at} header) into
 * package versions, CUDA/cuDNN packages, framework builds from build strings, and the platform.
 */
public final class CondaListParser implements ArtifactParser {

    private static final String ORIGIN = "conda list";
    private static final Pattern HEADER = Pattern.compile("^#\\s*packages in environment at (.{1,500}?):?\\s*$");

    @Override
    public String name() {
        return "conda-list";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.CONDA_LIST);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        PlatformDraft platform = new PlatformDraft();
        String[] python = new String[1];
        SourceRef[] pythonRef = new SourceRef[1];
        boolean[] pythonRow = new boolean[1];
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            if (text.startsWith("#")) {
                Matcher h = HEADER.matcher(text);
                if (h.matches()) {
                    String path = h.group(1).strip();
                    platform.family(familyOfPath(path), input.at(number, text));
                    out.fact(new VersionFact("conda-env-path", path, ORIGIN, List.of(input.at(number, text))));
                }
                return;
            }
            CondaRows.Row row = CondaRows.parse(text);
            if (row == null) {
                return;
            }
            SourceRef ref = input.at(number, text);
            CondaRows.emit(out, row, ORIGIN, ref);
            platform.family(PackageFacts.osFamilyOf(row.name()), ref);
            if (row.name().equals("python")) {
                pythonRow[0] = true;
                platform.python(row.version(), ref);
            } else if (python[0] == null && row.pythonOfBuild() != null) {
                python[0] = row.pythonOfBuild();
                pythonRef[0] = ref;
            }
        });
        if (!pythonRow[0] && python[0] != null) {
            // no python row in the cut: the py36-style build strings still say which Python the env is for
            out.fact(new VersionFact("python", python[0], ORIGIN + ": build strings", List.of(pythonRef[0])));
            platform.python(python[0], pythonRef[0]);
        }
        platform.emit(out);
        return out.build();
    }

    /** Returns the OS family an environment path implies ({@code C:\...} Windows, {@code /Users/} macOS, other absolute paths Linux). */
    static String familyOfPath(String path) {
        if (path.length() >= 3 && Character.isLetter(path.charAt(0)) && path.charAt(1) == ':'
                && (path.charAt(2) == '\\' || path.charAt(2) == '/')) {
            return "windows";
        }
        if (path.startsWith("/Users/")) {
            return "macos";
        }
        return path.startsWith("/") ? "linux" : null;
    }
}
