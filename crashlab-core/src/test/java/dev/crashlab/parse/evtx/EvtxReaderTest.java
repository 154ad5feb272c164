package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.crashlab.parse.evtx.EvtxTestWriter.Event;
import dev.crashlab.parse.evtx.EvtxTestWriter.Value;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads files written by {@link EvtxTestWriter}: whole, and truncated, bit-flipped or with a chunk wiped. */
class EvtxReaderTest {

    /** 2024-06-13T10:00:00Z as a FILETIME. */
    static final long T0 = (1_718_272_800L + 11_644_473_600L) * 10_000_000L;

    @TempDir
    Path dir;

    /** What one read of a file gave. */
    record Read(List<EvtxRecord> records, List<EvtxProblem> problems) {
        long lost() {
            return problems.stream().filter(p -> p.kind().lost()).count();
        }
    }

    Read read(byte[] bytes) throws IOException {
        Path f = Files.write(dir.resolve("t-" + System.nanoTime() + ".evtx"), bytes);
        List<EvtxRecord> records = new ArrayList<>();
        List<EvtxProblem> problems = new ArrayList<>();
        try (EvtxReader r = EvtxReader.open(f, problems::add)) {
            r.forEachRemaining(records::add);
        } finally {
            Files.delete(f);
        }
        return new Read(records, problems);
    }

    static Event event(int i) {
        Map<String, Value> data = new LinkedHashMap<>();
        if (i % 3 == 0) {
            data.put("AppName", Value.string("python.exe"));
            data.put("ExceptionCode", Value.hex32(0xc0000409L));
            data.put("FaultingOffset", Value.hex64(0x1e2bL + i));
            data.put("ProcessId", Value.sizeT(0x1a2c));
            data.put("Elapsed", Value.real64(1.5));
            data.put("Ok", Value.bool(i % 2 == 0));
        } else {
            data.put("Count", Value.int32(-i));
            data.put("Big", Value.uint64(-1L));
            data.put("Small", Value.uint32(0xffffffffL));
            data.put("Blob", Value.binary(new byte[] {1, 2, (byte) 0xab}));
            data.put("When", Value.fileTime(T0));
            data.put("Names", Value.stringArray("first", "second"));
        }
        return new Event(1000L + i, i % 3 == 0 ? "Application Error" : "Test-Provider", i % 3 == 0 ? 1000 : 7, 2 + i % 3,
                T0 + i * 10_000_000L, "Application", "HOST-" + (i % 5),
                Value.sid(5, 21, 1004336348L, 1177238915L, 682003330L, 512), data);
    }

    static byte[] file(int events, int perChunk) {
        EvtxTestWriter w = new EvtxTestWriter(perChunk);
        for (int i = 0; i < events; i++) {
            w.add(event(i));
        }
        return w.build();
    }

    @Test
    void readsEveryRecordOfAWrittenFileWithItsFieldsAndValues() throws IOException {
        Read r = read(file(250, 80));
        assertThat(r.problems).isEmpty();
        assertThat(r.records).hasSize(250);
        assertThat(r.records).extracting(EvtxRecord::recordId).startsWith(1000L, 1001L, 1002L).endsWith(1249L);
        assertThat(r.records).extracting(EvtxRecord::chunk).contains(0, 1, 2, 3);
        EvtxRecord fault = r.records.get(3);
        assertThat(fault.provider()).isEqualTo("Application Error");
        assertThat(fault.providerGuid()).isEqualTo("{54849625-5478-4994-A5BA-3E3B0328C30D}");
        assertThat(fault.eventId()).isEqualTo(1000);
        assertThat(fault.qualifiers()).isNull();
        assertThat(fault.level()).isEqualTo(2);
        assertThat(fault.levelName()).isEqualTo("Error");
        assertThat(fault.task()).isEqualTo(100);
        assertThat(fault.keywords()).isEqualTo("0x8000000000000000");
        assertThat(fault.timeCreated()).isEqualTo("2024-06-13T10:00:03.0000000Z");
        assertThat(fault.writtenTime()).isEqualTo(fault.timeCreated());
        assertThat(fault.channel()).isEqualTo("Application");
        assertThat(fault.computer()).isEqualTo("HOST-3");
        assertThat(fault.userSid()).isEqualTo("S-1-5-21-1004336348-1177238915-682003330-512");
        assertThat(fault.fileRecordNumber()).isEqualTo(4);
        assertThat(fault.data()).containsExactly(Map.entry("AppName", "python.exe"), Map.entry("ExceptionCode", "0xc0000409"),
                Map.entry("FaultingOffset", "0x1e2e"), Map.entry("ProcessId", "0x1a2c"), Map.entry("Elapsed", "1.5"),
                Map.entry("Ok", "false"));
        EvtxRecord other = r.records.get(4);
        assertThat(other.data()).containsExactly(Map.entry("Count", "-4"), Map.entry("Big", "18446744073709551615"),
                Map.entry("Small", "4294967295"), Map.entry("Blob", "0102AB"), Map.entry("When", "2024-06-13T10:00:00.0000000Z"),
                Map.entry("Names", "first"), Map.entry("Names2", "second"));
        // the optional, absent Qualifiers attribute is dropped; the array repeats its <Data>
        assertThat(other.xml()).contains("<EventID>7</EventID>", "<Data Name=\"Names\">first</Data><Data Name=\"Names\">second</Data>");
        assertThat(r.records).allSatisfy(rec -> assertThat(EvtxCorpusTest.wellFormed(rec.xml())).isTrue());
    }

