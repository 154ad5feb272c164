package dev.crashlab.cli;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rewrites of {@link Perturbation} that show how people paste a log: saved from an issue page, quoted in a reply,
 * copied from a console that wraps, run in Jupyter, redirected by PowerShell, on a localised Windows, with a chained
 * exception, once per rank, or followed by a long teardown. Each keeps the crash and its cause; only the way the text
 * reaches us changes. Files are ISO-8859-1 strings (one char per byte), as in {@link Perturbation}.
 */
final class PastedLogs {

    private PastedLogs() {}

    /** A log saved from a rendered issue page: fenced, HTML-escaped, each line's leading blanks lost. */
    static Perturbation.Case markdown(Perturbation.Case c) {
        return with(c, logs(c, t -> {
            StringBuilder b = new StringBuilder("```\n");
            for (String line : t.split("\n", -1)) {
                String s = line.stripLeading()
                        .replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                        .replace("\"", "&quot;").replace("'", "&#39;");
                b.append(s).append('\n');
            }
            return b.append("```\n").toString();
        }));
    }

    /** A log quoted in a reply: "> " before every line. */
    static Perturbation.Case quoted(Perturbation.Case c) {
        return with(c, logs(c, t -> {
            StringBuilder b = new StringBuilder();
            for (String line : t.split("\n", -1)) {
                b.append(line.isEmpty() ? ">" : "> " + line).append('\n');
            }
            return b.toString();
        }));
    }

    private static final int[] WIDTHS = {80, 100, 120};

