package dev.crashlab.parse.evtx;

import dev.crashlab.parse.evtx.EvtxTestWriter.Event;
import dev.crashlab.parse.evtx.EvtxTestWriter.Value;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The EVTX contract fixture, {@code app-crash.evtx}: an Application log with a Python crash (0xc0000409 in
 * ucrtbase.dll) and a plain service event, written by {@link EvtxTestWriter} at test time into a temporary folder
 * (no .evtx file is tracked). Its golden facts stay in {@link #GOLDEN}.
 */
public final class EvtxContractFixture {

    /** The file name the fixture is written under (the golden facts name it as their artifact). */
    public static final String NAME = "app-crash.evtx";
    /** The golden facts of the fixture, beside the other parsers' goldens. */
    public static final Path GOLDEN = Path.of("crashlab-core/src/test/resources/fixtures/evtx/" + NAME + ".facts.json");

    private EvtxContractFixture() {}

    /** The fixture's bytes. */
    public static byte[] bytes() {
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

    /** Writes the fixture as {@code dir/app-crash.evtx} and returns its path. */
    public static Path write(Path dir) throws IOException {
        return Files.write(dir.resolve(NAME), bytes());
    }
}
