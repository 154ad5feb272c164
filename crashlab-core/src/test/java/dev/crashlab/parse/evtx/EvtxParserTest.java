package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge from records to facts, on the contract fixture {@link EvtxContractFixture} ({@code app-crash.evtx}),
 * which {@link EvtxTestWriter} writes into a temporary folder at test time; its golden facts are committed.
 */
class EvtxParserTest {

    @TempDir
    static Path dir;
    static Path FIXTURE;

    @BeforeAll
    static void write() throws IOException {
        FIXTURE = EvtxContractFixture.write(dir);
    }

    @Test
    void theWrittenFixtureIsAnEvtxFile() throws IOException {
        assertThat(Files.readAllBytes(FIXTURE)).isEqualTo(EvtxContractFixture.bytes());
        assertThat(new ArtifactSniffer().sniff("app-crash.evtx", FIXTURE)).isEqualTo(ArtifactType.EVTX);
    }
    @Test
    void recordsBecomeWindowsEventsAndTypedFacts() throws IOException {
        ParseResult r = Parsers.parse(new ParseInput("logs/Application.evtx", ArtifactType.EVTX, FIXTURE));
        assertThat(r.problems()).isEmpty();
        assertThat(r.facts()).filteredOn(WindowsEvent.class::isInstance).hasSize(2);
        WindowsEvent crash = (WindowsEvent) r.facts().stream().filter(WindowsEvent.class::isInstance).findFirst().orElseThrow();
        assertThat(crash.provider()).isEqualTo("Application Error");
        assertThat(crash.eventId()).isEqualTo(1000);
        assertThat(crash.level()).isEqualTo("Error");
        assertThat(crash.time()).isEqualTo("2024-06-13T10:00:00.0000000Z");
        assertThat(crash.recordId()).isEqualTo(5120L);
        assertThat(crash.message()).isNull();
        assertThat(crash.data()).containsEntry("ExceptionCode", "0xc0000409").containsEntry("ModuleName", "ucrtbase.dll");
        assertThat(crash.sources()).singleElement().satisfies(s -> {
            assertThat(s.artifact()).isEqualTo("logs/Application.evtx");
            assertThat(s.line()).isEqualTo(5120L);
            assertThat(s.text()).contains("Application Error 1000", "ExceptionCode=0xc0000409");
        });
        assertThat(r.facts()).filteredOn(ApplicationFault.class::isInstance).hasSize(1);
    }

    @Test
    void goldenFacts() throws IOException {
        GoldenFiles.check(new EvtxParser(), ArtifactType.EVTX, FIXTURE, EvtxContractFixture.GOLDEN);
    }
}
