package dev.crashlab.search;

import java.util.List;

/**
 * One search hit in the KB.
 *
 * @param id the article id
 * @param title the title
 * @param category the category
 * @param score Lucene's score
 * @param snippets up to two passages of the article with the matching words wrapped in {@code <mark>} (HTML-escaped otherwise)
 */
public record KbHit(String id, String title, String category, double score, List<String> snippets) {
    public KbHit {
        snippets = List.copyOf(snippets);
    }
}
