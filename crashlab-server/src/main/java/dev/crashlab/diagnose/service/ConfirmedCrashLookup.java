package dev.crashlab.diagnose.service;

import dev.crashlab.fact.Fact;
import java.util.List;

/**
 * Finds crashes like a bundle whose cause someone confirmed, as facts for its diagnosis. Implemented by the past
 * crashes (which sit above the diagnosis), so the diagnosis asks without depending on them.
 */
public interface ConfirmedCrashLookup {

    /** The confirmed crashes like the bundle described by its name, file paths and own facts. */
    List<Fact> confirmedLike(long bundleId, String bundleName, List<String> paths, List<Fact> facts);
}
