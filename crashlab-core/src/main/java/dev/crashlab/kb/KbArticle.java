package dev.crashlab.kb;

import java.util.List;

/**
 * One root cause of the knowledge base, as its article's front matter and body describe it.
 *
 * @param id stable kebab-case id, equal to the file name
 * @param title one line
 * @param category installation, version-compatibility, memory, driver, hardware, code or platform
 * @param platforms the platforms the cause occurs on (empty: any)
 * @param prior how common the cause is among GPU crashes, in (0, 1)
 * @param matchers evidence for the cause
 * @param against counter-evidence
 * @param remedies fixes per platform, in order
 * @param confirm how to prove the cause
 * @param references sources
 * @param body the Markdown body after the front matter
 * @param file the article's file name as loaded (for messages)
 * @param specializes the id of the article this one is a strict special case of (Xid 79 of a hardware
 *     fault), or null; a diagnosis naming this article also names that one
 */
public record KbArticle(String id, String title, String category, List<String> platforms, double prior,
        List<Matcher> matchers, List<Matcher> against, List<Remedy> remedies, List<String> confirm,
        List<String> references, String body, String file, String specializes) {

    /** The prior an article gets when it states none. */
    public static final double DEFAULT_PRIOR = 0.02;

    /** The categories an article may name. */
    public static final List<String> CATEGORIES = List.of(
            "installation", "version-compatibility", "memory", "driver", "hardware", "code", "platform");

    /** The platforms an article or remedy may name. */
    public static final List<String> PLATFORMS = List.of("windows", "linux", "wsl2", "macos");

    public KbArticle {
        platforms = List.copyOf(platforms);
        matchers = List.copyOf(matchers);
        against = List.copyOf(against);
        remedies = List.copyOf(remedies);
        confirm = List.copyOf(confirm);
        references = List.copyOf(references);
    }

    /** Tells whether this article is {@code id} or a special case of it. */
    public boolean names(String id) {
        return this.id.equals(id) || id.equals(specializes);
    }
}
