package dev.crashlab.bench;

import dev.crashlab.crashes.CrashFacets;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashQuery;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import java.io.PrintWriter;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The peer of {@code scripts/bench crashes} at team scale: the same synthetic bundles stored in PostgreSQL (one row per
 * bundle: its facet values and signature terms as GIN-indexed arrays, its text as a GIN-indexed {@code tsvector}), and
 * the three requests a team's UI makes, each run both ways in the same process:
 * <ul>
 *   <li>a search with a word and three facet filters, with the facet counts over all matches ({@code GROUP BY} over the
 *       matches' facet values) and the top 20;
 *   <li>a group page: count, first and last seen, the settings' counts inside the group and over all bundles (what the
 *       correlations are computed from), and the newest 50 bundles;
 *   <li>similar crashes: the bundles sharing a specific term, scored by the idf-weighted share of terms (df from a
 *       table built once, untimed, as the in-process peer gets it).
 * </ul>
 * Plain JDBC; no Quarkus.
 */
final class PgPeer {

    private final PrintWriter out;
    private final String url;

    PgPeer(PrintWriter out, String url) {
        this.out = out;
        this.url = url;
    }

    // facet values as stored in PostgreSQL: text cannot hold NUL, so dim:value
    private static List<String> facets(CrashSignature s) {
        return CrashFacets.values(s, false).stream().map(v -> v.replace('\0', ':')).toList();
    }

    void run(CrashIndex index, List<CrashSignature> sigs, long[] uploaded, long heap, long indexDisk, double buildSeconds, int queries,
            Random rnd)
            throws SQLException {
        int n = sigs.size();
        try (Connection c = DriverManager.getConnection(url)) {
            String version;
            try (Statement st = c.createStatement()) {
                st.execute("drop table if exists bench_crash");
                st.execute("drop table if exists bench_df");
                st.execute("create table bench_crash (id bigint primary key, uploaded_at bigint not null, group_key text,"
                        + " facets text[] not null, terms text[] not null, doc text not null,"
                        + " tsv tsvector generated always as (to_tsvector('simple', doc)) stored)");
                try (ResultSet r = st.executeQuery("select version()")) {
                    r.next();
                    version = r.getString(1);
                }
            }
            // --- build: insert every bundle, then the indexes (the fastest way to fill a table), timed together
            long t0 = System.nanoTime();
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement(
                    "insert into bench_crash (id, uploaded_at, group_key, facets, terms, doc) values (?, ?, ?, ?, ?, ?)")) {
                for (int i = 0; i < n; i++) {
                    CrashSignature s = sigs.get(i);
                    ins.setLong(1, i + 1);
                    ins.setLong(2, uploaded[i]);
                    ins.setString(3, s.groupKey());
                    ins.setArray(4, c.createArrayOf("text", facets(s).toArray()));
                    ins.setArray(5, c.createArrayOf("text", s.terms().stream().map(SignatureTerm::key).toArray()));
                    StringBuilder doc = new StringBuilder();
                    s.terms().forEach(t -> doc.append(t.label()).append('\n'));
                    ins.setString(6, doc.append(s.text()).toString().replace('\0', ' '));
                    ins.addBatch();
                    if (i % 1000 == 999) {
                        ins.executeBatch();
                    }
                }
                ins.executeBatch();
            }
            c.commit();
            try (Statement st = c.createStatement()) {
                st.execute("create index bench_crash_facets on bench_crash using gin (facets)");
                st.execute("create index bench_crash_terms on bench_crash using gin (terms)");
                st.execute("create index bench_crash_tsv on bench_crash using gin (tsv)");
                st.execute("create index bench_crash_group on bench_crash (group_key, uploaded_at)");
                st.execute("create index bench_crash_uploaded on bench_crash (uploaded_at)");
                st.execute("analyze bench_crash");
            }
            c.commit();
            double pgSeconds = (System.nanoTime() - t0) / 1e9;
            long disk;
            try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("select pg_total_relation_size('bench_crash')")) {
                r.next();
                disk = r.getLong(1);
            }
            // the df table of the similar-crash peer: built once, untimed
            try (Statement st = c.createStatement()) {
                st.execute("create table bench_df as select k, count(*)::int df from bench_crash, unnest(terms) k group by k");
                st.execute("alter table bench_df add primary key (k)");
                st.execute("analyze bench_df");
            }
            c.commit();

