package dev.crashlab.kb;

/**
 * One validation error in a KB file, printed as {@code file:line: message}.
 *
 * @param file the file's name (or path as given)
 * @param line the 1-based line, or 0 for the file as a whole
 * @param message what is wrong, and where possible what to write instead
 */
public record KbProblem(String file, int line, String message) {
    @Override
    public String toString() {
        return line > 0 ? file + ":" + line + ": " + message : file + ": " + message;
    }
}
