package dev.crashlab.parse.console;

import dev.crashlab.fact.ExitStatus;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads exit statuses in every spelling: IDE and shell "exit code" lines (any language, as long as the
 * {@code -1073740791 (0xC0000409)} pair is there), {@code errorcode 3221225501}, the shell's {@code Killed} /
 * {@code Segmentation fault (core dumped)}, and Python's {@code Fatal Python error} / {@code Windows fatal exception}.
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
            }
        }
    }

    private static boolean startsShellWord(String t) {
        return t.contains("Killed") || t.contains("Segmentation fault") || t.contains("Illegal instruction")
                || t.contains("Aborted") || t.contains("Bus error") || t.contains("Floating point exception")
                || t.contains("Terminated");
    }

    private static String shellSignal(String word) {
        return switch (word) {
            case "Killed" -> "SIGKILL";
            case "Segmentation fault" -> "SIGSEGV";
            case "Illegal instruction" -> "SIGILL";
            case "Aborted" -> "SIGABRT";
            case "Bus error" -> "SIGBUS";
            case "Floating point exception" -> "SIGFPE";
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
