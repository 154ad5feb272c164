package dev.crashlab.crashes.service;

import dev.crashlab.crashes.CrashFacets;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashQuery;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.diagnose.service.ResolutionService;
import dev.crashlab.domain.DomainException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Groups of crashes (bundles whose group signatures are the same, {@link CrashSignature#groupKey()}), what
 * sets a group apart from all bundles (Socorro's correlations), crashes per day by cause, and confirming a cause for a
 * whole group. All of it is counted from the past-crash index's doc values: a group's numbers from the index's
 * per-segment group summaries ({@link CrashIndex#group}), the trends from a scan.
 */
@ApplicationScoped
public class CrashGroupService {

    /** Days a sparkline covers, ending today (UTC). */
    public static final int SPARK_DAYS = 30;
    /** The most groups listed. */
    static final int MAX_GROUPS = 200;

    @Inject
    CrashSearchService crashes;

    @Inject
    ResolutionService resolutions;

    /**
     * A group as the Groups page lists it.
     *
     * @param label what its crashes share: the parts of its signature, from the crashes' decisive lines
     * @param cause its most frequent likely or confirmed cause (id and title), or null
     * @param daily crashes per day over the last {@link #SPARK_DAYS} days, oldest first
     * @param signatureVersion the version of the signature rules that made the group ({@link CrashSignature#VERSION})
     * @param signature the signature's parts (exception and message, codes, libraries, events, exit status)
     * @param signatureNotes what each signature rule did for the group's newest crash
     */
    public record Group(String key, String label, long count, Instant firstSeen, Instant lastSeen,
                        @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String causeId,
                        @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String causeTitle, long confirmed, List<Integer> daily, int signatureVersion, List<String> signature,
                        List<String> signatureNotes) {}

    /**
     * One setting's value: its share inside the group and among all bundles.
     *
     * @param dimension driver, cuda, gpu, framework or os
     */
    public record Correlation(String dimension, String value, long inGroup, double groupShare, long overall, double overallShare,
                              String filter) {}

    /** A group's page: the group, its newest bundles and its correlations, largest differences first. */
    public record GroupPage(Group group, List<CrashSearchService.SearchHit> bundles, List<Correlation> correlations, long allBundles) {}

    // the trends' key for weak verdicts without a likely cause (no article id has a NUL)
    private static final String WEAK = "\0weak";

    /** Crashes per day by cause. */
    public record Trends(List<String> days, List<Series> series, long total) {}

    /** One cause's crashes per day (index-aligned with {@link Trends#days()}); id null for "no likely cause". */
    public record Series(String causeId, String title, List<Integer> counts, long total) {}

    // a group's numbers as the page shows them, from the index's group summaries (CrashIndex.GroupStats)
    private static final class Acc {
        final String key;
        long count;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long confirmed;
        long sample = -1;
        final Map<String, Long> causes = new HashMap<>();
        final int[] daily = new int[SPARK_DAYS];

        Acc(String key) {
            this.key = key;
        }
    }

    /** The groups with at least {@code minCount} crashes, largest first, then most recent. */
    public List<Group> groups(int minCount) {
        return crashes.indexForGroups().groups().stream().map(CrashGroupService::acc).filter(a -> a.count >= minCount)
                .sorted(Comparator.comparingLong((Acc a) -> a.count).reversed().thenComparing(a -> -a.last))
                .limit(MAX_GROUPS).map(this::group).toList();
    }

    /** A group's page; empty-handed (404) for a key no bundle has. */
    public GroupPage group(String key, int limit) {
        if (key == null || !key.matches("[0-9a-f]{12}")) {
            throw DomainException.notFound("no crash group '" + key + "' (a group is 12 hexadecimal digits)");
        }
        CrashIndex index = crashes.indexForGroups();
        CrashIndex.GroupStats stats = index.group(key);
        if (stats == null) {
            throw DomainException.notFound("no crash group '" + key + "': its crashes were deleted or changed");
        }
        Acc acc = acc(stats);
        Map<String, Long> inGroup = stats.facets();
        Map<String, Long> all = index.counts(null);
        long total = all.entrySet().stream().filter(e -> e.getKey().startsWith("confirmed\0")).mapToLong(Map.Entry::getValue).sum();
        List<Correlation> correlations = new ArrayList<>();
        for (String dim : CrashFacets.SETTINGS) {
            String prefix = dim + "\0";
            all.forEach((k, n) -> {
                if (k.startsWith(prefix)) {
                    long g = inGroup.getOrDefault(k, 0L);
                    String value = k.substring(prefix.length());
                    correlations.add(new Correlation(dim, value, g, (double) g / acc.count, n, total == 0 ? 0 : (double) n / total,
                            CrashFacets.filter(dim, value)));
                }
            });
        }
        correlations.sort(Comparator.comparingDouble((Correlation c) -> -Math.abs(c.groupShare() - c.overallShare()))
                .thenComparing(Correlation::dimension).thenComparing(Correlation::value));
        CrashSearchService.SearchPage page = crashes.search("group:" + key, 0, limit);
        return new GroupPage(group(acc), page.hits(), correlations.subList(0, Math.min(20, correlations.size())), total);
    }

    /** Confirms {@code articleId} as the cause of every bundle of the group; how many were confirmed. */
    public int confirm(String key, String articleId, String note) {
        group(key, 1); // 404 for an unknown group
        List<Long> ids = new ArrayList<>();
        crashes.indexForGroups().scan(CrashQuery.parse("group:" + key), (id, at, facets) -> ids.add(id));
        int n = 0;
        for (long id : ids) {
            if (resolutions.confirm(id, articleId, note).isPresent()) {
                n++;
            }
        }
        return n;
    }

    /** Crashes per day by cause over the last {@code days} days (UTC), of the bundles {@code q} matches (all if blank). */
    public Trends trends(String q, int days) {
        return trends(q, null, days);
    }

    /** {@link #trends(String, int)} for a caller ({@code uploader:me}: the bundles {@code caller} uploaded). */
    public Trends trends(String q, String caller, int days) {
        CrashQuery.Parsed parsed = q == null || q.isBlank() ? null : crashes.parse(q, caller);
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        LocalDate from = today.minusDays(days - 1L);
        long start = from.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        Map<String, int[]> byCause = new TreeMap<>();
        long[] total = {0};
        crashes.indexForGroups().scan(parsed, (id, at, facets) -> {
            if (at < start) {
                return;
            }
            int day = (int) ((at - start) / 86_400_000L);
            if (day >= days) {
                return;
            }
            // a weak verdict (never a confirmed one) is no cause's crash: it counts apart, and apart from crashes
            // with no likely cause at all
            String cause = facets.contains("verdict\0weak") ? WEAK
                    : facets.stream().filter(f -> f.startsWith("cause\0")).map(f -> f.substring(6)).findFirst().orElse("");
            byCause.computeIfAbsent(cause, c -> new int[days])[day]++;
            total[0]++;
        });
        List<String> labels = new ArrayList<>();
        for (int d = 0; d < days; d++) {
            labels.add(from.plusDays(d).toString());
        }
        List<Series> series = new ArrayList<>();
        byCause.forEach((cause, counts) -> {
            List<Integer> list = new ArrayList<>();
            long sum = 0;
            for (int c : counts) {
                list.add(c);
                sum += c;
            }
            series.add(new Series(cause.isEmpty() || cause.equals(WEAK) ? null : cause,
                    cause.isEmpty() ? "No likely cause" : cause.equals(WEAK) ? "Weak evidence (no single cause)" : crashes.causeTitle(cause),
                    list, sum));
        });
        series.sort(Comparator.comparingLong(Series::total).reversed());
        return new Trends(labels, series, total[0]);
    }

    // the numbers of a group's page from its summary: a confirmed cause outweighs any number of likely ones
    private static Acc acc(CrashIndex.GroupStats g) {
        Acc a = new Acc(g.key());
        a.count = g.count();
        a.first = g.firstSeen();
        a.last = g.lastSeen();
        a.sample = g.newest();
        a.confirmed = g.confirmed();
        g.causes().forEach((cause, n) -> a.causes.put(cause, n.bundles() - n.confirmed() + 1_000_000L * n.confirmed()));
        long start = LocalDate.now(ZoneOffset.UTC).minusDays(SPARK_DAYS - 1L).toEpochDay();
        g.days().subMap(start, start + SPARK_DAYS).forEach((day, n) -> a.daily[(int) (day - start)] = (int) (long) n);
        return a;
    }

    private Group group(Acc a) {
        CrashSignature s = a.sample < 0 ? null : crashes.indexForGroups().signature(a.sample);
        String cause = a.causes.entrySet().stream().max(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey(
                Comparator.reverseOrder()))).map(Map.Entry::getKey).orElse(null);
        List<Integer> daily = new ArrayList<>();
        for (int d : a.daily) {
            daily.add(d);
        }
        return new Group(a.key, s == null ? a.key : s.groupLabel(), a.count, Instant.ofEpochMilli(a.first), Instant.ofEpochMilli(a.last),
                cause, cause == null ? null : crashes.causeTitle(cause), a.confirmed, daily, s == null ? CrashSignature.VERSION : s.version(),
                s == null ? List.of() : s.group(), s == null ? List.of() : s.notes());
    }
}
