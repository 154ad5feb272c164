package dev.crashlab.parse.console;

import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.VersionFact;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads library load failures ({@code Could not load dynamic library}, {@code cannot open shared object file},
 * {@code Could not locate zlibwapi.dll}, {@code Could not load "nvrtc64_70.dll"}, {@code DLL load failed}, {@code [WinError 126]}) and the CUDA
 * libraries a log says it opened or wanted, as versions ({@code cudart64_110.dll} is CUDA 11.0).
 *
 * <p>NOTE: stateful (a {@code [WinError 126] ... Error loading} whose path wrapped onto the next line is
 * joined with it): use one instance per artifact.
 */
final class LibraryLoadRule {

    private static final Pattern DYNAMIC = Pattern.compile(
            "Could not load dynamic library '([^']{1,300})'(?:; dlerror: (.{1,500}))?");
    private static final Pattern SHARED_OBJECT = Pattern.compile(
            "([\\w.+-]{1,200}\\.so(?:\\.[\\w.]{1,40})?): (cannot open shared object file: .{0,200}|undefined symbol: [^\\s,]{1,300})");
    private static final Pattern LOCATE = Pattern.compile("Could not (?:locate|find) '?([\\w.+-]{1,200}\\.dll)'?");
    private static final Pattern LOAD_LIBRARY = Pattern.compile(
            "(?:Could not load library|Library|Unable to load) '?([\\w.+-]{1,200}\\.(?:dll|so[\\w.]{0,40}))'?\\.?"
                    + " ?((?:Error code \\d{1,10})|is not found or cannot be loaded|.{0,0})");
    // libgpuarray and other C loaders quote the name: Could not load "nvrtc64_70.dll": The specified module could not be found.
    private static final Pattern QUOTED_LOAD = Pattern.compile(
            "Could not load \"([\\w.+-]{1,200}\\.(?:dll|so[\\w.]{0,40}))\":? ?([^\"'\\\\]{0,200})");
    private static final Pattern LOAD_ANY = Pattern.compile("Unable to load any of \\{([^}]{1,1000})\\}");
    private static final Pattern DLL_LOAD = Pattern.compile(
            "(?i)DLL load failed(?: while importing (\\w{1,200}))?(?:: ?(.{1,500})| with (error ?code -?\\d{1,10}.{0,200}))");
    private static final Pattern WIN_ERROR = Pattern.compile(
            "\\[WinError (\\d{1,10})\\] ([^\"]{0,300}?)(?: ?Error loading \"([^\"]{1,500})\"(?: or one of its dependencies\\.?)?)?$");
    private static final Pattern QUOTED_DLL = Pattern.compile("\"([^\"]{1,500}\\.dll)\"");
    private static final Pattern OPENED = Pattern.compile(
            "(?:Successfully opened (?:dynamic|CUDA) library|Could not load dynamic library '|Could not (?:locate|find) '?)"
                    + " ?([\\w.+-]{1,200})");
    private static final Pattern WINDOWS_CUDA_DLL = Pattern.compile("^(cudart|cudnn|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvinfer)64_(\\d{1,3})\\.dll$");
    private static final Pattern LINUX_CUDA_SO = Pattern.compile("^lib(cudart|cudnn|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvinfer)\\.so\\.(\\d{1,2}(?:\\.\\d{1,2}){0,2})$");

    /** Every literal one of this rule's checks needs (the reading pass's prefilter looks for these first). */
    static final String[] LITERALS = {"Successfully opened", "Could not load dynamic library", "Could not locate", "Could not find",
        "load", "Load", "find", "locate", "WinError", ".so", "LOAD"};

    private ConsoleLine pendingWinError;

    /** Tells whether a wrapped message waits for its next line. */
    boolean armed() {
        return pendingWinError != null;
    }
    private String pendingCode;

