package dev.crashlab.fact;

import java.util.List;

/**
 * A past crash much like this bundle's whose cause someone confirmed: the knowledge of the team, fed back as
 * evidence for that cause.
 *
 * <p>NOTE: this fact is not read from an artifact: its source is the other bundle ({@code artifact} =
 * {@code bundle #N}, {@code line} = N), so the report can link to it.
 *
 * @param bundleId the confirmed bundle
 * @param bundleName its name
 * @param articleId the KB article it was confirmed as
 * @param similarity how alike the two crashes are, in (0, 1] (the idf-weighted share of this bundle's signature)
 * @param shared what they share, as the UI says it (specific terms first)
 */
public record ConfirmedCrash(long bundleId, String bundleName, String articleId, double similarity, List<String> shared,
        List<SourceRef> sources) implements ProcessFact {

    public ConfirmedCrash {
        shared = List.copyOf(shared);
        sources = List.copyOf(sources);
    }

    @Override
    public ConfirmedCrash withSources(List<SourceRef> s) {
        return new ConfirmedCrash(bundleId, bundleName, articleId, similarity, shared, s);
    }
}
