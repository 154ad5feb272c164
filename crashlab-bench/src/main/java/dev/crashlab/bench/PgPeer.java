package dev.crashlab.bench;

import dev.crashlab.crashes.CrashFacets;
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
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The peer of {@code scripts/bench crashes} at team scale: the same synthetic bundles stored in PostgreSQL (one row per
 * bundle: its facet values and signature terms as GIN-indexed arrays, its text as a GIN-indexed {@code tsvector}), and
 * the requests a team's UI makes ({@link CrashesBenchCommand.Kind}), each done the PostgreSQL way:
 * <ul>
 *   <li>a search with a word and three facet filters: the top 20 by {@code ts_rank} and the facet counts over all
 *       matches ({@code GROUP BY} over the matches' facet values);
 *   <li>a facet value's bundles: the newest 20 and the facet counts over all of them;
 *   <li>the counts of every facet value over all bundles;
 *   <li>a group page: count, first and last seen, the settings' counts inside the group and over all bundles (what the
 *       correlations are computed from), and the newest 50 bundles;
 *   <li>similar crashes: the bundles sharing a specific term, scored by the idf-weighted share of terms (df from a
 *       table built once, untimed, as the in-process peer gets it).
 * </ul>
 * It works in a scratch database of its own, created by {@link #create} (named {@code crashlab_bench_<time>}) and
 * dropped by {@link #close}: it never creates or drops anything in the database it was pointed at. Plain JDBC; no
 * Quarkus.
 */
final class PgPeer implements AutoCloseable {

    private final PrintWriter out;
    private final String adminUrl;
    private final String database;
    private final Connection c;

    /** What storing one size cost: seconds (COPY, then the indexes) and bytes (table, TOAST, indexes). */
    record Loaded(double seconds, long bytes) {}

    /** Request times (nanoseconds) by kind, and how many searches matched as many bundles as ours. */
    record Measured(Map<CrashesBenchCommand.Kind, List<Long>> times, int sameTotals) {}

    private PgPeer(PrintWriter out, String adminUrl, String database, Connection c) {
        this.out = out;
        this.adminUrl = adminUrl;
        this.database = database;
        this.c = c;
    }

    /**
     * Creates a scratch database on the server {@code url} points at and connects to it. Only the server is taken from
     * {@code url}: the database named there is only connected to, to create the scratch one.
     */
    static PgPeer create(PrintWriter out, String url) throws SQLException {
        String database = "crashlab_bench_" + System.currentTimeMillis();
        try (Connection admin = DriverManager.getConnection(url); Statement st = admin.createStatement()) {
            st.execute("create database " + database);
        }
        String scratch = withDatabase(url, database);
        Connection c = DriverManager.getConnection(scratch);
        String version;
        try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("select version()")) {
            r.next();
            version = r.getString(1).split(",")[0];
        }
        out.printf(Locale.ROOT, "PostgreSQL peer: %s, in a scratch database %s created for this run%n", version, database);
        return new PgPeer(out, url, database, c);
    }

    // jdbc:postgresql://host:port/db?params -> the same with another database
    static String withDatabase(String url, String database) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(jdbc:postgresql://[^/?]+)/[^?]*(\\?.*)?$").matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host:port/database URL: " + url);
        }
        return m.group(1) + "/" + database + (m.group(2) == null ? "" : m.group(2));
    }

    /** Stores the bundles in a new table and indexes them, timed together. */
    Loaded load(List<CrashSignature> sigs, long[] uploaded) throws SQLException {
        int n = sigs.size();
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            st.execute("create table bench_crash (id bigint primary key, uploaded_at bigint not null, group_key text,"
                    + " facets text[] not null, terms text[] not null, doc text not null,"
                    + " tsv tsvector generated always as (to_tsvector('simple', doc)) stored)");
        }
        // --- build: COPY every bundle in, then the indexes (the fastest way to fill a table), timed together
        long t0 = System.nanoTime();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("set maintenance_work_mem = '512MB'"); // this session's index builds only
        }
        org.postgresql.copy.CopyManager copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
        org.postgresql.copy.CopyIn in = copy.copyIn("copy bench_crash (id, uploaded_at, group_key, facets, terms, doc) from stdin");
        try {
            StringBuilder rows = new StringBuilder();
            for (int i = 0; i < n; i++) {
                CrashSignature s = sigs.get(i);
                rows.append(i + 1).append('\t').append(uploaded[i]).append('\t');
                rows.append(s.groupKey() == null ? "\\N" : copyText(s.groupKey())).append('\t');
                rows.append(copyText(arrayLiteral(facets(s)))).append('\t');
                rows.append(copyText(arrayLiteral(s.terms().stream().map(SignatureTerm::key).toList()))).append('\t');
                StringBuilder doc = new StringBuilder();
                s.terms().forEach(t -> doc.append(t.label()).append('\n'));
                rows.append(copyText(doc.append(s.text()).toString().replace('\0', ' '))).append('\n');
                if (rows.length() > 1 << 20 || i == n - 1) {
                    byte[] bytes = rows.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    in.writeToCopy(bytes, 0, bytes.length);
                    rows.setLength(0);
                }
            }
            in.endCopy();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
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
        double seconds = (System.nanoTime() - t0) / 1e9;
        long bytes;
        try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("select pg_total_relation_size('bench_crash')")) {
            r.next();
            bytes = r.getLong(1);
        }
        // the df table of the similar-crash peer: built once, untimed
        try (Statement st = c.createStatement()) {
            st.execute("create table bench_df as select k, count(*)::int df from bench_crash, unnest(terms) k group by k");
            st.execute("alter table bench_df add primary key (k)");
            st.execute("analyze bench_df");
        }
        c.commit();
        return new Loaded(seconds, bytes);
    }

    // a value in COPY's text format: backslash, tab, newline and carriage return escaped
    static String copyText(String v) {
        StringBuilder sb = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            switch (ch) {
                case '\\' -> sb.append("\\\\");
                case '\t' -> sb.append("\\t");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                default -> sb.append(ch);
            }
        }
        return sb.toString();
    }

    // a text[] literal: every element double-quoted, with its quotes and backslashes escaped (NUL has no place in text)
    static String arrayLiteral(List<String> values) {
        StringBuilder sb = new StringBuilder("{");
        for (String v : values) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append('"');
            for (int i = 0; i < v.length(); i++) {
                char ch = v.charAt(i);
                if (ch == '"' || ch == '\\') {
                    sb.append('\\');
                }
                sb.append(ch == '\0' ? ' ' : ch);
            }
            sb.append('"');
        }
        return sb.append('}').toString();
    }

    /** Drops this size's tables (in the scratch database). */
    void drop() throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("drop table bench_crash");
            st.execute("drop table bench_df");
        }
        c.commit();
    }

    /** Runs each request kind {@code count} times (after 5 untimed), interleaved. */
    Measured measure(CrashesBenchCommand.Workload w, List<CrashSignature> sigs, int count) throws SQLException {
        int n = sigs.size();
        PreparedStatement searchHits = c.prepareStatement("select id from bench_crash where tsv @@ plainto_tsquery('simple', ?)"
                + " and facets @> ? order by ts_rank(tsv, plainto_tsquery('simple', ?)) desc, uploaded_at desc limit 20");
        PreparedStatement searchFacets = c.prepareStatement("select f, count(*) from bench_crash, unnest(facets) f"
                + " where tsv @@ plainto_tsquery('simple', ?) and facets @> ? group by f");
        PreparedStatement facetRows = c.prepareStatement("select id from bench_crash where facets @> ? order by uploaded_at desc limit 20");
        PreparedStatement facetCounts = c.prepareStatement("select f, count(*) from bench_crash, unnest(facets) f where facets @> ? group by f");
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
        Map<CrashesBenchCommand.Kind, List<Long>> times = new EnumMap<>(CrashesBenchCommand.Kind.class);
        int same = 0;
        int warm = Math.min(5, count);
        for (int q = -warm; q < count; q++) {
            int i = Math.floorMod(q, w.searches().size());
            for (CrashesBenchCommand.Kind k : CrashesBenchCommand.Kind.values()) {
                long a = System.nanoTime();
                switch (k) {
                    case SEARCH -> {
                        Object[] ts = w.pgSearches().get(i);
                        long total = search(searchHits, searchFacets, (String) ts[0], (String[]) ts[1]);
                        if (q >= 0 && total == w.searchTotals().get(i)) {
                            same++;
                        }
                    }
                    case FACETS -> {
                        Array arr = c.createArrayOf("text", new String[] {w.pgFacets().get(i)});
                        facetRows.setArray(1, arr);
                        drain(facetRows);
                        facetCounts.setArray(1, arr);
                        drain(facetCounts);
                    }
                    case FACETS_ALL -> drain(allFacets);
                    case GROUP -> {
                        String key = w.groups().get(i);
                        groupHead.setString(1, key);
                        drain(groupHead);
                        groupFacets.setString(1, key);
                        drain(groupFacets);
                        drain(allFacets);
                        groupRows.setString(1, key);
                        drain(groupRows);
                    }
                    case SIMILAR -> {
                        int id = w.similar().get(i);
                        similarQ.setLong(1, id);
                        similarQ.setDouble(2, n);
                        similarQ.setArray(3, c.createArrayOf("text", sigs.get(id - 1).terms().stream().filter(SignatureTerm::specific)
                                .map(SignatureTerm::key).toArray()));
                        similarQ.setLong(4, id);
                        drain(similarQ);
                    }
                    case TEXT -> {
                        continue; // its peer is the in-process substring scan
                    }
                }
                long b = System.nanoTime();
                if (q >= 0) {
                    times.computeIfAbsent(k, x -> new ArrayList<>()).add(b - a);
                }
            }
        }
        c.rollback();
        return new Measured(times, same);
    }

    // facet values as stored in PostgreSQL: text cannot hold NUL, so dim:value
    private static List<String> facets(CrashSignature s) {
        return CrashFacets.values(s, false).stream().map(v -> v.replace('\0', ':')).toList();
    }

    private long search(PreparedStatement hits, PreparedStatement facets, String word, String[] filters) throws SQLException {
        Array arr = c.createArrayOf("text", filters);
        hits.setString(1, word);
        hits.setArray(2, arr);
        hits.setString(3, word);
        drain(hits);
        facets.setString(1, word);
        facets.setArray(2, arr);
        long total = 0;
        try (ResultSet r = facets.executeQuery()) {
            while (r.next()) {
                if (r.getString(1).startsWith("confirmed:")) {
                    total += r.getLong(2);
                }
            }
        }
        return total;
    }

    private static void drain(PreparedStatement st) throws SQLException {
        try (ResultSet r = st.executeQuery()) {
            while (r.next()) {
                r.getObject(1);
            }
        }
    }

    /** Drops the scratch database this peer created (and nothing else). */
    @Override
    public void close() throws SQLException {
        c.close();
        try (Connection admin = DriverManager.getConnection(adminUrl); Statement st = admin.createStatement()) {
            st.execute("drop database if exists " + database);
        }
        out.printf(Locale.ROOT, "PostgreSQL peer: dropped the scratch database %s%n", database);
    }
}