    /** Reads at most one load failure, and the CUDA library versions, from the line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (pendingWinError != null) {
            ConsoleLine first = pendingWinError;
            pendingWinError = null;
            Matcher q = QUOTED_DLL.matcher(t);
            if (q.find()) {
                out.add(new LibraryLoadFailure(baseName(q.group(1)), "[WinError " + pendingCode + "] " + reasonOf(first.text),
                        List.of()), first.refWith(t));
                return;
            }
            out.add(new LibraryLoadFailure(null, "[WinError " + pendingCode + "] " + reasonOf(first.text), List.of()), first.ref());
        }
        versions(line, out);
        if (!(t.contains("load") || t.contains("Load") || t.contains("find") || t.contains("locate")
                || t.contains("WinError") || t.contains(".so") || t.contains("LOAD"))) {
            return;
        }
        Matcher m = DYNAMIC.matcher(t);
        if (m.find()) {
            emit(line, m.group(1), m.group(2), out);
            return;
        }
        m = SHARED_OBJECT.matcher(t);
        if (m.find()) {
            emit(line, m.group(1), m.group(2), out);
            return;
        }
        m = LOCATE.matcher(t);
        if (m.find()) {
            emit(line, m.group(1), t.contains("locate") ? "could not locate it" : "could not find it", out);
            return;
        }
        m = LOAD_ANY.matcher(t);
        if (m.find()) {
            emit(line, m.group(1).strip(), "none of them could be loaded", out);
            return;
        }
        m = QUOTED_LOAD.matcher(t);
        if (m.find()) {
            emit(line, m.group(1), m.group(2), out);
            return;
        }
        m = LOAD_LIBRARY.matcher(t);
        if (m.find()) {
            String reason = m.group(2).isEmpty() ? null : m.group(2);
            emit(line, m.group(1), reason, out);
            return;
        }
        m = DLL_LOAD.matcher(t);
        if (m.find()) {
            String reason = m.group(2) != null ? m.group(2).strip() : m.group(3);
            emit(line, m.group(1), reason, out);
            return;
        }
        if (t.contains("[WinError ")) {
            m = WIN_ERROR.matcher(t);
            if (m.find()) {
                String code = m.group(1);
                if (m.group(3) != null) {
                    emit(line, baseName(m.group(3)), "[WinError " + code + "] " + m.group(2).strip(), out);
                } else if (t.stripTrailing().endsWith("Error loading") || t.stripTrailing().endsWith("Error loading \"")) {
                    pendingWinError = line;
                    pendingCode = code;
                } else if (code.equals("126") || code.equals("127") || code.equals("193") || code.equals("1114")) {
                    emit(line, null, "[WinError " + code + "] " + m.group(2).strip(), out);
                }
            }
        }
    }

    /** Emits what a pending wrapped message still holds when the artifact ends. */
    void finish(FactSink out) {
        if (pendingWinError != null) {
            out.add(new LibraryLoadFailure(null, "[WinError " + pendingCode + "] " + reasonOf(pendingWinError.text), List.of()),
                    pendingWinError.ref());
            pendingWinError = null;
        }
    }

    private static String reasonOf(String text) {
        int i = text.indexOf("] ");
        String r = i < 0 ? text : text.substring(i + 2);
        int e = r.lastIndexOf("Error loading");
        return (e < 0 ? r : r.substring(0, e)).strip();
    }

    private static void emit(ConsoleLine line, String library, String reason, FactSink out) {
        out.add(new LibraryLoadFailure(library, reason == null || reason.isBlank() ? null : reason.strip(), List.of()), line.ref());
    }

    private static String baseName(String path) {
        int i = Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/'));
        return path.substring(i + 1);
    }

    private static void versions(ConsoleLine line, FactSink out) {
        String t = line.text;
        if (!(t.contains("Successfully opened") || t.contains("Could not load dynamic library") || t.contains("Could not locate")
                || t.contains("Could not find"))) {
            return;
        }
        Matcher m = OPENED.matcher(t);
        if (!m.find()) {
            return;
        }
        String lib = m.group(1);
        String origin = t.contains("Successfully opened") ? "log: opened library" : "log: missing library";
        Matcher w = WINDOWS_CUDA_DLL.matcher(lib);
        if (w.matches()) {
            out.add(new VersionFact(component(w.group(1)), windowsVersion(w.group(1), w.group(2)), origin, List.of()), line.ref());
            return;
        }
        Matcher l = LINUX_CUDA_SO.matcher(lib);
        if (l.matches()) {
            out.add(new VersionFact(component(l.group(1)), l.group(2), origin, List.of()), line.ref());
        }
    }

    private static String component(String lib) {
        return switch (lib) {
            case "cudart" -> "cuda-runtime";
            case "nvinfer" -> "tensorrt";
            default -> lib.toLowerCase(java.util.Locale.ROOT);
        };
    }

    // cudart64_110.dll is CUDA 11.0, cudart64_80.dll 8.0, cudart64_12.dll 12; the other libraries name a major version
    private static String windowsVersion(String lib, String digits) {
        if (!lib.equals("cudart")) {
            return digits;
        }
        if (digits.length() == 3 || (digits.length() == 2 && digits.charAt(0) >= '7')) {
            return digits.substring(0, digits.length() - 1) + "." + digits.charAt(digits.length() - 1);
        }
        return digits;
    }
}
