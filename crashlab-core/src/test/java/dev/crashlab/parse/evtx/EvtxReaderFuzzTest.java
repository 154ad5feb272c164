package dev.crashlab.parse.evtx;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes the EVTX reader (through its parser) with arbitrary bytes: it must return records and problems,
 * never throw or hang.
 *
 * <p>Every build runs it in regression mode over {@code EvtxReaderFuzzTestInputs/read/} in a JVM of its own
 * (the pom's {@code fuzz-regression} execution); the seeds are cut-down files of {@link EvtxTestWriter}.
 * Fuzz for real with {@code JAZZER_FUZZ=1 scripts/mvn test -Dtest=EvtxReaderFuzzTest}.
 */
class EvtxReaderFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void read(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new EvtxParser(), ArtifactType.EVTX, data);
    }
}
