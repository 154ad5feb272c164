package dev.crashlab.parse.console;

import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.SourceRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what a log says about the GPU itself when someone pasted it there: an {@code nvidia-smi} table's device and
 * memory rows ({@code |   0  NVIDIA GeForce RTX 3070  WDDM | ... |  7940MiB /  8112MiB |}), a GPU's product name
 * ({@code Using GPU: NVIDIA GeForce RTX 2060}), and a bare {@code compute capability: 7.5}.
 *
 * <p>NOTE: stateful (a table's device row is joined with the memory row under it): use one instance per artifact.
 */
final class GpuLogRule {

    // "|   0  NVIDIA GeForce RTX 3070    WDDM  | 00000000:01:00.0  On |" (79- and 89-column layouts)
    private static final Pattern SMI_DEVICE_ROW = Pattern.compile(
            "^\\|\\s{1,6}(\\d{1,2})\\s{1,6}(\\S.{1,60}?)\\s{1,30}(?:On|Off|WDDM|TCC|MCDM|N/A)\\s{0,4}\\|");
    // "7940MiB / 8112MiB", "7940 MiB / 8112 MiB"
    private static final Pattern MEMORY_USE = Pattern.compile("\\b(\\d{1,7}) ?MiB {0,6}/ {0,6}(\\d{1,7}) ?MiB\\b");
    private static final Pattern GPU_NAME = Pattern.compile(
            "\\b((?:NVIDIA )?GeForce (?:RTX |GTX |GT |MX )?\\d{3,4}[A-Za-z]{0,2}(?: Ti| SUPER| Super)?(?: Laptop GPU| with Max-Q Design)?"
                    + "|(?:NVIDIA )?TITAN (?:RTX|V|Xp|X|Z|Black)"
                    + "|(?:NVIDIA )?Tesla [KMPTVA]\\d{1,3}[A-Za-z]?(?:-[A-Z0-9]{2,8}){0,2}"
                    + "|(?:NVIDIA )?Quadro (?:RTX )?[A-Z]{0,2}\\d{3,5}[A-Za-z]?"
                    + "|(?:NVIDIA )?RTX A\\d{4}(?: Ada)?|NVIDIA RTX \\d{4} Ada"
                    + "|NVIDIA [ABHL]\\d{1,3}[A-Za-z]{0,2}(?:-[A-Z0-9]{2,8}){0,2})(?![\\w-])");
    private static final Pattern COMPUTE_CAPABILITY = Pattern.compile(
            "(?i)\\b(?:compute capability|computeCapability|CUDA Capability Major/Minor version number)\\s{0,4}[:=]?\\s{0,30}(\\d{1,2})\\.(\\d{1,2})\\b");

    private Integer pendingIndex;
    private String pendingName;
    private ConsoleLine pendingLine;

    /** Tells whether the rule waits for a following line (a device row seen, its memory row not yet). */
    boolean armed() {
        return pendingLine != null;
    }

    /** Reads the GPU facts the line states. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (pendingLine != null && line.number - pendingLine.number > 2) {
            flush(out);
        }
        if (t.startsWith("|") && t.length() < 400) {
            Matcher row = SMI_DEVICE_ROW.matcher(t);
            if (row.find()) {
                flush(out);
                pendingIndex = Integer.parseInt(row.group(1));
                pendingName = row.group(2).strip();
                pendingLine = line;
                return;
            }
        }
        if (t.contains("MiB")) {
            Matcher m = MEMORY_USE.matcher(t);
            if (m.find()) {
                long used = Long.parseLong(m.group(1));
                long total = Long.parseLong(m.group(2));
                if (used <= total && total > 0) {
                    List<SourceRef> at = new ArrayList<>(2);
                    String name = null;
                    Integer index = null;
                    if (pendingLine != null) {
                        at.add(pendingLine.ref());
                        name = pendingName;
                        index = pendingIndex;
                        pendingLine = null;
                    } else {
                        Matcher n = GPU_NAME.matcher(t);
                        name = n.find() ? n.group(1) : null;
                    }
                    at.add(line.ref());
                    add(out, device(index, name, total, used, null), at);
                    return;
                }
            }
        }
        if (t.contains("apabilit") && !t.contains("pci bus id") && !t.contains("pciBusID")) {
            // the TF lines that also give the bus id are read by EnvironmentRule as whole devices
            Matcher m = COMPUTE_CAPABILITY.matcher(t);
            if (m.find()) {
                Matcher n = GPU_NAME.matcher(t);
                add(out, device(null, n.find() ? n.group(1) : null, null, null, m.group(1) + "." + m.group(2)), List.of(line.ref()));
                return;
            }
        }
        if (pendingLine == null && mentionsGpuName(t) && !t.contains("pci bus id") && !t.contains("pciBusID") && t.length() < 1000) {
            Matcher n = GPU_NAME.matcher(t);
            if (n.find()) {
                add(out, device(null, n.group(1), null, null, null), List.of(line.ref()));
            }
        }
    }

    /** Emits a device row whose memory row never came. */
    void finish(FactSink out) {
        flush(out);
    }

    /**
     * The literals a line must hold for {@link #apply} to find anything, besides a pending device row and a line that
     * starts with {@code |} (a table row).
     */
    static final String[] LITERALS = {"MiB", "apabilit", "GeForce", "TITAN", "Tesla ", "Quadro ", "RTX A", "NVIDIA "};

    static boolean mentionsGpuName(String t) {
        return t.contains("GeForce") || t.contains("TITAN") || t.contains("Tesla ") || t.contains("Quadro ") || t.contains("RTX A")
                || t.contains("NVIDIA ");
    }

    private void flush(FactSink out) {
        if (pendingLine != null) {
            add(out, device(pendingIndex, pendingName, null, null, null), List.of(pendingLine.ref()));
            pendingLine = null;
        }
    }

    private static void add(FactSink out, GpuDevice d, List<SourceRef> at) {
        for (SourceRef r : at) {
            out.add(d, r);
        }
    }

    private static GpuDevice device(Integer index, String name, Long total, Long used, String cc) {
        return new GpuDevice(index, name, null, null, total, used, null, null, cc, null, null, null, null, null, null, null,
                null, null, List.of(), Map.of(), List.of());
    }
}
