package dev.crashlab.diagnose;

import java.util.List;
import java.util.Map;

/** Scores how much each article's text resembles a bundle's error lines (the search package's Lucene index implements it). */
public interface TextSimilarity {

    /** Article id -> similarity in [0, 1] (1 = the most similar article); articles not listed score 0. */
    Map<String, Double> similarity(List<String> errorLines);

    /** No similarity at all. */
    TextSimilarity NONE = lines -> Map.of();
}
