package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Finding one record and its neighbours, and reading only the chunks that may hold them. */
class EvtxRecordWindowTest {

    static final long FIRST = 62_700;
    static final int COUNT = 200;

    static Optional<EvtxRecordWindow> near(byte[] log, long record, int neighbours, List<EvtxProblem> problems) throws IOException {
        try (EvtxReader r = EvtxReader.openNear(new ByteArrayInputStream(log), log.length, record - neighbours,
                record + neighbours, problems::add)) {
            Optional<EvtxRecordWindow> w = EvtxRecordWindow.find(r, record, neighbours);
            // 200 records, 20 to a chunk: at most the two chunks around the record are parsed, not ten (none when
            // no chunk's header holds it)
            assertThat(r.chunksRead()).isBetween(w.isPresent() ? 1 : 0, 2);
            return w;
        }
    }

    @Test
    void theRecordWithItsNeighboursFromTheChunksAroundIt() throws IOException {
        byte[] log = EvtxSystemLogFixture.bytes(FIRST, COUNT);
        long power = EvtxSystemLogFixture.kernelPowerRecord(FIRST, COUNT);
        List<EvtxProblem> problems = new ArrayList<>();
        EvtxRecordWindow w = near(log, power, 3, problems).orElseThrow();
        assertThat(w.record().recordId()).isEqualTo(power);
        assertThat(w.record().provider()).isEqualTo("Microsoft-Windows-Kernel-Power");
        assertThat(w.record().eventId()).isEqualTo(41);
        assertThat(w.record().data()).containsEntry("BugcheckCode", "0");
        assertThat(w.record().xml()).contains("<EventRecordID>" + power + "</EventRecordID>");
        assertThat(w.before()).extracting(EvtxRecord::recordId).containsExactly(power - 3, power - 2, power - 1);
        assertThat(w.after()).extracting(EvtxRecord::recordId).containsExactly(power + 1, power + 2, power + 3);
        assertThat(problems).isEmpty();
    }

    @Test
    void neighboursCrossAChunkBoundary() throws IOException {
        // 62 720 is the first record of the second chunk: its predecessors are in the first
        EvtxRecordWindow w = near(EvtxSystemLogFixture.bytes(FIRST, COUNT), FIRST + 20, 2, new ArrayList<>()).orElseThrow();
        assertThat(w.before()).extracting(EvtxRecord::recordId).containsExactly(FIRST + 18, FIRST + 19);
        assertThat(w.after()).extracting(EvtxRecord::recordId).containsExactly(FIRST + 21, FIRST + 22);
    }

    @Test
    void theFirstAndLastRecordsHaveNeighboursOnOneSideOnly() throws IOException {
        byte[] log = EvtxSystemLogFixture.bytes(FIRST, COUNT);
        EvtxRecordWindow first = near(log, FIRST, 3, new ArrayList<>()).orElseThrow();
        assertThat(first.before()).isEmpty();
        assertThat(first.after()).hasSize(3);
        EvtxRecordWindow last = near(log, FIRST + COUNT - 1, 3, new ArrayList<>()).orElseThrow();
        assertThat(last.after()).isEmpty();
        assertThat(last.before()).hasSize(3);
    }

    @Test
    void aRecordThatIsNotThereIsNotFound() throws IOException {
        assertThat(near(EvtxSystemLogFixture.bytes(FIRST, COUNT), FIRST + COUNT + 5, 3, new ArrayList<>())).isEmpty();
    }

    @Test
    void anExportedLogsRecordIdsAreFoundByReadingEveryChunk() throws IOException {
        // the contract fixture's EventRecordIDs (5120, 5121) are not its chunk header's numbers (1, 2): openNear
        // skips its one chunk, the whole-file reader finds the record
        byte[] log = EvtxContractFixture.bytes();
        try (EvtxReader r = EvtxReader.openNear(new ByteArrayInputStream(log), log.length, 5121, 5121, p -> {})) {
            assertThat(EvtxRecordWindow.find(r, 5121, 1)).isEmpty();
        }
        try (EvtxReader r = EvtxReader.open(new ByteArrayInputStream(log), log.length, p -> {})) {
            EvtxRecordWindow w = EvtxRecordWindow.find(r, 5121, 1).orElseThrow();
            assertThat(w.record().provider()).isEqualTo("Test-Service");
            assertThat(w.before()).extracting(EvtxRecord::recordId).containsExactly(5120L);
            assertThat(w.after()).isEmpty();
        }
    }
}