            // --- the queries, drawn from random bundles so each matches at least that bundle
            List<String> ourSearch = new ArrayList<>();
            List<Object[]> theirSearch = new ArrayList<>();
            List<String> groups = new ArrayList<>();
            List<Integer> similar = new ArrayList<>();
            while (ourSearch.size() < queries) {
                int i = rnd.nextInt(n);
                CrashSignature s = sigs.get(i);
                List<String> fs = new ArrayList<>(CrashFacets.values(s, false).stream()
                        .filter(v -> !v.startsWith("group\0") && !v.startsWith("confirmed\0")).toList());
                String word = word(s, rnd);
                if (fs.size() < 3 || word == null) {
                    continue;
                }
                java.util.Collections.shuffle(fs, rnd);
                List<String> three = fs.subList(0, 3);
                StringBuilder q = new StringBuilder(word);
                three.forEach(v -> q.append(' ').append(CrashFacets.filter(v.substring(0, v.indexOf('\0')), v.substring(v.indexOf('\0') + 1))));
                ourSearch.add(q.toString());
                theirSearch.add(new Object[] {word, three.stream().map(v -> v.replace('\0', ':')).toArray(String[]::new)});
                if (s.groupKey() != null) {
                    groups.add(s.groupKey());
                } else {
                    groups.add(sigs.get(rnd.nextInt(n)).groupKey());
                }
                similar.add(i + 1);
            }
            groups.replaceAll(g -> g == null ? "000000000000" : g);

            PreparedStatement searchHits = c.prepareStatement("select id from bench_crash where tsv @@ plainto_tsquery('simple', ?)"
                    + " and facets @> ? order by ts_rank(tsv, plainto_tsquery('simple', ?)) desc, uploaded_at desc limit 20");
            PreparedStatement searchFacets = c.prepareStatement("select f, count(*) from bench_crash, unnest(facets) f"
                    + " where tsv @@ plainto_tsquery('simple', ?) and facets @> ? group by f");
            PreparedStatement groupHead = c.prepareStatement("select count(*), min(uploaded_at), max(uploaded_at) from bench_crash"
                    + " where group_key = ?");
            PreparedStatement groupFacets = c.prepareStatement("select f, count(*) from bench_crash, unnest(facets) f"
                    + " where group_key = ? group by f");
            PreparedStatement allFacets = c.prepareStatement("select f, count(*) from bench_crash, unnest(facets) f group by f");
            PreparedStatement groupRows = c.prepareStatement("select id from bench_crash where group_key = ?"
                    + " order by uploaded_at desc limit 50");
            PreparedStatement similarQ = c.prepareStatement(
                    "with me as (select terms from bench_crash where id = ?),"
                    + " w as (select d.k, ln(1 + (?::float8 - d.df + 0.5) / (d.df + 0.5)) w from me, unnest(me.terms) t(k)"
                    + "   join bench_df d on d.k = t.k),"
                    + " total as (select sum(w) t from w),"
                    + " cand as (select b.id, b.terms from bench_crash b, me where b.terms && ?::text[] and b.id <> ? limit 10000)"
                    + " select cand.id, least(1.0, sum(w.w) / (select t from total)) s from cand, unnest(cand.terms) t(k)"
                    + "   join w on w.k = t.k group by cand.id order by s desc, cand.id limit 5");

            List<Long> ours1 = new ArrayList<>();
            List<Long> theirs1 = new ArrayList<>();
            List<Long> ours2 = new ArrayList<>();
            List<Long> theirs2 = new ArrayList<>();
            List<Long> ours3 = new ArrayList<>();
            List<Long> theirs3 = new ArrayList<>();
            int sameTotals = 0;
            int warm = Math.min(50, queries);
            for (int q = -warm; q < queries; q++) {
                int k = q < 0 ? q + warm : q;
                Object[] ts = theirSearch.get(k);
                long a = System.nanoTime();
                CrashIndex.Result r = index.query(CrashQuery.parse(ourSearch.get(k)), 0, 20, 8);
                long b = System.nanoTime();
                long pgTotal = pgSearch(c, searchHits, searchFacets, (String) ts[0], (String[]) ts[1]);
                long d = System.nanoTime();
                groupPage(index, groups.get(k));
                long e = System.nanoTime();
                pgGroup(groupHead, groupFacets, allFacets, groupRows, groups.get(k));
                long f = System.nanoTime();
                index.similar(similar.get(k), 5);
                long g = System.nanoTime();
                pgSimilar(c, similarQ, sigs.get(similar.get(k) - 1), similar.get(k), n);
                long h = System.nanoTime();
                if (q >= 0) {
                    ours1.add(b - a);
                    theirs1.add(d - b);
                    ours2.add(e - d);
                    theirs2.add(f - e);
                    ours3.add(g - f);
                    theirs3.add(h - g);
                    if (r.total() == pgTotal) {
                        sameTotals++;
                    }
                }
            }
            c.rollback();

