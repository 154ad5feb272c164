package dev.crashlab.account;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;

/** The audit trail: who uploaded, deleted, confirmed, ran or cancelled what, and when; and account changes. */
@ApplicationScoped
public class AuditLog {

    /** One entry as the API shows it. */
    public record Entry(long id, Instant at, String actor, String action, String target, String detail) {}

    /** A page of entries, newest first. */
    public record Entries(List<Entry> items, int page, int size, long total) {}

    public static final int MAX_PAGE_SIZE = 200;

    @Transactional
    public void record(String actor, String action, String target, String detail) {
        AuditEvent e = new AuditEvent();
        e.at = Instant.now();
        e.actor = cut(actor == null ? "anonymous" : actor, 200);
        e.action = cut(action, 64);
        e.target = target == null ? null : cut(target, 200);
        e.detail = detail == null ? null : cut(detail, 1000);
        e.persist();
    }

    public void record(Caller who, String action, String target, String detail) {
        record(who == null ? null : who.name(), action, target, detail);
    }

    public Entries list(int page, int size, String actor, String action) {
        return list(page, size, new Filter(actor, action, null, null, null));
    }

    /**
     * What to show of the trail; null (or blank) parts do not filter.
     *
     * @param actor exactly this actor
     * @param action exactly this action, or every action under it when it ends in {@code .} ({@code bundle.})
     * @param bundleId entries about this bundle (target {@code bundle <id>})
     * @param from at or after this instant
     * @param to before this instant
     */
    public record Filter(String actor, String action, Long bundleId, Instant from, Instant to) {}

    @Transactional
    public Entries list(int page, int size, Filter filter) {
        String actor = filter.actor();
        String action = filter.action();
        if (page < 0 || page > 1_000_000 || size < 1 || size > MAX_PAGE_SIZE) {
            throw new dev.crashlab.domain.DomainException(dev.crashlab.domain.DomainException.Kind.INVALID, "bad-page",
                    "Bad page", "page must be between 0 and 1000000 and size between 1 and " + MAX_PAGE_SIZE);
        }
        StringBuilder where = new StringBuilder("1 = 1");
        java.util.Map<String, Object> params = new java.util.HashMap<>();
        if (actor != null && !actor.isBlank()) {
            where.append(" and actor = :actor");
            params.put("actor", actor.strip());
        }
        if (action != null && !action.isBlank()) {
            if (action.strip().endsWith(".")) {
                where.append(" and action like :action");
                params.put("action", action.strip().replace("%", "").replace("_", "") + "%");
            } else {
                where.append(" and action = :action");
                params.put("action", action.strip());
            }
        }
        if (filter.bundleId() != null) {
            where.append(" and target = :target");
            params.put("target", "bundle " + filter.bundleId());
        }
        if (filter.from() != null) {
            where.append(" and at >= :from");
            params.put("from", filter.from());
        }
        if (filter.to() != null) {
            where.append(" and at < :to");
            params.put("to", filter.to());
        }
        var query = AuditEvent.<AuditEvent>find(where.toString(), Sort.descending("at", "id"), params);
        long total = query.count();
        List<Entry> items = query.page(Page.of(page, size)).list().stream()
                .map(e -> new Entry(e.id, e.at, e.actor, e.action, e.target, e.detail)).toList();
        return new Entries(items, page, size, total);
    }

    /** The actors and actions in the trail, for the filter's choices (at most 500 of each). */
    public record Choices(List<String> actors, List<String> actions) {}

    @Transactional
    public Choices choices() {
        var em = AuditEvent.getEntityManager();
        return new Choices(
                em.createQuery("select distinct e.actor from AuditEvent e order by e.actor", String.class).setMaxResults(500).getResultList(),
                em.createQuery("select distinct e.action from AuditEvent e order by e.action", String.class).setMaxResults(500).getResultList());
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
