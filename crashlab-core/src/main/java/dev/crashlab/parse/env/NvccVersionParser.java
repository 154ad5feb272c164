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

/** Reads {@code nvcc -V} output into the CUDA toolkit's release and nvcc's exact version. */
public final class NvccVersionParser implements ArtifactParser {

    private static final String ORIGIN = "nvcc -V";
    private static final Pattern RELEASE = Pattern.compile("Cuda compilation tools, release (\\d{1,3}\\.\\d{1,3}), V(\\d{1,3}\\.\\d{1,3}\\.\\d{1,6})");
    /**
     * The build stamp's time zone tells the host: Windows toolkits print the full name
     * ({@code _Pacific_Daylight_Time_2022}), Linux toolkits an abbreviation ({@code _PDT_2020}); macOS
     * toolkits (up to CUDA 10.2) did too, so an abbreviation means Linux only from CUDA 11 on.
     */
    private static final Pattern BUILT_ON = Pattern.compile("^Built on \\w{3}_\\w{3}_{1,2}\\d{1,2}_[\\d:]{8}_([A-Za-z_]{2,40})_\\d{4}$");
    private static final Pattern GCC_DISTRIBUTION = Pattern.compile(
            "^gcc \\((Ubuntu|Debian|Red Hat|SUSE Linux)[^)]{0,100}?(?:~(\\d{2}\\.\\d{2}))?\\)");
    private static final Pattern GCC = Pattern.compile("^gcc(?:\\.exe)?(?: \\([^)]{0,200}\\))? (\\d{1,3}\\.\\d{1,3}(?:\\.\\d{1,3})?)");

    @Override
    public String name() {
        return "nvcc-version";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.NVCC_VERSION);
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        ParseResult.Builder out = new ParseResult.Builder();
        PlatformDraft platform = new PlatformDraft();
        String[] zone = new String[1];
        SourceRef[] zoneRef = new SourceRef[1];
        int[] major = {0};
        ArtifactLines.forEach(input, ArtifactLines.SHORT_LINES, out, (number, text) -> {
            String t = text.strip();
            if (t.length() > 500) {
                return;
            }
            Matcher m = RELEASE.matcher(t);
            if (m.find()) {
                out.fact(new VersionFact("cuda-toolkit", m.group(1), ORIGIN, List.of(input.at(number, text))));
                out.fact(new VersionFact("nvcc", m.group(2), ORIGIN, List.of(input.at(number, text))));
                major[0] = Integer.parseInt(m.group(1).substring(0, m.group(1).indexOf('.')));
                return;
            }
            m = BUILT_ON.matcher(t);
            if (m.matches()) {
                zone[0] = m.group(1);
                zoneRef[0] = input.at(number, text);
                return;
            }
            m = GCC.matcher(t);
            if (m.find()) {
                out.fact(new VersionFact("gcc", m.group(1), "gcc --version", List.of(input.at(number, text))));
                // a distribution's gcc names it: "gcc (Ubuntu 13.1.0-8ubuntu1~22.04) 13.1.0" is Ubuntu 22.04's package
                Matcher d = GCC_DISTRIBUTION.matcher(t);
                if (d.find()) {
                    if (d.group(1).equals("Ubuntu") && d.group(2) != null) {
                        platform.os("Ubuntu " + d.group(2), input.at(number, text));
                    } else {
                        platform.family("linux", input.at(number, text));
                    }
                }
            }
        });
        if (zone[0] != null) {
            platform.family(zone[0].contains("_Time") ? "windows" : zone[0].length() <= 4 && major[0] >= 11 ? "linux" : null,
                    zoneRef[0]);
        }
        platform.emit(out);
        return out.build();
    }
}
