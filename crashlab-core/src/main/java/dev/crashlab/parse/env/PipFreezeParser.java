package dev.crashlab.parse.env;

import dev.crashlab.parse.ArtifactLines;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code pip freeze} output ({@code name==version}, {@code name @ url}, {@code -e git+...#egg=name})
 * into package versions and what torch, TensorFlow and NVIDIA wheel names say about CUDA.
 */
public final class PipFreezeParser implements ArtifactParser {

    private static final String ORIGIN = "pip freeze";
    /** Lines that look like requirements but are not pins, reported one by one up to this many. */
    private static final int MAX_PROBLEMS = 5;
    private static final Pattern PIN = Pattern.compile("^([A-Za-z0-9][\\w.\\-]{0,100})(?:\\[[\\w,.\\- ]{0,100}])?\\s*===?\\s*([^\\s;#]{1,100})");
    private static final Pattern DIRECT = Pattern.compile("^([A-Za-z0-9][\\w.\\-]{0,100})(?:\\[[\\w,.\\- ]{0,100}])?\\s+@\\s+(\\S{1,2000})");
    private static final Pattern EDITABLE = Pattern.compile("^(?:-e|--editable)\\s+\\S{0,2000}?@([0-9a-fA-F]{7,40}|[\\w.\\-]{1,60})#egg=([\\w.\\-]{1,100})");

    @Override
    public String name() {
        return "pip-freeze";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.PIP_FREEZE);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        int[] problems = {0};
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            String t = text.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                return;
            }
            Matcher m = PIN.matcher(t);
            if (m.find()) {
                PackageFacts.emit(out, m.group(1), m.group(2), ORIGIN, input.at(number, text));
                return;
            }
            m = DIRECT.matcher(t);
            if (m.find()) {
                String version = archiveVersion(m.group(2), m.group(1));
                // a direct reference without a versioned file name (a local build folder) states no version
                if (version != null) {
                    PackageFacts.emit(out, m.group(1), version, ORIGIN, input.at(number, text));
                }
                return;
            }
            m = EDITABLE.matcher(t);
            if (m.find()) {
                PackageFacts.emit(out, m.group(2), m.group(1), ORIGIN + ": editable", input.at(number, text));
                return;
            }
            if (!t.startsWith("-") && problems[0]++ < MAX_PROBLEMS) {
                out.problem(new ParseProblem.MalformedInput(input.at(number, text), "not a pip freeze line"));
            }
        });
        return out.build();
    }

    /**
     * Returns the version in the wheel or sdist file name a URL ends with ({@code .../torch-2.0.1%2Bcu117-cp39-...whl},
     * {@code pkg-1.2.tar.gz}) when the file is the package {@code name}, else null.
     */
    static String archiveVersion(String url, String name) {
        String u = url;
        int cut = u.indexOf('#');
        u = cut >= 0 ? u.substring(0, cut) : u;
        cut = u.indexOf('?');
        u = cut >= 0 ? u.substring(0, cut) : u;
        String file = u.substring(u.lastIndexOf('/') + 1).replace("%2B", "+").replace("%2b", "+");
        String stem;
        String version;
        if (file.endsWith(".whl")) {
            String[] parts = file.substring(0, file.length() - 4).split("-");
            if (parts.length < 3) {
                return null;
            }
            stem = parts[0];
            version = parts[1];
        } else {
            String base = file.endsWith(".tar.gz") ? file.substring(0, file.length() - 7)
                    : file.endsWith(".zip") ? file.substring(0, file.length() - 4) : null;
            int dash = base == null ? -1 : base.lastIndexOf('-');
            if (dash <= 0) {
                return null;
            }
            stem = base.substring(0, dash);
            version = base.substring(dash + 1);
        }
        boolean same = VersionText.packageName(stem).equals(VersionText.packageName(name));
        return same && VersionText.isVersion(version) ? version : null;
    }
}
