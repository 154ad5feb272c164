package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.Facts;
import dev.crashlab.parse.evtx.EvtxContractFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code crashlab evtx FILE [--format xml|jsonl] [--problems]} on the contract fixture, written at test time. */
class EvtxCommandTest {

    @TempDir
    static Path fixtureDir;
    static Path FIXTURE;

    @TempDir
    Path dir;

    @BeforeAll
    static void write() throws java.io.IOException {
        FIXTURE = EvtxContractFixture.write(fixtureDir);
    }

    @Test
    void jsonlHasOneObjectPerRecordWithTheAgreedKeys() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("evtx", "--format", "jsonl", FIXTURE.toString());
        assertThat(r.status()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(2);
        var first = Facts.json().readTree(lines[0]);
        assertThat(first.path("record_id").asLong()).isEqualTo(5120);
        assertThat(first.path("time").asText()).isEqualTo("2024-06-13T10:00:00.0000000Z");
        assertThat(first.path("provider").asText()).isEqualTo("Application Error");
        assertThat(first.path("event_id").asInt()).isEqualTo(1000);
        assertThat(first.path("level").asText()).isEqualTo("Error");
        assertThat(first.path("channel").asText()).isEqualTo("Application");
        assertThat(first.path("computer").asText()).isEqualTo("GPU-BOX");
        assertThat(first.path("data").path("ExceptionCode").asText()).isEqualTo("0xc0000409");
        assertThat(Facts.json().readTree(lines[1]).path("user_sid").asText()).isEqualTo("S-1-5-18");
    }