            out.printf(Locale.ROOT, "%nat team scale, next to PostgreSQL (%s) over the same %,d bundles, %d queries each%n",
                    version.split(",")[0], n, queries);
            out.printf(Locale.ROOT, "%-62s %14s %14s%n", "", "CrashIndex", "PostgreSQL");
            out.printf(Locale.ROOT, "%-62s %14s %14s%n", "build (bundles/s)", String.format(Locale.ROOT, "%,.0f", n / buildSeconds),
                    String.format(Locale.ROOT, "%,.0f", n / pgSeconds));
            out.printf(Locale.ROOT, "%-62s %14s %14s%n", "heap per bundle (KiB; the index's own bytes included)",
                    String.format(Locale.ROOT, "%.2f", heap / 1024.0 / n), "server-side");
            out.printf(Locale.ROOT, "%-62s %14s %14s%n", "disk per bundle (KiB; table, TOAST and indexes for PostgreSQL)",
                    String.format(Locale.ROOT, "%.2f", indexDisk / 1024.0 / n), String.format(Locale.ROOT, "%.2f", disk / 1024.0 / n));
            out.printf(Locale.ROOT, "%-62s %9s %9s %9s %9s %9s%n", "request", "p50 ms", "p99 ms", "peer p50", "peer p99", "speed-up");
            row("search: a word + three facet filters, facet counts, top 20", ours1, theirs1);
            row("group page: count, first/last, settings in group and overall, 50", ours2, theirs2);
            row("similar crashes: top 5 by idf-weighted shared terms", ours3, theirs3);
            out.printf(Locale.ROOT, "searches with the same number of matches both ways: %d of %d (the analysers differ: LogAnalyzer"
                    + " splits compounds, PostgreSQL's 'simple' configuration does not)%n", sameTotals, queries);
            out.printf(Locale.ROOT, "(speed-up: PostgreSQL's p50 over ours; above 1 means ours is faster)%n");
            out.flush();
            try (Statement st = c.createStatement()) {
                st.execute("drop table bench_crash");
                st.execute("drop table bench_df");
            }
            c.commit();
        }
    }

    // a lower-case word of the signature's text that both analysers keep whole: letters only, 4 to 20 of them
    private static String word(CrashSignature s, Random rnd) {
        List<String> words = new ArrayList<>();
        for (String w : s.text().split("[^A-Za-z]+")) {
            if (w.length() >= 4 && w.length() <= 20) {
                words.add(w.toLowerCase(Locale.ROOT));
            }
        }
        return words.isEmpty() ? null : words.get(rnd.nextInt(words.size()));
    }

    private static long pgSearch(Connection c, PreparedStatement hits, PreparedStatement facets, String word, String[] filters)
            throws SQLException {
        Array arr = c.createArrayOf("text", filters);
        hits.setString(1, word);
        hits.setArray(2, arr);
        hits.setString(3, word);
        try (ResultSet r = hits.executeQuery()) {
            while (r.next()) {
                r.getLong(1);
            }
        }
        facets.setString(1, word);
        facets.setArray(2, arr);
        long total = 0;
        Map<String, Long> counts = new HashMap<>();
        try (ResultSet r = facets.executeQuery()) {
            while (r.next()) {
                counts.put(r.getString(1), r.getLong(2));
                if (r.getString(1).startsWith("confirmed:")) {
                    total += r.getLong(2);
                }
            }
        }
        return total;
    }

    // what CrashGroupService.group asks of the index
    private static void groupPage(CrashIndex index, String key) {
        CrashQuery.Parsed q = CrashQuery.parse("group:" + key);
        long[] acc = {0, Long.MAX_VALUE, Long.MIN_VALUE};
        index.scan(q, (id, at, facets) -> {
            acc[0]++;
            acc[1] = Math.min(acc[1], at);
            acc[2] = Math.max(acc[2], at);
        });
        index.counts(q);
        index.counts(null);
        index.query(q, 0, 50, 0, false);
    }

    private static void pgGroup(PreparedStatement head, PreparedStatement inGroup, PreparedStatement all, PreparedStatement rows,
                                String key) throws SQLException {
        head.setString(1, key);
        drain(head);
        inGroup.setString(1, key);
        drain(inGroup);
        drain(all);
        rows.setString(1, key);
        drain(rows);
    }

    private static void pgSimilar(Connection c, PreparedStatement q, CrashSignature s, long id, int n) throws SQLException {
        q.setLong(1, id);
        q.setDouble(2, n);
        q.setArray(3, c.createArrayOf("text", s.terms().stream().filter(SignatureTerm::specific).map(SignatureTerm::key).toArray()));
        q.setLong(4, id);
        drain(q);
    }

    private static void drain(PreparedStatement st) throws SQLException {
        try (ResultSet r = st.executeQuery()) {
            while (r.next()) {
                r.getObject(1);
            }
        }
    }

    private void row(String what, List<Long> ours, List<Long> theirs) {
        double p50 = BenchStats.percentileMillis(ours, 50);
        double peer50 = BenchStats.percentileMillis(theirs, 50);
        out.printf(Locale.ROOT, "%-62s %9.3f %9.3f %9.3f %9.3f %9.1f%n", what, p50, BenchStats.percentileMillis(ours, 99), peer50,
                BenchStats.percentileMillis(theirs, 99), peer50 / p50);
    }
}
