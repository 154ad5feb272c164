package dev.crashlab.parse.env;

import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ParseResult;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the environment a person states in a sentence of an {@code env.txt} ("I am using WSL2 with Python 3.11",
 * "the driver is 525 and the cuda version is 12.1", "My server has 2 80G-A100"): the versions and names that
 * the sentence's words introduce, each with the line it came from.
 *
 * <p>NOTE: only phrases whose first word names what follows (Python, Windows, driver, CUDA, a GPU family) are
 * read, so a number in a sentence is never taken for a version on its own.
 */
final class EnvProse {

    private static final String ORIGIN = "env (prose)";
    private static final Pattern PYTHON = Pattern.compile("\\bPython\\s{1,4}v?(\\d\\.\\d{1,2}(?:\\.\\d{1,3})?)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern WINDOWS = Pattern.compile("\\bWindows\\s{1,4}(?:7|8\\.1|8|10|11|Server\\s{1,4}20\\d\\d)\\b(?:\\s{1,4}\\d{2}H\\d\\b)?");
    private static final Pattern WSL2 = Pattern.compile("\\bWSL\\s?2\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern DRIVER = Pattern.compile("\\bdriver(?:\\s{1,4}version)?(?:\\s{1,4}(?:is|=|:))?\\s{1,4}(\\d{3}(?:\\.\\d{1,3}){0,2})\\b",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern CUDA = Pattern.compile("\\bCUDA(?:\\s{1,4}version)?(?:\\s{1,4}(?:is|=|:))?\\s{1,4}(\\d{1,2}\\.\\d{1,2}(?:\\.\\d{1,3})?)\\b",
            Pattern.CASE_INSENSITIVE);
    /**
     * GPU names by family: GeForce RTX/GTX numbers (with Ti/Super), data-centre letters with two or three digits
     * (V100, A100, H100, P100, K80, T4 is too short to tell from other words and is left out), and a bare
     * four-digit GeForce number written with Super ({@code 2070super}); an optional memory size before it ({@code 80G-}).
     */
    private static final Pattern GPU = Pattern.compile("(?<![\\w.])(?:(\\d{1,3})\\s?G(?:B)?-)?((?:GeForce\\s{1,2})?(?:RTX|GTX)\\s?\\d{3,4}(?:\\s?(?:Ti|Super))?"
            + "|(?:Tesla\\s{1,2})?[VAHPK]\\d{2,3}\\b|\\d{4}\\s?super)\\b", Pattern.CASE_INSENSITIVE);

    /**
     * A row of nvidia-smi's process table pasted into the description ({@code |  0  17750  C  ...python  1576MiB |},
     * with or without the GI/CI columns of MIG-era drivers).
     */
    private static final Pattern PROCESS_ROW = Pattern.compile(
            "^\\|\\s{1,12}(\\d{1,2})\\s{1,12}(?:(?:N/A|\\d{1,3})\\s{1,12}(?:N/A|\\d{1,3})\\s{1,12})?(\\d{1,9})\\s{1,12}(C\\+G|C|G|M)\\s{1,12}(\\S.{0,200}?)\\s{1,12}(\\d{1,7})\\s?MiB\\s{0,12}\\|$");

    private EnvProse() {}

    /**
     * Adds the facts a line of prose states.
     *
     * @param sentence false for the value of a {@code key: value} line whose key the reader does not know: its
     *     versions and GPU names are read, but not the platform ("kernel: 5.15...-microsoft-standard-WSL2" is the
     *     collector's own line, whose platform the collector states in lines of its own)
     */
    static void read(String text, SourceRef ref, ParseResult.Builder out, PlatformDraft platform, boolean sentence) {
        Matcher m = PROCESS_ROW.matcher(text.strip());
        if (m.matches()) {
            out.fact(new GpuProcess(Integer.valueOf(m.group(1)), Long.valueOf(m.group(2)), m.group(3), m.group(4),
                    Long.valueOf(m.group(5)), List.of(ref)));
            return;
        }
        m = PYTHON.matcher(text);
        if (m.find()) {
            out.fact(new VersionFact("python", m.group(1), ORIGIN, List.of(ref)));
            platform.python(m.group(1), ref);
        }
        m = WINDOWS.matcher(text);
        if (sentence && m.find()) {
            platform.os(m.group(), ref);
        }
        if (sentence && WSL2.matcher(text).find()) {
            platform.family("wsl2", ref);
        }
        m = DRIVER.matcher(text);
        if (m.find()) {
            out.fact(new VersionFact("nvidia-driver", m.group(1), ORIGIN, List.of(ref)));
        }
        m = CUDA.matcher(text);
        if (m.find()) {
            out.fact(new VersionFact("cuda-runtime", m.group(1), ORIGIN, List.of(ref)));
        }
        m = GPU.matcher(text);
        int found = 0;
        while (m.find() && found++ < 8) {
            Long mib = m.group(1) == null ? null : Long.parseLong(m.group(1)) * 1024;
            out.fact(NamedGpu.of(null, m.group(2).strip(), mib, ref));
        }
    }
}
