package dev.crashlab.fact;

import java.util.List;

/**
 * How a process ended, as the log spelled it, decoded: {@code exit code -1073740791 (0xC0000409)} is
 * {@code STATUS_STACK_BUFFER_OVERRUN}, {@code Killed} is {@code SIGKILL}, {@code 134} is 128 + {@code SIGABRT}.
 *
 * @param code the number as printed (signed or unsigned), or the signal's number when only its name was printed
 * @param hex the NTSTATUS value as {@code 0xC0000409}, or null when the status is not an NTSTATUS
 * @param name the decoded name ({@code STATUS_ACCESS_VIOLATION}, {@code SIGSEGV}), or null when not known
 * @param meaning what the status means, in a sentence, or null when not known
 * @param statusKind whether the value is an NTSTATUS, a signal, or a plain exit code (not {@code kind}: that
 *     name is every fact's record name, {@link Fact#kind()})
 * @param sources where the status was read
 */
public record ExitStatus(long code, String hex, String name, String meaning, Kind statusKind, List<SourceRef> sources)
        implements ProcessFact {

    /** What family of numbers the status belongs to. */
    public enum Kind {
        /** A Windows NTSTATUS (or MSVC exception code) the process died with. */
        NTSTATUS,
        /** A POSIX signal that killed the process (also as a 128 + n exit code). */
        SIGNAL,
        /** A plain exit code the process returned itself. */
        EXIT_CODE
    }

    public ExitStatus {
        sources = List.copyOf(sources);
    }

    @Override
    public ExitStatus withSources(List<SourceRef> s) {
        return new ExitStatus(code, hex, name, meaning, statusKind, s);
    }
}
