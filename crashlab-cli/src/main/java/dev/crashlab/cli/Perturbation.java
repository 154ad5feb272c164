package dev.crashlab.cli;

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
 * Realistic rewrites of a labelled case that keep its cause: the same crash as another user would upload it
 * (other install paths and user names, other patch versions, another GPU of the same architecture, other
 * addresses, PIDs and sizes, other file names and line endings, a logger's prefix on every line), or with less
 * in it (the last line of the log cut off, no environment file). {@code eval --perturb} diagnoses every case so
 * rewritten and counts how many right first answers survive: a measure of how much the rules lean on one case's
 * exact wording, the proxy for bundles nobody here has seen.
 *
 * <p>Files are handled as ISO-8859-1 text so that every byte round-trips; each rewrite is seeded by the case
 * name, so a run is repeatable.
 */
enum Perturbation {

    /** Another user's install: user name, environment name, conda flavour, drive, site- vs dist-packages. */
    PATHS("other user, environment and install paths (same OS)", Perturbation::paths),
    /** Other patch releases: the third part of every x.y.z version moves (the minor, which compat reads, stays). */
    VERSIONS("other patch versions (x.y.z -> x.y.z')", Perturbation::versions),
    /** Another GPU of the same compute capability (RTX 3090 -> RTX 3080, GTX 1080 -> GTX 1070, ...). */
    GPU("another GPU of the same architecture", Perturbation::gpu),
    /** Other addresses, PIDs, times and sizes. */
    NUMBERS("other addresses, PIDs, times, sizes", Perturbation::numbers),
    /** A logger's prefix on every log line (timestamp and level, or a launcher's rank tag). */
    PREFIX("a logger or launcher prefix on every log line", Perturbation::prefix),
    /** Other file names (so another order) and Windows line endings. */
    FILES("other file names and order, CRLF line endings", Perturbation::files),
    /** Every rewrite above at once. */
    ALL("all of the above together", c -> files(prefix(numbers(gpu(versions(paths(c))))))),
    /** The log's last non-empty line is cut off (a paste that stops early); only logs of 3+ lines. */
    DROP_LAST_LINE("the log's last line cut off (logs of 3+ lines)", Perturbation::dropLastLine),
    /** The environment file is left out; only cases that also have a log. */
    NO_ENV("no environment file (cases with a log and an env file)", Perturbation::noEnv),
    // how people paste logs: the same crash as it reaches us from an issue page, a notebook, a Windows console
    /** Saved from an issue page: code fences, HTML entities ({@code &lt; &gt; &quot; &#39; &amp;}), leading spaces lost. */
    MARKDOWN("saved from an issue page: code fences, HTML entities, leading spaces stripped", PastedLogs::markdown),
    /** Quoted in a reply: {@code > } before every log line. */
    QUOTED("quoted in a reply: '> ' before every log line", PastedLogs::quoted),
    /** Copied from a terminal that wraps: every line longer than 80, 100 or 120 columns cut into lines of that width. */
    WRAPPED("copied from a console that wraps at 80/100/120 columns (logs with a longer line)", PastedLogs::wrapped),
    /** Run in Jupyter: IPython's traceback (colour codes, {@code ---->} arrows, {@code Cell In[3], line 5}). */
    JUPYTER("a Jupyter traceback: ANSI colours, '---->' arrows, 'Cell In[n], line m' (logs with a traceback)", PastedLogs::jupyter),
    /** Redirected by Windows PowerShell 5.1: every text file UTF-16LE with a byte order mark. */
    UTF16("every text file saved as UTF-16LE with a BOM (PowerShell 5.1 redirection)", PastedLogs::utf16),
    /** Written by a .NET program or an editor: every text file UTF-16 without a byte order mark, LE or BE. */
    UTF16_BARE("every text file saved as UTF-16 without a BOM, little- or big-endian", PastedLogs::utf16Bare),
    /** A German, French or Chinese Windows: its system messages localised, in that console's code page. */
    LOCALIZED("Windows system messages in German/French/Chinese, in cp1252/GBK (logs with one)", PastedLogs::localized),
    /** A second exception raised while handling the first ("During handling ..." / "The above exception was ..."). */
    CHAINED("a chained exception after the error ('During handling...' / 'direct cause')", PastedLogs::chained),
    /** The same traceback printed again by three more ranks, each with its {@code [rankN]:} tag. */
    RANKS("the last traceback repeated by ranks 1-3 (logs with a traceback)", PastedLogs::ranks),
    /** A long teardown after the error: 300 lines of shutdown warnings and info lines. */
    SHUTDOWN_TAIL("300 lines of teardown warnings after the error", PastedLogs::shutdownTail),
    /** A Markdown indented code block or a forum's code box: four blanks or a tab before every line. */
    INDENTED("an indented code block: 4 blanks or a tab before every log line", PastedLogs::indented),
    /** An issue's Markdown source: the log in a {@code <details>} block, fenced with a language tag. */
    DETAILS("an issue's Markdown source: <details>, <summary> and a ```shell fence around the log", PastedLogs::details),
    /** Windows PowerShell 5.1 with {@code 2>&1}: the first stderr line as a NativeCommandError record. */
    POWERSHELL("PowerShell 5.1 '2>&1': the first stderr line as a NativeCommandError record", PastedLogs::powershell),
    /** The systemd journal: {@code Nov 29 10:00:01 host python3[4242]: } before each line. */
    JOURNAL("the systemd journal's prefix (date, host, program[pid]) on every log line", PastedLogs::journal),
    /** A Kubernetes container log file (CRI): {@code 2025-03-14T09:00:01.123456789Z stderr F } before each line. */
    CRI("a Kubernetes container log file (CRI): time stamp, stream and 'F' on every log line", PastedLogs::cri),
    /** A glog / absl prefix: {@code E0314 09:00:01.123456   4242 train.py:120] } before each line. */
    GLOG("a glog/absl prefix (level, date, time, thread, file:line]) on every log line", PastedLogs::glog),
    /** Every line twice in a row (two handlers on one logger, tee into the file it reads). */
    DOUBLED("every log line written twice in a row", PastedLogs::doubled),
    /** The middle of a long log left out ("... N more lines"); lossy. */
    ELIDED("a log's middle left out: first 4 and last 6 lines kept (logs over 12 lines; lossy)", PastedLogs::elided),
    /** Long lines wrapped at a blank near 72-100 columns (a rendered page or a mail), the blank kept. */
    SOFT_WRAPPED("long lines wrapped at a blank before 72-100 columns (a rendered page, a mail)", PastedLogs::softWrapped);

    /** One case: its name (the seed) and its files, bundle path to text (ISO-8859-1). */
    record Case(String name, Map<String, String> files) {

        Case with(Map<String, String> other) {
            return new Case(name, other);
        }

        Random random(String salt) {
            return new Random((name + "/" + salt).hashCode());
        }
    }

    final String description;
    private final Function<Case, Case> rewrite;

    Perturbation(String description, Function<Case, Case> rewrite) {
        this.description = description;
        this.rewrite = rewrite;
    }

    /** The name written on the command line and in the table: {@code drop-last-line}. */
    String written() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Perturbation parse(String s) {
        for (Perturbation p : values()) {
            if (p.written().equals(s.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown perturbation '" + s + "' (known: " + known() + ")");
    }

    static String known() {
        return String.join(", ", java.util.Arrays.stream(values()).map(Perturbation::written).toList());
    }

    /** The rewritten case, or null when this rewrite does not apply to it (nothing to cut, nothing to drop). */
    Case apply(Case c) {
        Case r = rewrite.apply(c);
        return r == null || r.files().equals(c.files()) && this != FILES ? null : r;
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static final String[] USERS = {"mkowalski", "jdoe", "lab", "ana.s", "tchen", "user01"};
    private static final String[] ENVS = {"dl", "py310", "torch-env", "tf_gpu", "work", "ml"};

    private static final Pattern WIN_USER = Pattern.compile("(?i)(\\\\Users\\\\)([^\\\\\\s\"']+)");
    private static final Pattern LINUX_HOME = Pattern.compile("(/home/)([^/\\s\"']+)");
    private static final Pattern ENV_DIR = Pattern.compile("([\\\\/]envs[\\\\/])([^\\\\/\\s\"']+)");
    private static final Pattern CONDA = Pattern.compile("(?i)\\b(ana|mini)conda3\\b");
    private static final Pattern DRIVE = Pattern.compile("(?<![A-Za-z])C:\\\\(?!Windows|Program Files|ProgramData)");
    private static final Pattern DIST = Pattern.compile("/usr/local/lib/(python3\\.\\d+)/dist-packages");

    static Case paths(Case c) {
        Random r = c.random("paths");
        String user = USERS[r.nextInt(USERS.length)];
        String env = ENVS[r.nextInt(ENVS.length)];
        boolean drive = r.nextBoolean();
        return c.with(each(c, t -> {
            String s = replace(WIN_USER, t, m -> m.group(1) + user);
            s = replace(LINUX_HOME, s, m -> m.group(1) + user);
            s = replace(ENV_DIR, s, m -> m.group(1) + env);
            s = replace(CONDA, s, m -> m.group(1).equalsIgnoreCase("ana") ? "miniconda3" : "anaconda3");
            if (drive) {
                s = replace(DRIVE, s, m -> "D:\\");
            }
            return replace(DIST, s, m -> "/opt/conda/lib/" + m.group(1) + "/site-packages");
        }));
    }

    /** x.y.z (not part of a longer dotted run, an address or a file size): z moves by 1 to 3. */
    private static final Pattern VERSION = Pattern.compile("(?<![\\w.])(\\d{1,3}\\.\\d{1,3}\\.)(\\d{1,3})(?![\\w.]|\\.\\d)");

    static Case versions(Case c) {
        Random r = c.random("versions");
        int step = 1 + r.nextInt(3);
        return c.with(each(c, t -> replace(VERSION, t, m -> {
            int z = Integer.parseInt(m.group(2));
            int moved = z >= step ? z - step : z + step;
            String zs = m.group(2).length() == 2 && moved < 10 ? "0" + moved : Integer.toString(moved);
            return m.group(1) + zs;
        })));
    }

    /** GPUs that share a compute capability; each is replaced by another of its group. */
    private static final String[][] SAME_ARCH = {
        {"RTX 3090", "RTX 3080", "RTX 3070", "RTX 3060"},
        {"RTX 2080 Ti", "RTX 2070", "RTX 2060", "GTX 1660 Ti"},
        {"GTX 1080 Ti", "GTX 1080", "GTX 1070", "GTX 1060"},
        {"RTX 4090", "RTX 4080", "RTX 4070"},
        {"Tesla T4", "Quadro RTX 5000"},
        {"GTX 960M", "GTX 950M"},
    };

    static Case gpu(Case c) {
        Random r = c.random("gpu");
        Map<String, String> swap = new LinkedHashMap<>();
        for (String[] group : SAME_ARCH) {
            for (String name : group) {
                String other;
                do {
                    other = group[r.nextInt(group.length)];
                } while (other.equals(name));
                swap.put(name, other);
            }
        }
        StringBuilder alt = new StringBuilder();
        swap.keySet().stream().sorted((a, b) -> b.length() - a.length())
                .forEach(k -> alt.append(alt.isEmpty() ? "" : "|").append(Pattern.quote(k)));
        Pattern any = Pattern.compile("(?<![\\w])(" + alt + ")(?![\\w])");
        return c.with(each(c, t -> replace(any, t, m -> swap.get(m.group(1)))));
    }

    private static final Pattern HEX_ADDRESS = Pattern.compile("\\b0x([0-9a-fA-F]{8,16})\\b");
    private static final Pattern PID = Pattern.compile("(?i)(\\b(?:pid|process id)[ =:]+|\\bprocess )(\\d{2,7})\\b");
    private static final Pattern CLOCK = Pattern.compile("(?<![\\d:])([01]\\d|2[0-3]):([0-5]\\d):([0-5]\\d)(?![\\d:])");
    private static final Pattern SIZE = Pattern.compile("\\b(\\d{1,4})\\.(\\d{2}) ?(MiB|GiB|MB|GB|KiB)\\b");

    static Case numbers(Case c) {
        Random r = c.random("numbers");
        int hours = 1 + r.nextInt(20);
        return c.with(each(c, t -> {
            // addresses of the same crash move together (ASLR): only the digits above the page offset change
            String s = replace(HEX_ADDRESS, t, m -> {
                String h = m.group(1);
                if (h.matches("(?i)c0000[0-9a-f]{3}|8[0-9a-f]{7}|e06d7363|0+|f+")) {
                    return m.group(); // NTSTATUS / HRESULT / C++ exception codes are not addresses
                }
                if (h.length() < 12) {
                    return m.group();
                }
                char[] cs = h.toCharArray();
                int i = cs.length - 6 - r.nextInt(3);
                cs[i] = Character.forDigit((Character.digit(cs[i], 16) + 1 + r.nextInt(14)) % 16, 16);
                String out = new String(cs);
                return "0x" + (h.equals(h.toUpperCase(Locale.ROOT)) ? out.toUpperCase(Locale.ROOT) : out);
            });
            s = replace(PID, s, m -> m.group(1) + (1000 + r.nextInt(60000)));
            s = replace(CLOCK, s, m -> String.format(Locale.ROOT, "%02d:%s:%s",
                    (Integer.parseInt(m.group(1)) + hours) % 24, m.group(2), m.group(3)));
            return replace(SIZE, s, m -> (Integer.parseInt(m.group(1)) + 1 + r.nextInt(9)) + "." + m.group(2) + " " + m.group(3));
        }));
    }

    static Case prefix(Case c) {
        Random r = c.random("prefix");
        int style = r.nextInt(3);
        Map<String, String> out = new LinkedHashMap<>();
        c.files().forEach((name, text) -> {
            if (!isLog(name)) {
                out.put(name, text);
                return;
            }
            StringBuilder b = new StringBuilder();
            int second = 0;
            for (String line : text.split("\n", -1)) {
                if (line.isEmpty()) {
                    b.append('\n');
                    continue;
                }
                String p = switch (style) {
                    case 0 -> String.format(Locale.ROOT, "2025-03-14T09:%02d:%02d.%03dZ ", second / 60 % 60, second % 60, r.nextInt(1000));
                    case 1 -> "[rank0]: ";
                    default -> "trainer-1  | ";
                };
                second++;
                b.append(p).append(line).append('\n');
            }
            if (!text.endsWith("\n")) {
                b.setLength(b.length() - 1);
            }
            out.put(name, b.toString());
        });
        return c.with(out);
    }

    private static final String[][] NAMES = {
        {"crash.log", "output.txt", "stderr.log", "train_log.txt", "console.txt"},
        {"env.txt", "environment.txt", "versions.txt", "system-info.txt", "a_env.txt"},
    };

    static Case files(Case c) {
        Random r = c.random("files");
        Map<String, String> out = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(c.files().keySet());
        java.util.Collections.reverse(names);
        for (String name : names) {
            String text = c.files().get(name);
            String renamed = name;
            for (String[] group : NAMES) {
                if (group[0].equals(name)) {
                    renamed = group[1 + r.nextInt(group.length - 1)];
                }
            }
            out.put(renamed, text.replace("\r\n", "\n").replace("\n", "\r\n"));
        }
        return c.with(out);
    }

    static Case dropLastLine(Case c) {
        Map<String, String> out = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<String, String> e : c.files().entrySet()) {
            String text = e.getValue();
            List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
            long nonEmpty = lines.stream().filter(l -> !l.isBlank()).count();
            if (isLog(e.getKey()) && nonEmpty >= 3) {
                int i = lines.size() - 1;
                while (lines.get(i).isBlank()) {
                    i--;
                }
                lines.remove(i);
                changed = true;
                out.put(e.getKey(), String.join("\n", lines));
            } else {
                out.put(e.getKey(), text);
            }
        }
        return changed ? c.with(out) : null;
    }

    static Case noEnv(Case c) {
        if (!c.files().containsKey("env.txt") || c.files().size() < 2) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>(c.files());
        out.remove("env.txt");
        return c.with(out);
    }

    static boolean isLog(String name) {
        return !name.equals("env.txt");
    }

    static Map<String, String> each(Case c, Function<String, String> f) {
        Map<String, String> out = new LinkedHashMap<>();
        c.files().forEach((name, text) -> out.put(name, f.apply(text)));
        return out;
    }

    static String replace(Pattern p, String text, Function<Matcher, String> with) {
        Matcher m = p.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(with.apply(m)));
        }
        m.appendTail(b);
        return b.toString();
    }
}
