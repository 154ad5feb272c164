package dev.crashlab.crashes;

import dev.crashlab.fact.ConfirmedCrash;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.crashes.CrashIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/** Turns similar past crashes whose cause was confirmed into {@link ConfirmedCrash} facts for a diagnosis. */
public final class ConfirmedCrashes {

    /**
     * The least similarity at which a confirmed crash counts as evidence for another bundle. 0.3 since similarity is
     * the Dice coefficient over both signatures (it was the share of one side's terms, with 0.2): a short signature
     * that shares one library line with a long one scores higher on that scale, and at 0.2 a confirmed sibling cause
     * moved a right answer down in the leave-one-out eval (`crashlab eval --history`: 113 of 119 first at 0.2, 114 at
     * 0.3 and 0.4, the same as without history).
     */
    public static final double MIN_SIMILARITY = 0.3;
    /**
     * Specific terms that many causes share: an exit code like 0xC0000409, an exception type like RuntimeError, a
     * status like CUDNN_STATUS_INTERNAL_ERROR. Sharing only these does not make a confirmed cause evidence (on the
     * labelled corpus they moved the wrong cause up); a library, a module, an Xid or an event must be shared too.
     */
    static final java.util.Set<String> GENERIC_KINDS = java.util.Set.of("exit", "exception", "status");

    private ConfirmedCrashes() {}

    /**
     * The confirmed ones among {@code similar}, as facts.
     *
     * @param name a bundle's name by id (null: the bundle is gone, left out)
     * @param confirmedArticle the KB article a bundle was confirmed as, by id (null: not confirmed)
     */
    public static List<ConfirmedCrash> of(List<CrashIndex.Similar> similar, LongFunction<String> name,
                                          LongFunction<String> confirmedArticle) {
        List<ConfirmedCrash> out = new ArrayList<>();
        for (CrashIndex.Similar s : similar) {
            if (s.similarity() < MIN_SIMILARITY
                    || s.shared().stream().noneMatch(t -> t.specific() && !GENERIC_KINDS.contains(t.kind()))) {
                continue;
            }
            String article = confirmedArticle.apply(s.bundleId());
            String n = name.apply(s.bundleId());
            if (article != null && n != null) {
                out.add(new ConfirmedCrash(s.bundleId(), n, article, s.similarity(),
                        s.shared().stream().map(SignatureTerm::label).toList(),
                        List.of(new SourceRef("bundle #" + s.bundleId(), s.bundleId(), n))));
            }
        }
        return out;
    }
}
