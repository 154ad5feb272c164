package dev.crashlab.parse.evtx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.parse.evtx.EvtxTestWriter.Event;
import dev.crashlab.parse.evtx.EvtxTestWriter.Value;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bridge from records to facts, on the contract fixture {@code fixtures/evtx/app-crash.evtx}, which
 * {@link EvtxTestWriter} writes (this test checks the committed file is exactly what it writes).
 */
class EvtxParserTest {

    static final Path FIXTURE = GoldenFiles.FIXTURES.resolve("evtx/app-crash.evtx");

    /** An Application log: a Python crash with 0xc0000409 in ucrtbase.dll, a WER report, and a plain event. */
    static byte[] fixture() {
        EvtxTestWriter w = new EvtxTestWriter(10);
        Map<String, Value> crash = new LinkedHashMap<>();
        crash.put("AppName", Value.string("python.exe"));
        crash.put("AppVersion", Value.string("3.10.11150.1013"));
        crash.put("AppTimeStamp", Value.hex32(0x642cc427L));
        crash.put("ModuleName", Value.string("ucrtbase.dll"));
        crash.put("ModuleVersion", Value.string("10.0.22621.2506"));
        crash.put("ModuleTimeStamp", Value.hex32(0xf5fc15a3L));
        crash.put("ExceptionCode", Value.hex32(0xc0000409L));
        crash.put("FaultingOffset", Value.hex64(0x7f61eL));
        crash.put("ProcessId", Value.hex32(0x3a2cL));
        crash.put("AppPath", Value.string("C:\\Python310\\python.exe"));
        crash.put("ModulePath", Value.string("C:\\Windows\\System32\\ucrtbase.dll"));
        w.add(new Event(5120, "Application Error", 1000, 2, EvtxReaderTest.T0, "Application", "GPU-BOX", null, crash));
        Map<String, Value> plain = new LinkedHashMap<>();
        plain.put("Param1", Value.string("started"));
        plain.put("Count", Value.uint32(3));
        w.add(new Event(5121, "Test-Service", 7036, 4, EvtxReaderTest.T0 + 10_000_000L, "Application", "GPU-BOX",
                Value.sid(5, 18), plain));
        return w.build();
    }

    @Test
    void theCommittedFixtureIsWhatTheWriterWrites() throws IOException {
        byte[] expected = fixture();
        if (Boolean.getBoolean("crashlab.golden.update")) {
            Files.write(FIXTURE, expected);
        }
        assertThat(Files.readAllBytes(FIXTURE)).as("regenerate with -Dcrashlab.golden.update=true").isEqualTo(expected);
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
        GoldenFiles.check(new EvtxParser(), ArtifactType.EVTX, FIXTURE);
    }
}
