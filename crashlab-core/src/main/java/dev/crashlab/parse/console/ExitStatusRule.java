package dev.crashlab.parse.console;

import dev.crashlab.fact.ExitStatus;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads exit statuses in every spelling: IDE and shell "exit code" lines (any language, as long as the
 * {@code -1073740791 (0xC0000409)} pair is there), {@code errorcode 3221225501}, the shell's {@code Killed} /
 * {@code Segmentation fault (core dumped)} (also macOS's {@code Abort trap: 6}, zsh's {@code zsh: illegal hardware
 * instruction} and the French, German, Spanish and Russian names such as {@code Abandon (core dumped)}), and Python's {@code Fatal Python error} / {@code Windows fatal exception}.
 */
final class ExitStatusRule {

    // "Process finished with exit code 134 (interrupted by signal 6: SIGABRT)", "exited with code 3221226505"
    private static final Pattern EXIT_CODE = Pattern.compile(
            "(?i)\\b(?:exit(?:ed)?(?: with)? (?:code|status)|exitcode|returned non-zero exit status)[ :=]{0,3}(-?\\d{1,10})\\b"
                    + "(?: ?\\((?:0x([0-9a-f]{1,8})|interrupted by signal (\\d{1,2}): ?(SIG[A-Z]{2,6}))\\))?");
    // "dll load failed with errorcode 3221225501": only NTSTATUS-looking values, "Error code 126" is a Win32 error
    private static final Pattern ERROR_CODE = Pattern.compile("(?i)\\berror ?code[ :=]{0,3}(-?\\d{9,10})\\b");
    // any language: "进程已结束，退出代码为 -1073740791 (0xC0000409)"
    private static final Pattern DEC_HEX = Pattern.compile("(-?\\d{9,10}) ?\\(0[xX]([0-9a-fA-F]{8})\\)");
    private static final Pattern EXCEPTION_CODE = Pattern.compile("(?i)\\b(?:exception code|fatal exception: code)[ :]{0,3}0x([0-9a-f]{8})\\b");
    // the shell's report: "Killed", "./run.sh: line 3: 1234 Segmentation fault (core dumped) python x.py"
    private static final Pattern SHELL = Pattern.compile(
            "^(?:.{0,200}?: line \\d+: +\\d+ +)?(Killed|Segmentation fault|Illegal instruction|Aborted|Bus error"
                    + "|Floating point exception|Terminated)(?: \\(core dumped\\))?(?: {2,}.*)?$");
    // macOS's shell names the signal and its number: "Abort trap: 6", "Segmentation fault: 11", "Killed: 9"
    private static final Pattern MAC_SHELL = Pattern.compile(
            "^(?:.{0,200}?: line \\d+: +\\d+ +)?(Abort trap|Segmentation fault|Illegal instruction|Bus error|Killed"
                    + "|Floating point exception|Trace/BPT trap|Terminated): \\d{1,2}(?: {1,}.*)?$");
    // zsh: "zsh: illegal hardware instruction  python train.py", "[1]    4242 killed     python train.py"
    private static final Pattern ZSH = Pattern.compile(
            "^(?:zsh: |\\[\\d{1,4}\\] {1,8}[+-]? {0,4}\\d{1,9} {1,8})(illegal hardware instruction|segmentation fault|killed|abort"
                    + "|bus error|floating point exception|trace trap|terminated)(?: {1,}.*)?$");
    // the shell's message in other locales (glibc's translated signal names; bash appends the core-dump note)
    private static final Pattern LOCALIZED_SHELL = Pattern.compile(
            "^(?:.{0,200}?: \\w{1,10} \\d+: +\\d+ +)?(Abandon|Erreur de segmentation|Instruction illégale|Processus arrêté"
                    + "|Abgebrochen|Speicherzugriffsfehler|Ungültiger Maschinenbefehl|Getötet"
                    + "|Abortado|Violación de segmento|Instrucción ilegal"
                    + "|Аварийный останов|Ошибка сегментирования|Недопустимая инструкция|Убито)(?: \\([^()]{1,60}\\))?(?: {2,}.*)?$");
    private static final Pattern FATAL_PYTHON = Pattern.compile(
            "Fatal Python error: (Segmentation fault|Illegal instruction|Aborted|Bus error|Floating point exception)");
    private static final Pattern WINDOWS_FATAL = Pattern.compile(
            "Windows fatal exception: (access violation|stack overflow|illegal instruction|in page error"
                    + "|int divide by zero|float divide by zero|privileged instruction)");

