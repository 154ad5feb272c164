package dev.crashlab.parse.console;

import dev.crashlab.fact.ExitStatus.Kind;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Decodes process exit statuses: Windows NTSTATUS values (in hex, signed or unsigned decimal) and POSIX
 * signals (by number, as 128 + n shell exit codes, or as Python's negative return codes).
 *
 * <p>Sources: NTSTATUS values from Microsoft's [MS-ERREF] "2.3.1 NTSTATUS Values"
 * (https://learn.microsoft.com/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55);
 * {@code __fastfail} raising 0xC0000409 from Microsoft's "__fastfail" page
 * (https://learn.microsoft.com/cpp/intrinsics/fastfail); 0xE06D7363 from Raymond Chen, "Decoding the
 * parameters of a thrown C++ exception (0xE06D7363)" (The Old New Thing, devblogs.microsoft.com);
 * signal numbers (x86/ARM Linux) from signal(7) (https://man7.org/linux/man-pages/man7/signal.7.html)
 * and the shell's 128 + n convention from bash(1), "EXIT STATUS". The meanings are ours.
 */
public final class ExitCodes {

    /** A decoded status. */
    public record Decoded(String hex, String name, String meaning, Kind kind) {}

    private record Entry(String name, String meaning) {}

    private static final Map<Long, Entry> NTSTATUS = new LinkedHashMap<>();
    private static final Map<Integer, Entry> SIGNALS = new LinkedHashMap<>();
    private static final Map<String, Integer> SIGNAL_BY_NAME = new LinkedHashMap<>();

    static {
        nt(0xC0000005L, "STATUS_ACCESS_VIOLATION", "the process read or wrote memory it does not own (a native crash)");
        nt(0xC0000006L, "STATUS_IN_PAGE_ERROR", "a page of memory could not be read in from disk (failing disk, network drive or pagefile)");
        nt(0xC0000017L, "STATUS_NO_MEMORY", "the system could not give the process the virtual memory it asked for");
        nt(0xC000001DL, "STATUS_ILLEGAL_INSTRUCTION", "the CPU met an instruction it does not support (e.g. AVX code on a CPU without AVX)");
        nt(0xC0000025L, "STATUS_NONCONTINUABLE_EXCEPTION", "the process tried to continue after an exception that forbids it");
        nt(0xC000008EL, "STATUS_FLOAT_DIVIDE_BY_ZERO", "a floating-point division by zero trapped");
        nt(0xC0000094L, "STATUS_INTEGER_DIVIDE_BY_ZERO", "an integer division by zero");
        nt(0xC0000096L, "STATUS_PRIVILEGED_INSTRUCTION", "the process ran an instruction only the kernel may run");
        nt(0xC00000FDL, "STATUS_STACK_OVERFLOW", "a thread used up its stack (deep recursion or huge stack arrays)");
        nt(0xC000012DL, "STATUS_COMMITMENT_LIMIT", "the system ran out of commit (RAM plus pagefile); the pagefile is too small");
        nt(0xC0000135L, "STATUS_DLL_NOT_FOUND", "a DLL the program needs was not found when it started");
        nt(0xC0000139L, "STATUS_ENTRYPOINT_NOT_FOUND", "a DLL was found but lacks a function the program needs (wrong version)");
        nt(0xC000013AL, "STATUS_CONTROL_C_EXIT", "the process was ended by Ctrl+C or a console close");
        nt(0xC0000142L, "STATUS_DLL_INIT_FAILED", "a DLL's initialisation routine failed while loading");
        nt(0xC0000374L, "STATUS_HEAP_CORRUPTION", "the heap manager found its data structures damaged (a native memory bug)");
        nt(0xC0000409L, "STATUS_STACK_BUFFER_OVERRUN", "the process was stopped by __fastfail, which the MSVC runtime's abort() also uses:"
                + " usually a library hit a fatal error and aborted, sometimes a detected stack buffer overrun");
        nt(0xC0000417L, "STATUS_INVALID_CRUNTIME_PARAMETER", "the C runtime was called with an invalid argument and ended the process");
        nt(0xC0000420L, "STATUS_ASSERTION_FAILURE", "an assertion in native code failed");
        nt(0xE06D7363L, "MSVC_CPP_EXCEPTION", "a C++ exception (MSVC code 'msc') went uncaught in native code");
        nt(0x80000003L, "STATUS_BREAKPOINT", "a breakpoint instruction ran with no debugger attached (often a native assert or __debugbreak)");

        sig(2, "SIGINT", "interrupted from the keyboard (Ctrl+C)");
        sig(4, "SIGILL", "the CPU met an illegal instruction (e.g. AVX code on a CPU without AVX)");
        sig(5, "SIGTRAP", "a trace or breakpoint trap");
        sig(6, "SIGABRT", "the process called abort(): a library hit a fatal error or a failed check");
        sig(7, "SIGBUS", "a bus error: bad memory access (misaligned, or a mapped file that shrank)");
        sig(8, "SIGFPE", "an arithmetic error such as an integer division by zero");
        sig(9, "SIGKILL", "killed from outside, most often by the kernel's out-of-memory killer");
        sig(11, "SIGSEGV", "a segmentation fault: invalid memory access in native code");
        sig(15, "SIGTERM", "asked to terminate (by a scheduler, a timeout or a user)");
    }

    private ExitCodes() {}

    private static void nt(long value, String name, String meaning) {
        NTSTATUS.put(value, new Entry(name, meaning));
    }

    private static void sig(int number, String name, String meaning) {
        SIGNALS.put(number, new Entry(name, meaning));
        SIGNAL_BY_NAME.put(name, number);
    }

    /** Returns how many NTSTATUS values and signals the table knows. */
    public static int size() {
        return NTSTATUS.size() + SIGNALS.size();
    }

    /** Formats an unsigned 32-bit value as {@code 0xC0000409}. */
    public static String hex(long unsigned) {
        return String.format(Locale.ROOT, "0x%08X", unsigned & 0xFFFFFFFFL);
    }

    /** Tells whether a value, read as 32 bits, has the NTSTATUS error or warning bit set and is in the table or looks like one. */
    public static boolean looksLikeNtStatus(long value) {
        if (value < Integer.MIN_VALUE || value > 0xFFFFFFFFL) {
            return false;
        }
        long u = value & 0xFFFFFFFFL;
        return (u & 0x80000000L) != 0 && (value < -255 || value > 0x7FFFFFFFL);
    }

    /** Decodes a signal number (not an exit code), if known. */
    public static Optional<Decoded> signal(int number) {
        Entry e = SIGNALS.get(number);
        return e == null ? Optional.empty() : Optional.of(new Decoded(null, e.name(), e.meaning(), Kind.SIGNAL));
    }

    /** Decodes a signal by name ({@code SIGSEGV}), if known. */
    public static Optional<Decoded> signal(String name) {
        Integer n = SIGNAL_BY_NAME.get(name.toUpperCase(Locale.ROOT));
        return n == null ? Optional.empty() : signal(n);
    }

    /** Returns the number of a signal name, or -1. */
    public static int signalNumber(String name) {
        return SIGNAL_BY_NAME.getOrDefault(name.toUpperCase(Locale.ROOT), -1);
    }

    /** Decodes an NTSTATUS given as any 32-bit form (signed, unsigned); unknown values keep a null name. */
    public static Decoded ntStatus(long value) {
        long u = value & 0xFFFFFFFFL;
        Entry e = NTSTATUS.get(u);
        if (e != null) {
            return new Decoded(hex(u), e.name(), e.meaning(), Kind.NTSTATUS);
        }
        String meaning = (u & 0xC0000000L) == 0xC0000000L ? "an NTSTATUS error this table does not know"
                : "an NTSTATUS warning or exception code this table does not know";
        return new Decoded(hex(u), null, meaning, Kind.NTSTATUS);
    }

    /**
     * Decodes a process exit code as printed: NTSTATUS values in either decimal form, 128 + n for a signal,
     * a negative small number for Python's "killed by signal n", anything else as a plain exit code.
     */
    public static Decoded exitCode(long value) {
        if (looksLikeNtStatus(value)) {
            return ntStatus(value);
        }
        if (value > 128 && value < 160 && SIGNALS.containsKey((int) (value - 128))) {
            Entry e = SIGNALS.get((int) (value - 128));
            return new Decoded(null, e.name(), "128 + " + (value - 128) + ": " + e.meaning(), Kind.SIGNAL);
        }
        if (value < 0 && value > -32 && SIGNALS.containsKey((int) -value)) {
            Entry e = SIGNALS.get((int) -value);
            return new Decoded(null, e.name(), e.meaning(), Kind.SIGNAL);
        }
        String meaning = value == 0 ? "the process exited normally"
                : value == 1 ? "the process exited with a generic error status (the cause is in the output before it)"
                : "the process exited with status " + value;
        return new Decoded(null, null, meaning, Kind.EXIT_CODE);
    }
}
