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

    /**
     * Tells whether answering {@code answer} counts as naming the cause {@code label}: the same id, or one
     * of the two a strict special case ({@code specializes:}) of the other. Both directions count: an article
     * that specializes the label (Xid 79 for a hardware fault) names it, and the general cause is not a wrong
     * answer for a case labelled with its special case (cuDNN 8 vs 9 answered as a cuDNN version mismatch).
     * NOTE: the one place that says what a right answer is; {@code eval} and the corpus tests use it.
     */
    public boolean counts(String answer, String label) {
        if (answer.equals(label)) {
            return true;
        }
        boolean answerSpecializes = article(answer).map(a -> label.equals(a.specializes())).orElse(false);
        boolean labelSpecializes = article(label).map(a -> answer.equals(a.specializes())).orElse(false);
        return answerSpecializes || labelSpecializes;
    }
}