    @Test
    void xmlIsOneWellFormedDocument() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("evtx", FIXTURE.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("<?xml").contains("<EventID>1000</EventID>").endsWith("</Events>\n");
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(r.out().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void problemsGoToStderrOnlyWhenAskedAndAMissingFileIsStatus2() throws Exception {
        byte[] f = Files.readAllBytes(FIXTURE);
        f[4096 + 600] ^= 0x55; // inside the first record: a checksum problem at least
        Path broken = Files.write(dir.resolve("broken.evtx"), f);
        CrashLabCliTest.Run quiet = CrashLabCliTest.run("evtx", "--format", "jsonl", broken.toString());
        assertThat(quiet.status()).isZero();
        assertThat(quiet.err()).contains("problem(s)", "--problems");
        CrashLabCliTest.Run loud = CrashLabCliTest.run("evtx", "--problems", "--format", "jsonl", broken.toString());
        assertThat(loud.err()).contains("chunk 0", "CRC32");
        assertThat(CrashLabCliTest.run("evtx", dir.resolve("none.evtx").toString()).status()).isEqualTo(2);
        Path text = Files.writeString(dir.resolve("x.evtx"), "hello");
        assertThat(CrashLabCliTest.run("evtx", text.toString()).status()).isEqualTo(1);
    }

    @Test
    void severalFilesAndFoldersAreReadInOneRunAndEachRecordNamesItsFile() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("logs/nested"));
        Path a = Files.copy(FIXTURE, dir.resolve("logs/a.evtx"));
        Path b = Files.copy(FIXTURE, logs.resolve("b--copy.EVTX"));
        Files.writeString(dir.resolve("logs/readme.txt"), "not an event log");
        CrashLabCliTest.Run r = CrashLabCliTest.run("evtx", "--format", "jsonl", dir.resolve("logs").toString(), FIXTURE.toString());
        assertThat(r.status()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(6);
        assertThat(Facts.json().readTree(lines[0]).path("file").asText()).isEqualTo(a.toString());
        assertThat(Facts.json().readTree(lines[2]).path("file").asText()).isEqualTo(b.toString());
        assertThat(Facts.json().readTree(lines[5]).path("file").asText()).isEqualTo(FIXTURE.toString());
        assertThat(Facts.json().readTree(lines[5]).path("record_id").asLong()).isEqualTo(5121);
        // one file alone: no file key, as before
        assertThat(CrashLabCliTest.run("evtx", "--format", "jsonl", a.toString()).out()).doesNotContain("\"file\"");

        CrashLabCliTest.Run xml = CrashLabCliTest.run("evtx", dir.resolve("logs").toString());
        assertThat(xml.status()).as(xml.err()).isZero();
        assertThat(xml.out()).contains("<!-- file: " + a + " -->").doesNotContain("b--copy");
        var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(xml.out().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getElementsByTagName("Event").getLength()).isEqualTo(4);
    }

    @Test
    void aMissingFileAmongOthersIsReportedAndTheRestIsStillRead() throws Exception {
        CrashLabCliTest.Run r = CrashLabCliTest.run("evtx", "--format", "jsonl", dir.resolve("gone.evtx").toString(), FIXTURE.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no such file", "gone.evtx");
        assertThat(r.out().split("\n")).hasSize(2);
        Files.createDirectories(dir.resolve("empty"));
        CrashLabCliTest.Run none = CrashLabCliTest.run("evtx", dir.resolve("empty").toString());
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).contains("no .evtx files");
        assertThat(none.out()).isEmpty();
    }

    /**
     * {@code main}'s fast path (no picocli) gives what picocli's parse gives for the arguments it takes, and leaves
     * every other argument list to picocli.
     */
    @Test
    void thePlainArgumentParseMatchesPicocliAndLeavesTheRestToIt() throws Exception {
        byte[] f = Files.readAllBytes(FIXTURE);
        f[4096 + 600] ^= 0x55;
        Path broken = Files.write(dir.resolve("broken.evtx"), f);
        Files.createDirectories(dir.resolve("logs"));
        Files.copy(FIXTURE, dir.resolve("logs/a.evtx"));
        String fx = FIXTURE.toString(), br = broken.toString(), logs = dir.resolve("logs").toString();
        String gone = dir.resolve("gone.evtx").toString();
        java.util.List<String[]> taken = java.util.List.of(
                new String[] {fx},
                new String[] {"--format", "jsonl", fx},
                new String[] {"--format=JSONL", br},
                new String[] {fx, "--format", "xml", br},
                new String[] {"--problems", "--format", "jsonl", br},
                new String[] {br, "--problems"},
                new String[] {logs, fx, gone},
                new String[] {gone},
                new String[] {"--format", "jsonl", dir.resolve("empty").toString()});
        Files.createDirectories(dir.resolve("empty"));
        for (String[] args : taken) {
            String[] full = new String[args.length + 1];
            full[0] = "evtx";
            System.arraycopy(args, 0, full, 1, args.length);
            CrashLabCliTest.Run viaPicocli = CrashLabCliTest.run(full);
            java.io.StringWriter out = new java.io.StringWriter(), err = new java.io.StringWriter();
            Integer status = EvtxCommand.runPlain(java.util.List.of(args), new java.io.PrintWriter(out, true),
                    new java.io.PrintWriter(err, true));
            assertThat(status).as(String.join(" ", args)).isNotNull();
            assertThat(new CrashLabCliTest.Run(status, out.toString(), err.toString()))
                    .as(String.join(" ", args)).isEqualTo(viaPicocli);
        }
        assertThat(CrashLabCliTest.run("evtx", "--format", "jsonl", fx).out()).isNotEmpty();
        java.util.List<String[]> left = java.util.List.of(
                new String[] {}, new String[] {"--help"}, new String[] {fx, "-h"}, new String[] {"--version"},
                new String[] {"--bench", "1", fx}, new String[] {"--format", "csv", fx}, new String[] {"--format"},
                new String[] {"--format", "xml", "--format", "jsonl", fx}, new String[] {"--problems", "--problems", fx},
                new String[] {"--formats", "xml", fx}, new String[] {"@args.txt"}, new String[] {"--", fx},
                new String[] {"-", fx}, new String[] {""}, new String[] {"--problems"}, new String[] {"a\0b"});
        for (String[] args : left) {
            java.io.StringWriter out = new java.io.StringWriter(), err = new java.io.StringWriter();
            assertThat(EvtxCommand.runPlain(java.util.List.of(args), new java.io.PrintWriter(out), new java.io.PrintWriter(err)))
                    .as(String.join(" ", args)).isNull();
            assertThat(out.toString() + err.toString()).isEmpty();
        }
    }
}
