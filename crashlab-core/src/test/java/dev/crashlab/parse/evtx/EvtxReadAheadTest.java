package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EvtxReader#openReadingAhead} (every other chunk decoded on a second thread) returns the same records and
 * reports the same problems, in the same order relative to each other, as {@link EvtxReader#open}: over every file of
 * {@code ../shared/corpus/evtx} and over damaged copies of four multi-chunk ones.
 */
class EvtxReadAheadTest {

    @TempDir
    Path dir;

    @Test
    void readingAheadReadsAndReportsWhatReadingInTurnDoes() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(EvtxCorpusTest.CORPUS), "../shared/corpus/evtx is absent");
        int files = 0;
        int multiChunk = 0;
        long records = 0;
        for (String name : EvtxCorpusTest.files()) {
            Path file = EvtxCorpusTest.CORPUS.resolve(name + ".evtx");
            List<String> inTurn = events(file, false);
            assertThat(events(file, true)).as(name).isEqualTo(inTurn);
            files++;
            records += inTurn.stream().filter(e -> e.startsWith("record ")).count();
            byte[] bytes = Files.readAllBytes(file);
            if (bytes.length <= 4096 + 2 * 65536 || multiChunk == 4) {
                continue; // damaged copies of four multi-chunk files: enough for every path, and the test stays short
            }
            multiChunk++;
            // damage: bytes flipped at random (a fixed seed) across the chunks, and one chunk slot zeroed
            Random rnd = new Random(name.hashCode());
            for (int i = 0; i < 40; i++) {
                bytes[4096 + rnd.nextInt(bytes.length - 4096)] ^= (byte) (1 + rnd.nextInt(255));
            }
            java.util.Arrays.fill(bytes, 4096 + 65536, 4096 + 2 * 65536, (byte) 0);
            Path damaged = Files.write(dir.resolve(name + "-damaged.evtx"), bytes);
            List<String> damagedInTurn = events(damaged, false);
            assertThat(damagedInTurn.stream().filter(e -> e.startsWith("problem ")).count()).as(name).isPositive();
            assertThat(events(damaged, true)).as(name + " damaged").isEqualTo(damagedInTurn);
        }
        assertThat(files).isEqualTo(28);
        assertThat(multiChunk).isEqualTo(4);
        assertThat(records).isGreaterThan(30_000);
    }

    // every record (its fields and XML) and problem, in the order the reader gave them
    private static List<String> events(Path file, boolean ahead) throws IOException {
        List<String> out = new ArrayList<>();
        Consumer<EvtxProblem> problems = p -> out.add("problem " + p);
        try (EvtxReader r = ahead ? EvtxReader.openReadingAhead(file, problems) : EvtxReader.open(file, problems)) {
            while (r.hasNext()) {
                EvtxRecord rec = r.next();
                out.add("record " + rec.recordId() + " " + rec.fileRecordNumber() + " " + rec.chunk() + " " + rec.fileOffset()
                        + " " + rec.writtenTime() + " " + rec.data() + " " + rec.xml());
            }
            out.add("chunks read " + r.chunksRead() + ", problems " + r.problemCounts());
        }
        return out;
    }
}