    @Test
    void anUnpairedSurrogateBecomesAReplacementCharacterAndAProblem() throws IOException {
        Map<String, Value> data = new LinkedHashMap<>();
        byte[] broken = {0x41, 0, 0x00, (byte) 0xd8, 0x42, 0}; // "A", a lone high surrogate, "B"
        data.put("FRUText", new Value(BinXmlValueType.STRING, broken));
        byte[] f = new EvtxTestWriter(10).add(new Event(7, "Microsoft-Windows-WHEA-Logger", 17, 3, T0, "System", "PC", null, data)).build();
        Read r = read(f);
        assertThat(r.records).singleElement().satisfies(rec -> {
            assertThat(rec.data()).containsEntry("FRUText", "A\uFFFDB");
            assertThat(EvtxCorpusTest.wellFormed(rec.xml())).isTrue();
        });
        assertThat(r.problems).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(EvtxProblem.Kind.RECORD_DAMAGED);
            assertThat(p.message()).contains("chunk 0, record 1", "surrogate");
        });
    }

    @Test
    void aWipedChunkCostsItsRecordsOnlyAndIsReported() throws IOException {
        byte[] f = file(200, 50);
        java.util.Arrays.fill(f, 4096 + 65536, 4096 + 2 * 65536, (byte) 0);
        Read r = read(f);
        assertThat(r.records).hasSize(150);
        assertThat(r.problems).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(EvtxProblem.Kind.CHUNK_EMPTY);
            assertThat(p.chunk()).isEqualTo(1);
        });
    }

    @Test
    void aBadChunkSignatureCostsThatChunk() throws IOException {
        byte[] f = file(200, 50);
        f[4096 + 2 * 65536] = 'X';
        Read r = read(f);
        assertThat(r.records).hasSize(150);
        assertThat(r.problems).anySatisfy(p -> assertThat(p.kind()).isEqualTo(EvtxProblem.Kind.CHUNK_LOST));
    }

    @Test
    void aBadRecordCostsThatRecordOnlyAndTheChecksumsSaySo() throws IOException {
        byte[] f = file(60, 60);
        // the 10th record's size field: zero it (as in a real log), its neighbours must survive
        int off = 4096 + 512;
        for (int i = 0; i < 9; i++) {
            off += f[off + 4] & 0xff | (f[off + 5] & 0xff) << 8;
        }
        f[off + 4] = 0;
        f[off + 5] = 0;
        Read r = read(f);
        assertThat(r.records).hasSize(59);
        assertThat(r.problems).anySatisfy(p -> assertThat(p.kind()).isEqualTo(EvtxProblem.Kind.CHUNK_CHECKSUM));
        assertThat(r.problems).filteredOn(p -> p.kind().lost()).singleElement()
                .satisfies(p -> assertThat(p.message()).contains("record 10", "size 0"));
    }

    @Test
    void truncatedAndBitFlippedFilesEndInProblemsNeverInAnExceptionOrAHang() {
        long seed = System.nanoTime();
        System.out.println("EvtxReaderTest corruption seed: " + seed);
        Random rnd = new Random(seed);
        byte[] clean = file(120, 40);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            for (int i = 0; i < 150; i++) {
                byte[] f;
                String what;
                if (i % 3 == 0) {
                    int cut = rnd.nextInt(clean.length);
                    f = java.util.Arrays.copyOf(clean, cut);
                    what = "truncated at " + cut;
                } else {
                    f = clean.clone();
                    int flips = 1 + rnd.nextInt(20);
                    for (int k = 0; k < flips; k++) {
                        // mostly inside the used part of the chunks, where the structure is
                        int chunk = rnd.nextInt(3);
                        f[4096 + chunk * 65536 + rnd.nextInt(12000)] ^= (byte) (1 << rnd.nextInt(8));
                    }
                    what = flips + " flipped bytes";
                }
                Read r = read(f);
                if (r.records.size() < 120) {
                    assertThat(r.problems).as("seed %d, case %d (%s): %d records and no problem", seed, i, what, r.records.size())
                            .isNotEmpty();
                }
                for (EvtxRecord rec : r.records) {
                    assertThat(EvtxCorpusTest.wellFormed(rec.xml())).as("seed %d case %d", seed, i).isTrue();
                }
            }
        });
    }

    @Test
    void garbageAndEmptyFilesAreProblemsNotExceptions() throws IOException {
        assertThat(read(new byte[0]).problems).isNotEmpty();
        assertThat(read("not an event log at all".getBytes()).problems).isNotEmpty();
        byte[] noise = new byte[200_000];
        new Random(1).nextBytes(noise);
        Read r = read(noise);
        assertThat(r.records).isEmpty();
        assertThat(r.problems).hasSize(1);
    }
}
