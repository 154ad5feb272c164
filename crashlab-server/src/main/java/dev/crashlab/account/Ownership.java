package dev.crashlab.account;

import dev.crashlab.domain.DomainException;
import dev.crashlab.domain.DomainException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.util.Optional;

/** Who uploaded which bundle, and whether a caller may change it (delete, read again: triagers any, reporters their own). */
@ApplicationScoped
public class Ownership {

    @Transactional
    public void recordUpload(long bundleId, Caller who) {
        BundleOwner o = BundleOwner.findById(bundleId);
        if (o == null) {
            o = new BundleOwner();
            o.bundleId = bundleId;
            o.owner = who.name();
            o.persist();
        }
    }

    @Transactional
    public Optional<String> owner(long bundleId) {
        BundleOwner o = BundleOwner.findById(bundleId);
        return o == null ? Optional.empty() : Optional.of(o.owner);
    }

    /** Whether the caller may delete this bundle: a triager any, a reporter the ones they uploaded. */
    public boolean mayDelete(long bundleId, Caller who) {
        if (who.has(Roles.TRIAGER)) {
            return true;
        }
        Optional<String> owner = owner(bundleId);
        return who.has(Roles.REPORTER) && owner.isPresent() && owner.get().equals(who.name());
    }

    /** Refuses unless the caller is a triager, or a reporter who uploaded this bundle. */
    public void checkMayDelete(long bundleId, Caller who) {
        checkMayChange(bundleId, who, "delete");
    }

    /**
     * Refuses unless the caller is a triager, or a reporter who uploaded this bundle: the rule for every change to a
     * bundle ({@code what}: "delete", "read again").
     */
    public void checkMayChange(long bundleId, Caller who, String what) {
        if (mayDelete(bundleId, who)) {
            return;
        }
        Optional<String> owner = owner(bundleId);
        throw new DomainException(Kind.FORBIDDEN, "not-your-bundle", "Not your bundle",
                "reporters may " + what + " only the bundles they uploaded"
                        + owner.map(o -> "; this one was uploaded by " + o).orElse("") + "; a triager may " + what
                        + " any bundle");
    }
}