    /** A console that wraps at a fixed width: each longer line is cut into lines of that width (not inside a character). */
    static Perturbation.Case wrapped(Perturbation.Case c) {
        int width = WIDTHS[c.random("wrapped").nextInt(WIDTHS.length)];
        return with(c, logs(c, t -> {
            StringBuilder b = new StringBuilder();
            String[] lines = t.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                String cr = line.endsWith("\r") ? "\r" : "";
                line = cr.isEmpty() ? line : line.substring(0, line.length() - 1);
                while (columns(line) > width) {
                    int cut = cutAt(line, width);
                    b.append(line, 0, cut).append(cr).append('\n');
                    line = line.substring(cut);
                }
                b.append(line).append(cr);
                if (i < lines.length - 1) {
                    b.append('\n');
                }
            }
            return b.toString();
        }));
    }

    /** Characters of a line written as UTF-8 bytes (continuation bytes are not columns). */
    private static int columns(String bytes) {
        int n = 0;
        for (int i = 0; i < bytes.length(); i++) {
            char ch = bytes.charAt(i);
            n += ch >= 0x80 && ch < 0xC0 ? 0 : 1;
        }
        return n;
    }

    private static int cutAt(String bytes, int width) {
        int n = 0;
        for (int i = 0; i < bytes.length(); i++) {
            char ch = bytes.charAt(i);
            if (!(ch >= 0x80 && ch < 0xC0)) {
                if (n == width) {
                    return i;
                }
                n++;
            }
        }
        return bytes.length();
    }

    private static final String RED = "\u001b[0;31m";
    private static final String GREEN = "\u001b[0;32m";
    private static final String CYAN = "\u001b[0;36m";
    private static final String BLUE = "\u001b[0;34m";
    private static final String RESET = "\u001b[0m";
    private static final Pattern FRAME = Pattern.compile("^\\s*File \"([^\"]+)\", line (\\d+), in (\\S+)\\s*$");
    private static final Pattern EXCEPTION = Pattern.compile(
            "^((?:[A-Za-z_]\\w*\\.)*[A-Z]\\w*(?:Error|Exception|Interrupt|Exit|Warning))(:.*)?$");
    private static final Pattern CARETS = Pattern.compile("^\\s*[~^]+\\s*$");

    /** A traceback as IPython 8 prints it in a notebook: coloured, a cell for the user's frame, arrows at the code lines. */
    static Perturbation.Case jupyter(Perturbation.Case c) {
        int cell = 2 + c.random("jupyter").nextInt(30);
        Map<String, String> out = logs(c, t -> {
            String[] lines = t.split("\n", -1);
            List<String> o = new ArrayList<>();
            boolean inTrace = false;
            boolean firstFrame = false;
            String frameLine = null;
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (line.strip().equals("Traceback (most recent call last):")) {
                    String type = "Exception";
                    for (int j = i + 1; j < lines.length && j < i + 400; j++) {
                        Matcher m = EXCEPTION.matcher(lines[j]);
                        if (m.matches()) {
                            type = m.group(1);
                            break;
                        }
                    }
                    o.add(RED + "-".repeat(75) + RESET);
                    o.add(RED + type + RESET + " ".repeat(Math.max(1, 42 - type.length())) + "Traceback (most recent call last)");
                    inTrace = true;
                    firstFrame = true;
                    frameLine = null;
                    continue;
                }
                if (inTrace) {
                    Matcher f = FRAME.matcher(line);
                    if (f.matches()) {
                        String file = f.group(1);
                        boolean user = !file.contains("-packages") && !file.contains("\\lib\\") && !file.contains("/lib/");
                        if (firstFrame && user) {
                            o.add("Cell " + GREEN + "In[" + cell + "], line " + f.group(2) + RESET);
                        } else {
                            o.add("");
                            o.add("File " + GREEN + file + ":" + f.group(2) + RESET + ", in " + CYAN + f.group(3) + BLUE + "()" + RESET);
                        }
                        firstFrame = false;
                        frameLine = f.group(2);
                        continue;
                    }
                    if (CARETS.matcher(line).matches()) {
                        continue;
                    }
                    if (frameLine != null && !line.isBlank() && Character.isWhitespace(line.charAt(0))) {
                        o.add(GREEN + "-".repeat(Math.max(1, 5 - frameLine.length())) + "> " + frameLine + RESET + " " + line.strip());
                        frameLine = null;
                        continue;
                    }
                    Matcher e = EXCEPTION.matcher(line);
                    if (e.matches()) {
                        o.add("");
                        o.add(RED + e.group(1) + RESET + (e.group(2) == null ? "" : e.group(2)));
                        inTrace = false;
                        continue;
                    }
                }
                o.add(line);
            }
            return String.join("\n", o);
        });
        return with(c, out);
    }

    /**
     * Every text file (the log, the environment listing, an nvidia-smi dump: PowerShell writes them all alike) re-encoded
     * as UTF-16LE with a byte order mark and CRLF line ends (PowerShell 5.1's {@code >} and {@code Out-File}).
     */
    static Perturbation.Case utf16(Perturbation.Case c) {
        return with(c, texts(c, t -> {
            String text = decode(t).replace("\r\n", "\n").replace("\n", "\r\n");
            return "\u00ff\u00fe" + new String(text.getBytes(StandardCharsets.UTF_16LE), StandardCharsets.ISO_8859_1);
        }));
    }

    /** Every text file as UTF-16 without a byte order mark, little- or big-endian by the case's seed (.NET writers, editors). */
    static Perturbation.Case utf16Bare(Perturbation.Case c) {
        Charset cs = c.random("utf16-bare").nextBoolean() ? StandardCharsets.UTF_16LE : StandardCharsets.UTF_16BE;
        return with(c, texts(c, t -> new String(decode(t).getBytes(cs), StandardCharsets.ISO_8859_1)));
    }

    /** The case's text files (not a binary one: a NUL byte) rewritten by {@code f}; null when none changed. */
    private static Map<String, String> texts(Perturbation.Case c, Function<String, String> f) {
        Map<String, String> out = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<String, String> e : c.files().entrySet()) {
            String text = e.getValue();
            String r = text.indexOf('\0') >= 0 ? text : f.apply(text);
            changed |= !r.equals(text);
            out.put(e.getKey(), r);
        }
        return changed ? out : null;
    }

    /**
     * Windows system messages (FormatMessage's text for an error number) as a German, French or Chinese Windows words
     * them; written in that console's code page (Windows-1252, GBK), as a redirected Python writes them. The texts are
     * Windows' own (learn.microsoft.com's localised system error code pages; issue threads quoting them).
     */
    private static final String[][] MESSAGES = {
        // English, German, French, Chinese
        {"The specified module could not be found.", "Das angegebene Modul wurde nicht gefunden.",
            "Le module sp\u00e9cifi\u00e9 est introuvable.", "\u627e\u4e0d\u5230\u6307\u5b9a\u7684\u6a21\u5757\u3002"},
        {"The specified procedure could not be found.", "Die angegebene Prozedur wurde nicht gefunden.",
            "La proc\u00e9dure sp\u00e9cifi\u00e9e est introuvable.", "\u627e\u4e0d\u5230\u6307\u5b9a\u7684\u7a0b\u5e8f\u3002"},
        {"is not a valid Win32 application.", "ist keine zul\u00e4ssige Win32-Anwendung.",
            "n'est pas une application Win32 valide.", "\u4e0d\u662f\u6709\u6548\u7684 Win32 \u5e94\u7528\u7a0b\u5e8f\u3002"},
        {"A dynamic link library (DLL) initialization routine failed.", "Eine DLL-Initialisierungsroutine ist fehlgeschlagen.",
            "Une routine d'initialisation d'une biblioth\u00e8que de liens dynamiques (DLL) a \u00e9chou\u00e9.",
            "\u52a8\u6001\u94fe\u63a5\u5e93(DLL)\u521d\u59cb\u5316\u4f8b\u7a0b\u5931\u8d25\u3002"},
        {"The paging file is too small for this operation to complete.",
            "Die Auslagerungsdatei ist zu klein, um diesen Vorgang durchzuf\u00fchren.",
            "Le fichier de pagination est insuffisant pour terminer cette op\u00e9ration.",
            "\u9875\u9762\u6587\u4ef6\u592a\u5c0f\uff0c\u65e0\u6cd5\u5b8c\u6210\u64cd\u4f5c\u3002"},
    };

    static Perturbation.Case localized(Perturbation.Case c) {
        int language = 1 + c.random("localized").nextInt(3);
        Charset cs = language == 3 ? Charset.forName("GBK") : Charset.forName("windows-1252");
        Map<String, String> out = logs(c, t -> {
            String s = t;
            for (String[] m : MESSAGES) {
                s = s.replace(m[0], new String(m[language].getBytes(cs), StandardCharsets.ISO_8859_1));
            }
            return s;
        });
        return with(c, out);
    }

    private static final String[] CHAINS = {
        String.join("\n", "", "During handling of the above exception, another exception occurred:", "",
                "Traceback (most recent call last):",
                "  File \"run_training.py\", line 211, in <module>",
                "    main()",
                "  File \"run_training.py\", line 204, in main",
                "    progress.close()",
                "AttributeError: 'NoneType' object has no attribute 'close'"),
        String.join("\n", "", "The above exception was the direct cause of the following exception:", "",
                "Traceback (most recent call last):",
                "  File \"run_training.py\", line 211, in <module>",
                "    main()",
                "  File \"run_training.py\", line 198, in main",
                "    raise TrainingAborted(f\"step {step} failed\") from err",
                "__main__.TrainingAborted: step 1200 failed"),
    };

    /** A second exception after the last exception line: raised while handling it, or wrapping it. */
    static Perturbation.Case chained(Perturbation.Case c) {
        String chain = CHAINS[c.random("chained").nextInt(CHAINS.length)];
        Map<String, String> out = logs(c, t -> {
            String[] lines = t.split("\n", -1);
            int last = -1;
            for (int i = 0; i < lines.length; i++) {
                if (EXCEPTION.matcher(lines[i].strip()).matches()) {
                    last = i;
                }
            }
            if (last < 0) {
                return t;
            }
            List<String> o = new ArrayList<>(List.of(lines));
            o.add(last + 1, chain.substring(1));
            o.add(last + 1, "");
            return String.join("\n", o);
        });
        return with(c, out);
    }

    /** The last traceback (at most 80 lines) printed again by ranks 1 to 3, each line with its rank's tag. */
    static Perturbation.Case ranks(Perturbation.Case c) {
        Map<String, String> out = logs(c, t -> {
            List<String> lines = new ArrayList<>(List.of(t.split("\n", -1)));
            while (!lines.isEmpty() && lines.getLast().isBlank()) {
                lines.removeLast();
            }
            int start = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains("Traceback (most recent call last)")) {
                    start = i;
                }
            }
            if (start < 0) {
                return t;
            }
            List<String> block = lines.subList(start, Math.min(lines.size(), start + 80));
            StringBuilder b = new StringBuilder(String.join("\n", lines)).append('\n');
            for (int rank = 1; rank <= 3; rank++) {
                for (String line : block) {
                    b.append("[rank").append(rank).append("]: ").append(line).append('\n');
                }
            }
            return b.toString();
        });
        return with(c, out);
    }

    private static final String[] TEARDOWN = {
        "INFO:trainer:closing data loader worker %d",
        "INFO:trainer:flushed %d pending metrics to the run directory",
        "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be %d leaked semaphore objects to clean up at shutdown",
        "  warnings.warn('resource_tracker: There appear to be %%d '",
        "wandb: Waiting for the run to finish... (%d files pending)",
        "INFO:checkpoint:removed temporary file ckpt_tmp_%d.part",
        "DEBUG:asyncio:Close <_UnixSelectorEventLoop running=False closed=False debug=False> (%d handles)",
    };

    /** 300 lines of an orderly shutdown appended after the log's last line. */
    static Perturbation.Case shutdownTail(Perturbation.Case c) {
        Random r = c.random("shutdown-tail");
        return with(c, logs(c, t -> {
            StringBuilder b = new StringBuilder(t);
            if (!t.endsWith("\n")) {
                b.append('\n');
            }
            for (int i = 0; i < 300; i++) {
                b.append(String.format(Locale.ROOT, TEARDOWN[(i + r.nextInt(2)) % TEARDOWN.length], 1 + r.nextInt(40))).append('\n');
            }
            return b.toString();
        }));
    }

    /** A Markdown indented code block or a forum's code box: four blanks or a tab before every line (each case picks one). */
    static Perturbation.Case indented(Perturbation.Case c) {
        String indent = c.random("indented").nextBoolean() ? "    " : "\t";
        return with(c, textLogs(c, t -> eachLine(t, line -> line.isEmpty() ? line : indent + line)));
    }

    /** The log as an issue's Markdown source holds it: folded in a {@code <details>} block, fenced with a language tag. */
    static Perturbation.Case details(Perturbation.Case c) {
        return with(c, textLogs(c, t -> "<details>\n<summary>Full log</summary>\n\n```shell\n" + t
                + (t.endsWith("\n") ? "" : "\n") + "```\n\n</details>\n"));
    }

    /**
     * Windows PowerShell 5.1 running a program with {@code 2>&1}: the first line the program writes to stderr (its
     * traceback's first line, or the log's first line) comes back as an error record of the shell's, the program's name
     * and " : " before it and the record's position and category lines after it; the lines after it are as written
     * (the shell wraps native stderr lines in error records: PowerShell/PowerShell issue 3996; the record's form as
     * PowerShell/JEA issue 24 quotes it).
     */
    static Perturbation.Case powershell(Perturbation.Case c) {
        return with(c, textLogs(c, t -> {
            List<String> lines = new ArrayList<>(List.of(t.split("\n", -1)));
            int at = -1;
            for (int i = 0; i < lines.size() && at < 0; i++) {
                if (lines.get(i).strip().startsWith("Traceback (most recent call last)")) {
                    at = i;
                }
            }
            for (int i = 0; i < lines.size() && at < 0; i++) {
                if (!lines.get(i).isBlank()) {
                    at = i;
                }
            }
            if (at < 0) {
                return t;
            }
            String cr = lines.get(at).endsWith("\r") ? "\r" : "";
            String first = cr.isEmpty() ? lines.get(at) : lines.get(at).substring(0, lines.get(at).length() - 1);
            String command = "python train.py --config configs/run.yaml 2>&1 | Tee-Object -FilePath log.txt";
            List<String> record = List.of(
                    "python : " + first,
                    "At line:1 char:1",
                    "+ " + command,
                    "+ " + "~".repeat(command.length()),
                    "    + CategoryInfo          : NotSpecified: (" + first.strip() + ":String) [], RemoteException",
                    "    + FullyQualifiedErrorId : NativeCommandError",
                    " ");
            lines.remove(at);
            for (int k = record.size() - 1; k >= 0; k--) {
                lines.add(at, record.get(k) + cr);
            }
            return String.join("\n", lines);
        }));
    }

    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** Read back from the systemd journal ({@code journalctl -u trainer}): date, host and the program's name and PID before each line. */
    static Perturbation.Case journal(Perturbation.Case c) {
        Random r = c.random("journal");
        String month = MONTHS[r.nextInt(MONTHS.length)];
        int day = 1 + r.nextInt(28);
        int pid = 1000 + r.nextInt(60000);
        int[] second = {r.nextInt(3600)};
        return with(c, textLogs(c, t -> eachLine(t, line -> {
            if (line.isEmpty()) {
                return line;
            }
            int s = second[0]++;
            return String.format(Locale.ROOT, "%s %2d %02d:%02d:%02d gpu-node-07 python3[%d]: %s", month, day, 10 + s / 3600 % 12,
                    s / 60 % 60, s % 60, pid, line);
        })));
    }

    /**
     * A Kubernetes container's log file as the kubelet writes it (CRI): a nanosecond time stamp, the stream, {@code F}
     * (a full line; kubernetes' kubelet-cri-logging design proposal).
     */
    static Perturbation.Case cri(Perturbation.Case c) {
        Random r = c.random("cri");
        int[] second = {r.nextInt(3600)};
        return with(c, textLogs(c, t -> eachLine(t, line -> {
            int s = second[0]++;
            return String.format(Locale.ROOT, "2025-03-14T%02d:%02d:%02d.%09dZ %s F %s", 8 + s / 3600 % 12, s / 60 % 60, s % 60,
                    r.nextInt(1_000_000_000), r.nextInt(4) == 0 ? "stdout" : "stderr", line);
        })));
    }

    /** A glog / absl logger's prefix on every line: level letter, date, time, thread id, source file and line. */
    static Perturbation.Case glog(Perturbation.Case c) {
        Random r = c.random("glog");
        int thread = 1000 + r.nextInt(200000);
        int[] micro = {r.nextInt(1_000_000)};
        return with(c, textLogs(c, t -> eachLine(t, line -> {
            if (line.isEmpty()) {
                return line;
            }
            int u = micro[0] += 1 + r.nextInt(5000);
            char level = line.contains("Error") || line.contains("error") ? 'E' : 'I';
            return String.format(Locale.ROOT, "%c0314 09:%02d:%02d.%06d %7d train.py:%d] %s", level, u / 60_000_000 % 60,
                    u / 1_000_000 % 60, u % 1_000_000, thread, 100 + r.nextInt(300), line);
        })));
    }

    /** Every line written twice, one after the other (two handlers on one logger, or {@code tee} into the file it reads). */
    static Perturbation.Case doubled(Perturbation.Case c) {
        return with(c, textLogs(c, t -> {
            StringBuilder b = new StringBuilder();
            String[] lines = t.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                boolean last = i == lines.length - 1;
                if (last && lines[i].isEmpty()) {
                    break;
                }
                b.append(lines[i]).append('\n').append(lines[i]);
                if (!last) {
                    b.append('\n');
                }
            }
            return b.toString();
        }));
    }

    /**
     * A long output shortened in its middle as a notebook or a CI page shows it: its head and tail kept, the rest one
     * line saying how many were left out. Scaled to our logs (excerpts of at most a few dozen lines): logs over 12 lines
     * keep their first 4 and last 6 lines (lossy: the middle may hold the evidence).
     */
    static Perturbation.Case elided(Perturbation.Case c) {
        return with(c, textLogs(c, t -> {
            List<String> lines = List.of(t.split("\n", -1));
            int n = lines.size() - (t.endsWith("\n") ? 1 : 0);
            if (n <= 12) {
                return t;
            }
            int tail = 6 + (t.endsWith("\n") ? 1 : 0);
            List<String> o = new ArrayList<>(lines.subList(0, 4));
            o.add("... " + (n - 10) + " more lines (output truncated)");
            o.addAll(lines.subList(lines.size() - tail, lines.size()));
            return String.join("\n", o);
        }));
    }

    /**
     * Copied from a rendered page or a mail that wraps long lines at a blank: each line longer than the width (72 to 100
     * by the case) broken after its last blank before that width, the blank kept at the row's end.
     */
    static Perturbation.Case softWrapped(Perturbation.Case c) {
        int width = 72 + c.random("soft-wrapped").nextInt(29);
        return with(c, textLogs(c, t -> eachLine(t, line -> {
            StringBuilder b = new StringBuilder();
            String rest = line;
            while (columns(rest) > width) {
                int cut = rest.lastIndexOf(' ', cutAt(rest, width) - 1);
                if (cut <= 0 || rest.substring(0, cut).isBlank()) {
                    break;
                }
                b.append(rest, 0, cut + 1).append('\n');
                rest = rest.substring(cut + 1);
            }
            return b.append(rest).toString();
        })));
    }

    /** Each line of a text rewritten by {@code f} (a CR before the line end stays there). */
    private static String eachLine(String text, Function<String, String> f) {
        String[] lines = text.split("\n", -1);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            boolean last = i == lines.length - 1;
            if (last && lines[i].isEmpty()) {
                break;
            }
            String line = lines[i];
            String cr = line.endsWith("\r") ? "\r" : "";
            b.append(f.apply(cr.isEmpty() ? line : line.substring(0, line.length() - 1))).append(cr);
            if (!last) {
                b.append('\n');
            }
        }
        return b.toString();
    }

    /** The case's text log files (not a binary one: a NUL byte) rewritten by {@code f}; null when none changed. */
    private static Map<String, String> textLogs(Perturbation.Case c, Function<String, String> f) {
        return logs(c, t -> t.indexOf('\0') >= 0 ? t : f.apply(t));
    }

    // -------------------------------------------------------------------------------------------------------------

    private static Perturbation.Case with(Perturbation.Case c, Map<String, String> files) {
        return files == null ? null : c.with(files);
    }

    /** The case's log files rewritten by {@code f}; null when no log changed. */
    private static Map<String, String> logs(Perturbation.Case c, Function<String, String> f) {
        Map<String, String> out = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<String, String> e : c.files().entrySet()) {
            String text = e.getValue();
            if (Perturbation.isLog(e.getKey())) {
                String r = f.apply(text);
                changed |= !r.equals(text);
                out.put(e.getKey(), r);
            } else {
                out.put(e.getKey(), text);
            }
        }
        return changed ? out : null;
    }

    /** The text of bytes held one per char: UTF-8 when they are valid UTF-8, else Windows-1252. */
    private static String decode(String bytes) {
        byte[] b = bytes.getBytes(StandardCharsets.ISO_8859_1);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return new String(b, Charset.forName("windows-1252"));
        }
    }
}