    /** Reads at most one exit status from the line. */
    void apply(ConsoleLine line, FactSink out) {
        String t = line.text;
        Matcher m;
        if (t.indexOf('x') >= 0 || t.indexOf('X') >= 0) {
            if (t.contains("exit") || t.contains("Exit") || t.contains("EXIT") || t.contains("returned non-zero")) {
                m = EXIT_CODE.matcher(t);
                if (m.find()) {
                    exitCode(line, m, out);
                    return;
                }
            }
            if (t.contains("(0x") || t.contains("(0X")) {
                m = DEC_HEX.matcher(t);
                while (m.find()) {
                    long dec = Long.parseLong(m.group(1));
                    long hex = Long.parseLong(m.group(2), 16);
                    if ((dec & 0xFFFFFFFFL) == hex && ExitCodes.looksLikeNtStatus(dec)) {
                        emit(line, dec, ExitCodes.ntStatus(dec), out);
                        return;
                    }
                }
            }
            if (t.contains("xception") || t.contains("XCEPTION")) {
                m = EXCEPTION_CODE.matcher(t);
                if (m.find()) {
                    long v = Long.parseLong(m.group(1), 16);
                    emit(line, v, ExitCodes.ntStatus(v), out);
                    return;
                }
            }
        }
        if (t.contains("rror") || t.contains("RROR")) {
            if (t.contains("Fatal Python error: ")) {
                m = FATAL_PYTHON.matcher(t);
                if (m.find()) {
                    signal(line, shellSignal(m.group(1)), out);
                    return;
                }
            }
            m = ERROR_CODE.matcher(t);
            if (mentionsErrorCode(t) && m.find()) {
                long v = Long.parseLong(m.group(1));
                if (ExitCodes.looksLikeNtStatus(v)) {
                    emit(line, v, ExitCodes.ntStatus(v), out);
                    return;
                }
            }
        }
        if (t.contains("Windows fatal exception: ")) {
            m = WINDOWS_FATAL.matcher(t);
            if (m.find()) {
                long v = switch (m.group(1)) {
                    case "access violation" -> 0xC0000005L;
                    case "stack overflow" -> 0xC00000FDL;
                    case "illegal instruction" -> 0xC000001DL;
                    case "in page error" -> 0xC0000006L;
                    case "int divide by zero" -> 0xC0000094L;
                    case "float divide by zero" -> 0xC000008EL;
                    default -> 0xC0000096L;
                };
                emit(line, v, ExitCodes.ntStatus(v), out);
                return;
            }
        }
        if (t.length() < 600 && startsShellWord(t)) {
            m = SHELL.matcher(t.strip());
            if (m.matches()) {
                signal(line, shellSignal(m.group(1)), out);
                return;
            }
            m = MAC_SHELL.matcher(t.strip());
            if (m.matches()) {
                signal(line, shellSignal(m.group(1)), out);
                return;
            }
        }
        if (t.length() < 600 && (t.startsWith("zsh: ") || t.startsWith("[") && containsAny(t, ZSH_JOB_WORDS))) {
            m = ZSH.matcher(t.strip());
            if (m.matches()) {
                signal(line, shellSignal(m.group(1)), out);
                return;
            }
        }
        if (t.length() < 600 && startsLocalizedShellWord(t)) {
            m = LOCALIZED_SHELL.matcher(t.strip());
            if (m.matches()) {
                signal(line, shellSignal(m.group(1)), out);
            }
        }
    }

    /** The words of a zsh job report ({@code [1]    4242 killed     python train.py}). */
    static final String[] ZSH_JOB_WORDS = {" killed", " segmentation fault", " illegal hardware instruction", " abort",
        " bus error", " floating point exception", " trace trap", " terminated"};

