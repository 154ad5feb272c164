package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code index verify} offline: an index folder and a database (an in-memory H2 with the columns the server's schema
 * has) that differ by hand-made changes are reported bundle by bundle with exit status 1; once they agree, 0.
 */
class IndexVerifyCommandTest {

    @TempDir
    Path dir;

    private static CrashSignature sig(String lib) {
        return new CrashSignature(List.of(new SignatureTerm("lib:" + lib, "cannot load " + lib, true),
                new SignatureTerm("os:linux", "linux", false)), "OSError: " + lib + ": cannot open shared object file");
    }

    private static void row(Connection c, long id, CrashSignature s, long uploadedAt) throws Exception {
        try (PreparedStatement b = c.prepareStatement("insert into bundle (id, uploaded_at) values (?, ?)");
             PreparedStatement d = c.prepareStatement("insert into bundle_diagnosis (bundle_id, signature_json) values (?, ?)")) {
            b.setLong(1, id);
            b.setObject(2, OffsetDateTime.ofInstant(Instant.ofEpochMilli(uploadedAt), ZoneOffset.UTC));
            b.executeUpdate();
            d.setLong(1, id);
            d.setString(2, dev.crashlab.fact.Facts.json().writeValueAsString(s));
            d.executeUpdate();
        }
    }

    @Test
    void reportsWhatDiffersBetweenTheIndexAndTheDatabaseAndAgreementOnceFixed() throws Exception {
        long t = 1_790_000_000_000L;
        Path indexDir = dir.resolve("crash-index");
        try (CrashIndex index = CrashIndex.open(indexDir)) {
            index.put(new CrashIndex.Entry(1, sig("liba.so"), t, false));
            index.put(new CrashIndex.Entry(2, sig("libb.so"), t, false));
            index.put(new CrashIndex.Entry(3, sig("libc.so"), t, false));
            index.commit(java.util.Map.of());
        }
        String url = "jdbc:h2:mem:verify-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url, "crashlab", ""); Statement s = c.createStatement()) {
            s.execute("create table bundle (id bigint primary key, uploaded_at timestamp with time zone not null)");
            s.execute("create table bundle_diagnosis (bundle_id bigint primary key, signature_json varchar(65536))");
            s.execute("create table bundle_resolution (bundle_id bigint primary key)");
            row(c, 1, sig("liba.so"), t); // the same on both sides
            row(c, 2, sig("libb.so"), t - 86_400_000L); // its upload time changed by hand
            row(c, 4, sig("libd.so"), t); // inserted by hand: never indexed
            // 3: deleted by hand, still in the index

            CrashLabCliTest.Run r = CrashLabCliTest.run("index", "verify", "--index-dir", indexDir.toString(), "--db-url", url);
            assertThat(r.status()).as(r.out() + r.err()).isEqualTo(1);
            assertThat(r.out()).contains("database 3 bundle(s)", "index 3", "1 missing, 1 extra, 1 changed")
                    .contains("missing from the index: [4]", "in the index, not in the database: [3]", "changed: [2]");

            s.execute("delete from bundle_diagnosis where bundle_id in (2, 4)");
            s.execute("delete from bundle where id in (2, 4)");
            row(c, 2, sig("libb.so"), t);
            row(c, 3, sig("libc.so"), t);
            r = CrashLabCliTest.run("index", "verify", "--index-dir", indexDir.toString(), "--db-url", url);
            assertThat(r.status()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).contains("0 missing, 0 extra, 0 changed", "agrees");

            s.execute("insert into bundle_resolution (bundle_id) values (1)"); // a cause confirmed by hand
            r = CrashLabCliTest.run("index", "verify", "--index-dir", indexDir.toString(), "--db-url", url);
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.out()).contains("changed: [1]");
        }
    }
}
