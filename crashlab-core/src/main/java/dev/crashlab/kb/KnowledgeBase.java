package dev.crashlab.kb;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Holds the loaded, valid articles and a fingerprint of the files they came from (a stored diagnosis
 * made with another fingerprint is stale).
 *
 * @param articles the articles, sorted by id
 * @param fingerprint SHA-256 (hex) over every article file's name and bytes, and the compat tables'
 * @param origin where the articles were read from (a folder, or {@code classpath:...})
 */
public record KnowledgeBase(List<KbArticle> articles, String fingerprint, String origin) {

    public KnowledgeBase {
        articles = List.copyOf(articles);
    }

    /** The article with this id. */
    public Optional<KbArticle> article(String id) {
        return articles.stream().filter(a -> a.id().equals(id)).findFirst();
    }

    /** The articles by id, in id order. */
    public Map<String, KbArticle> byId() {
        Map<String, KbArticle> m = new LinkedHashMap<>();
        articles.forEach(a -> m.put(a.id(), a));
        return m;
    }
}