    /** Every literal one of this rule's patterns needs (the reading pass's prefilter looks for these first). */
    static final String[] LITERALS = {"exit", "Exit", "EXIT", "returned non-zero", "(0x", "(0X", "xception", "XCEPTION",
        "Fatal Python error: ", "rror code", "rrorcode", "RROR CODE", "RRORCODE", "rror Code", "rrorCode",
        "Windows fatal exception: ", "Killed", "Segmentation fault", "Illegal instruction", "Aborted", "Bus error",
        "Floating point exception", "Terminated", "Abort trap", "Trace/BPT trap", "zsh: "};

    static boolean containsAny(String t, String[] words) {
        for (String w : words) {
            if (t.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /** The words {@link #startsLocalizedShellWord} looks for: glibc's signal names in French, German, Spanish, Russian. */
    static final String[] LOCALIZED_WORDS = {"Abandon", "Erreur de segmentation", "Instruction illégale", "Processus arrêté",
        "Abgebrochen", "Speicherzugriffsfehler", "Ungültiger Maschinenbefehl", "Getötet", "Abortado", "Violación de segmento",
        "Instrucción ilegal", "Аварийный останов", "Ошибка сегментирования", "Недопустимая инструкция", "Убито"};

    private static boolean startsLocalizedShellWord(String t) {
        return containsAny(t, LOCALIZED_WORDS);
    }

    private static boolean startsShellWord(String t) {
        return t.contains("Killed") || t.contains("Segmentation fault") || t.contains("Illegal instruction")
                || t.contains("Aborted") || t.contains("Bus error") || t.contains("Floating point exception")
                || t.contains("Terminated") || t.contains("Abort trap") || t.contains("Trace/BPT trap");
    }

    private static String shellSignal(String word) {
        return switch (word) {
            case "Killed", "killed", "Processus arrêté", "Getötet", "Убито" -> "SIGKILL";
            case "Segmentation fault", "segmentation fault", "Erreur de segmentation", "Speicherzugriffsfehler",
                 "Violación de segmento", "Ошибка сегментирования" -> "SIGSEGV";
            case "Illegal instruction", "illegal hardware instruction", "Instruction illégale", "Ungültiger Maschinenbefehl",
                 "Instrucción ilegal", "Недопустимая инструкция" -> "SIGILL";
            case "Aborted", "Abort trap", "abort", "Abandon", "Abgebrochen", "Abortado", "Аварийный останов" -> "SIGABRT";
            case "Bus error", "bus error" -> "SIGBUS";
            case "Floating point exception", "floating point exception" -> "SIGFPE";
            case "Trace/BPT trap", "trace trap" -> "SIGTRAP";
            default -> "SIGTERM";
        };
    }

    private static void signal(ConsoleLine line, String name, FactSink out) {
        ExitCodes.signal(name).ifPresent(d -> emit(line, ExitCodes.signalNumber(name), d, out));
    }

    private static void exitCode(ConsoleLine line, Matcher m, FactSink out) {
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            return;
        }
        if (m.group(3) != null) {
            int n = Integer.parseInt(m.group(3));
            var d = ExitCodes.signal(n).orElse(ExitCodes.signal(m.group(4).toUpperCase(Locale.ROOT))
                    .orElse(new ExitCodes.Decoded(null, m.group(4), null, ExitStatus.Kind.SIGNAL)));
            emit(line, value, d, out);
            return;
        }
        emit(line, value, ExitCodes.exitCode(value), out);
    }

    private static void emit(ConsoleLine line, long code, ExitCodes.Decoded d, FactSink out) {
        out.add(new ExitStatus(code, d.hex(), d.name(), d.meaning(), d.kind(), java.util.List.of()), line.ref());
    }

    private static boolean mentionsErrorCode(String t) {
        return t.contains("rror code") || t.contains("rrorcode") || t.contains("RROR CODE") || t.contains("RRORCODE")
                || t.contains("rror Code") || t.contains("rrorCode");
    }
}
