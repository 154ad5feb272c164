package dev.crashlab.crashes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The curated lists the group signature rules read ({@code dev/crashlab/crashes/signature/*.txt}), validated at load:
 * a bad line fails with its file and line.
 *
 * @param informationalLines source lines that only inform (a fact read only from them never decides a group)
 * @param irrelevantFrames traceback frames ({@code file:function}) that pass a call on rather than fail
 * @param wrapperExceptions short exception type names that only carry another failure
 * @param genericExits exit status names and hex codes too generic to make a group alone
 * @param normalizers what a message loses before it is compared, in order
 * @param libraryComponents library names whose major version names a component
 */
record SignatureLists(List<Pattern> informationalLines, List<Pattern> irrelevantFrames, Set<String> wrapperExceptions,
                      Set<String> genericExits, List<Normalizer> normalizers, List<LibraryComponent> libraryComponents) {

    /** The folder of the lists on the class path. */
    static final String FOLDER = "dev/crashlab/crashes/signature/";

    /** One message normalization: every match of {@code pattern} becomes {@code replacement}. */
    record Normalizer(Pattern pattern, String replacement) {}

    /** A library name pattern whose group 1 is the major version of {@code component}. */
    record LibraryComponent(Pattern library, String component) {}

    private static volatile SignatureLists loaded;

    /** The lists shipped with this build (loaded once). */
    static SignatureLists shipped() {
        SignatureLists l = loaded;
        if (l == null) {
            l = new SignatureLists(
                    parse("informational-lines.txt", read("informational-lines.txt"), SignatureLists::regex),
                    parse("irrelevant-frames.txt", read("irrelevant-frames.txt"), SignatureLists::regex),
                    Set.copyOf(parse("wrapper-exceptions.txt", read("wrapper-exceptions.txt"), SignatureLists::word)),
                    Set.copyOf(parse("generic-exit-codes.txt", read("generic-exit-codes.txt"),
                            s -> word(s).toUpperCase(Locale.ROOT))),
                    parse("message-normalizers.txt", read("message-normalizers.txt"), SignatureLists::normalizer),
                    parse("library-components.txt", read("library-components.txt"), SignatureLists::libraryComponent));
            loaded = l;
        }
        return l;
    }

    private static String read(String name) {
        try (InputStream in = SignatureLists.class.getClassLoader().getResourceAsStream(FOLDER + name)) {
            if (in == null) {
                throw new IllegalStateException(FOLDER + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(FOLDER + name, e);
        }
    }

    /**
     * The entries of a list file: one a line, blank lines and {@code #} comments skipped; {@code entry} turns a line
     * into its value or throws {@link IllegalArgumentException} saying what is wrong.
     *
     * @throws IllegalArgumentException naming {@code file:line} of the first bad entry, or a duplicate
     */
    static <T> List<T> parse(String file, String text, Function<String, T> entry) {
        List<T> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!seen.add(line)) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": the entry is listed twice: " + line);
            }
            try {
                out.add(entry.apply(line));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }

    static Pattern regex(String s) {
        try {
            return Pattern.compile(s);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("not a regular expression (" + e.getDescription() + " at " + e.getIndex() + "): " + s);
        }
    }

    static String word(String s) {
        if (!s.matches("[\\w.-]+")) {
            throw new IllegalArgumentException("one name expected (letters, digits, '_', '.', '-'): " + s);
        }
        return s;
    }

    static Normalizer normalizer(String s) {
        int arrow = s.indexOf(" => ");
        if (arrow <= 0) {
            throw new IllegalArgumentException("\"regex => replacement\" expected: " + s);
        }
        String replacement = s.substring(arrow + 4).strip();
        if (replacement.contains("$") || replacement.contains("\\")) {
            throw new IllegalArgumentException("a replacement is plain text (no $ or \\): " + replacement);
        }
        return new Normalizer(regex(s.substring(0, arrow).strip()), replacement);
    }

    static LibraryComponent libraryComponent(String s) {
        int space = s.lastIndexOf(' ');
        if (space <= 0) {
            throw new IllegalArgumentException("\"regex component\" expected: " + s);
        }
        Pattern p = regex("(?i)" + s.substring(0, space).strip());
        if (p.matcher("").groupCount() < 1) {
            throw new IllegalArgumentException("the regex must capture the major version as group 1: " + s);
        }
        return new LibraryComponent(p, word(s.substring(space + 1)));
    }
}
