package dev.crashlab.fact;

import java.util.List;

/**
 * A shared library or DLL that could not be loaded ({@code cudart64_110.dll}, {@code libcudnn.so.8}).
 *
 * @param library the library's file or module name as printed, or null when the message named none
 *     ({@code DLL load failed: ...} with no module)
 * @param reason why, as printed ({@code cannot open shared object file: No such file or directory}), or null
 * @param sources the line (two lines when the library's path was wrapped onto the next one)
 */
public record LibraryLoadFailure(String library, String reason, List<SourceRef> sources) implements ProcessFact {

    public LibraryLoadFailure {
        sources = List.copyOf(sources);
    }

    @Override
    public LibraryLoadFailure withSources(List<SourceRef> s) {
        return new LibraryLoadFailure(library, reason, s);
    }
}
