package dev.crashlab.repro;

/**
 * Says what is wrong with one field of a spec document, and where: {@code layers[2].kernel: needs 2 entries}.
 *
 * @param path the field's path from the document root ({@code $} for the document itself)
 * @param reason what is wrong with it, in words
 */
public record SpecProblem(String path, String reason) {

    @Override
    public String toString() {
        return path + ": " + reason;
    }
}
