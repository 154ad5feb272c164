package dev.crashlab.parse.winevent;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.crashlab.parse.ParserFuzzing;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;

/**
 * Fuzzes each event-log parser with arbitrary bytes: it must return facts or problems, and never throw.
 *
 * <p>Every build runs it in regression mode over {@code WindowsEventParsersFuzzTestInputs/<method>/} in a JVM of
 * its own (the pom's {@code fuzz-regression} execution). Fuzz for real with
 * {@code JAZZER_FUZZ=1 scripts/mvn test -Dtest=WindowsEventParsersFuzzTest}.
 */
class WindowsEventParsersFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void text(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new WindowsEventTextParser(), ArtifactType.EVENTLOG_TEXT, data);
    }

    @FuzzTest(maxDuration = "2m")
    void tab(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new WindowsEventTabParser(), ArtifactType.EVENTLOG_TEXT, data);
    }

    @FuzzTest(maxDuration = "2m")
    void xml(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new WindowsEventXmlParser(), ArtifactType.EVENTLOG_XML, data);
    }

    @FuzzTest(maxDuration = "2m")
    void csv(byte[] data) throws IOException {
        ParserFuzzing.parseBytes(new WindowsEventCsvParser(), ArtifactType.EVENTLOG_CSV, data);
    }
}
