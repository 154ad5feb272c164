package dev.crashlab.parse.winevent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WerReport;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.fact.WindowsEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Typed facts from named data, positional data, and message text in English, German, French and Chinese. */
class WindowsEventTypingTest {

    private static final List<SourceRef> AT = List.of(new SourceRef("events.txt", 3, "Event ID: 1000"));

    private static WindowsEvent event(String provider, Integer id, Map<String, String> data, String message) {
        return new WindowsEvent(provider, id, null, "Error", null, null, null, null, data, message, AT);
    }

    private static Map<String, String> data(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static Map<String, String> unnamed(String... values) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            m.put("Data" + (i + 1), values[i]);
        }
        return m;
    }

    @Test
    void applicationErrorFromNamedData() {
        var e = event("Application Error", 1000, data("AppName", "trainer.exe", "AppVersion", "1.2.3.4",
                "AppTimeStamp", "5f000000", "ModuleName", "cudnn_ops64_9.dll", "ModuleVersion", "9.1.0.70",
                "ModuleTimeStamp", "66000000", "ExceptionCode", "C0000409", "FaultingOffset", "00000000000ABCDE",
                "ProcessId", "0x1F40", "ProcessCreationTime", "0x1", "AppPath", "C:\\tools\\trainer.exe",
                "ModulePath", "C:\\tools\\cudnn_ops64_9.dll", "IntegratorReportId", "ABCDEF01-2345-6789-ABCD-EF0123456789"),
                null);
        assertThat(WindowsEventTyping.typed(e)).containsExactly(new ApplicationFault("crash", "trainer.exe", "1.2.3.4",
                "C:\\tools\\trainer.exe", "cudnn_ops64_9.dll", "9.1.0.70", "C:\\tools\\cudnn_ops64_9.dll", "0xc0000409",
                "0x00000000000abcde", 8000L, "abcdef01-2345-6789-abcd-ef0123456789", AT));
    }

    @Test
    void applicationErrorFromUnnamedDataInPositionalOrder() {
        var e = event("Application Error", 1000, unnamed("trainer.exe", "1.0.0.0", "5f", "nvcuda64.dll", "31.0.15.1",
                "6a", "c0000005", "0000000000001234", "0x10", "0x1", "D:\\a\\trainer.exe", "C:\\Windows\\nvcuda64.dll",
                "11111111-2222-3333-4444-555555555555", "", ""), null);
        ApplicationFault f = (ApplicationFault) WindowsEventTyping.typed(e).get(0);
        assertThat(f.module()).isEqualTo("nvcuda64.dll");
        assertThat(f.exceptionCode()).isEqualTo("0xc0000005");
        assertThat(f.processId()).isEqualTo(16L);
        assertThat(f.modulePath()).isEqualTo("C:\\Windows\\nvcuda64.dll");
    }

    @Test
    void unnamedDataStaysPositionalBesideTheBinaryBlobRealRecordsCarry() {
        // real .evtx records of Application Error 1000, Application Hang 1002 and WER 1001 end in <Binary/>
        Map<String, String> crash = unnamed("python.exe", "3.10.11150.1013", "642d", "cudnn_cnn_infer64_8.dll", "8.9.2.26",
                "6a", "c0000409", "0000000000001234", "2a0", "0x1", "C:\\py\\python.exe", "C:\\cuda\\cudnn_cnn_infer64_8.dll",
                "11111111-2222-3333-4444-555555555555", "", "");
        crash.put("Binary", "");
        ApplicationFault f = (ApplicationFault) WindowsEventTyping.typed(event("Application Error", 1000, crash, null)).get(0);
        assertThat(f.application()).isEqualTo("python.exe");
        assertThat(f.module()).isEqualTo("cudnn_cnn_infer64_8.dll");
        assertThat(f.exceptionCode()).isEqualTo("0xc0000409");

        Map<String, String> hang = unnamed("python.exe", "3.10.0", "2408", "01d9", "4294967295", "C:\\py\\python.exe",
                "8a9080b3-0857-407b-99e2-1b2b3494c5b6", "", "", "Cross-process");
        hang.put("Binary", "430072006F00");
        ApplicationFault h = (ApplicationFault) WindowsEventTyping.typed(event("Application Hang", 1002, hang, null)).get(0);
        assertThat(h.event()).isEqualTo("hang");
        assertThat(h.processId()).isEqualTo(0x2408L);
        assertThat(h.reportId()).isEqualTo("8a9080b3-0857-407b-99e2-1b2b3494c5b6");

        Map<String, String> wer = unnamed("", "0", "APPCRASH", "Not available", "0", "python.exe", "3.10", "5f", "nvcuda64.dll",
                "31.0", "6a", "c0000005", "00001234", "", "");
        wer.put("Binary", "");
        WerReport w = (WerReport) WindowsEventTyping.typed(event("Windows Error Reporting", 1001, wer, null)).get(0);
        assertThat(w.eventName()).isEqualTo("APPCRASH");
        assertThat(w.application()).isEqualTo("python.exe");

        // a named record with a Binary element is still read by name
        Map<String, String> named = data("AppName", "trainer.exe", "ExceptionCode", "c0000005", "Binary", "");
        assertThat(((ApplicationFault) WindowsEventTyping.typed(event("Application Error", 1000, named, null)).get(0))
                .application()).isEqualTo("trainer.exe");
    }

    @Test
    void applicationErrorFromGermanChineseAndFrenchMessages() {
        String german = """
                Fehlerhafter Anwendungsname: trainer.exe, Version: 2.0.0.0, Zeitstempel: 0x12345678
                Fehlerhafter Modulname: ucrtbase.dll, Version: 10.0.1.1, Zeitstempel: 0x87654321
                Ausnahmecode: 0xC0000409
                Fehleroffset: 0x000000000007286e
                Fehlerhafte Prozess-ID: 0x2a
                Fehlerhafter Anwendungspfad: C:\\\\apps\\\\trainer.exe
                Berichts-ID: 0a0b0c0d-0000-1111-2222-333333333333
                """;
        String chinese = """
                错误应用程序名称: trainer.exe，版本: 2.0.0.0，时间戳: 0x12345678
                错误模块名称: ucrtbase.dll，版本: 10.0.1.1，时间戳: 0x87654321
                异常代码: 0xc0000409
                错误偏移量: 0x000000000007286e
                """;
        String french = """
                Nom de l’application défaillante : trainer.exe, version : 2.0.0.0, horodatage : 0x12345678
                Nom du module défaillant : ucrtbase.dll, version : 10.0.1.1, horodatage : 0x87654321
                Code d’exception : 0xc0000409
                """;
        for (String message : List.of(german, chinese, french)) {
            ApplicationFault f = (ApplicationFault) WindowsEventTyping.typed(event("Application Error", 1000, Map.of(), message)).get(0);
            assertThat(f.application()).as(message).isEqualTo("trainer.exe");
            assertThat(f.applicationVersion()).as(message).isEqualTo("2.0.0.0");
            assertThat(f.module()).as(message).isEqualTo("ucrtbase.dll");
            assertThat(f.moduleVersion()).as(message).isEqualTo("10.0.1.1");
            assertThat(f.exceptionCode()).as(message).isEqualTo("0xc0000409");
        }
        ApplicationFault de = (ApplicationFault) WindowsEventTyping.typed(event("Application Error", 1000, Map.of(), german)).get(0);
        assertThat(de.applicationPath()).as("escaped backslashes undone").isEqualTo("C:\\apps\\trainer.exe");
        assertThat(de.processId()).isEqualTo(42L);
        assertThat(de.faultOffset()).isEqualTo("0x000000000007286e");
    }

    @Test
    void unresolvedInsertionStringsAreNull() {
        String m = "Faulting application name: svc.exe, version: 1.0, time stamp: 0x1\nException code: 0xe053534f\n"
                + "Faulting process id: 0x%9\nFaulting application path: %11\nReport Id: %13\n";
        ApplicationFault f = (ApplicationFault) WindowsEventTyping.typed(event("Application Error", 1000, Map.of(), m)).get(0);
        assertThat(f.processId()).isNull();
        assertThat(f.applicationPath()).isNull();
        assertThat(f.reportId()).isNull();
        assertThat(f.exceptionCode()).isEqualTo("0xe053534f");
    }

    @Test
    void werReportFromMessageAndFromUnnamedData() {
        String m = """
                Fault bucket 123456, type 5
                Event Name: BEX64
                Response: Not available
                Cab Id: 0

                Problem signature:
                P1: trainer.exe
                P2: 1.0.0.0
                P3: 5f
                P4: cudnn64_8.dll
                P5: 8.1.0.77
                P6: 6a
                P7: 000000000000aaaa
                P8: c0000409
                P9: 000000000000000a
                P10:\s

                Attached files:
                \\\\?\\C:\\ProgramData\\Microsoft\\Windows\\WER\\Temp\\WER1.tmp.dmp

                These files may be available here:
                Report Id: AAAAAAAA-0000-0000-0000-000000000001
                Hashed bucket: 0123abcd
                """;
        WerReport r = (WerReport) WindowsEventTyping.typed(event("Windows Error Reporting", 1001, Map.of(), m)).get(0);
        assertThat(r).isEqualTo(new WerReport("BEX64", "123456", 5, List.of("trainer.exe", "1.0.0.0", "5f", "cudnn64_8.dll",
                "8.1.0.77", "6a", "000000000000aaaa", "c0000409", "000000000000000a", ""), "trainer.exe", "0xc0000409",
                List.of("\\\\?\\C:\\ProgramData\\Microsoft\\Windows\\WER\\Temp\\WER1.tmp.dmp"),
                "aaaaaaaa-0000-0000-0000-000000000001", "0123abcd", AT));

        var unnamedData = unnamed("", "0", "APPCRASH", "Not available", "0", "app.exe", "1.0", "5f", "mod.dll", "2.0",
                "6a", "c0000005", "00001234", "", "", "C:\\x.dmp\nC:\\y.xml", "", "", "0", "bbbb-1", "4", "");
        WerReport u = (WerReport) WindowsEventTyping.typed(event("Windows Error Reporting", 1001, unnamedData, null)).get(0);
        assertThat(u.eventName()).isEqualTo("APPCRASH");
        assertThat(u.bucket()).isNull();
        assertThat(u.bucketType()).isZero();
        assertThat(u.exceptionCode()).isEqualTo("0xc0000005");
        assertThat(u.parameters()).hasSize(10).startsWith("app.exe");
        assertThat(u.attachedFiles()).containsExactly("C:\\x.dmp", "C:\\y.xml");
        assertThat(u.reportId()).isEqualTo("bbbb-1");
    }

    @Test
    void dotnetRuntimeNamesTheException() {
        String m = "Application: trainer.exe\nFramework Version: v4.0.30319\nDescription: The process was terminated due to"
                + " an unhandled exception.\nException Info: System.IO.FileNotFoundException\n   at A.B()\n";
        assertThat(WindowsEventTyping.typed(event(".NET Runtime", 1026, Map.of(), m))).containsExactly(
                new ApplicationFault("dotnet", "trainer.exe", null, null, "System.IO.FileNotFoundException", null, null,
                        null, null, null, null, AT));
        assertThat(WindowsEventTyping.typed(event(".NET Runtime", 1023, Map.of(), "nothing thrown here"))).isEmpty();
    }

    @Test
    void hangDisplayNvlddmkmKernelPowerBugCheckAndWhea() {
        String hang = "The program trainer.exe version 1.0.0.0 stopped interacting with Windows and was closed.\n"
                + "Process ID: 1a2c\nApplication Path: C:\\a\\trainer.exe\nReport Id: abc\n";
        ApplicationFault h = (ApplicationFault) WindowsEventTyping.typed(event("Application Hang", 1002, Map.of(), hang)).get(0);
        assertThat(h.event()).isEqualTo("hang");
        assertThat(h.processId()).isEqualTo(0x1a2cL);
        assertThat(h.applicationPath()).isEqualTo("C:\\a\\trainer.exe");

        assertThat(WindowsEventTyping.typed(event("Display", 4101, Map.of(),
                "Display driver nvlddmkm stopped responding and has successfully recovered."))).containsExactly(
                new DisplayDriverEvent("Display", 4101, "nvlddmkm", null, null, null, true, AT));

        assertThat(WindowsEventTyping.typed(event("nvlddmkm", 13, unnamed("\\Device\\Video1",
                "Graphics Exception: ESR 0x1=0x2", "Error occurred on GPUID: 2b00"), null))).containsExactly(
                new DisplayDriverEvent("nvlddmkm", 13, "nvlddmkm", "\\Device\\Video1", "2b00",
                        "Graphics Exception: ESR 0x1=0x2\nError occurred on GPUID: 2b00", null, AT));

        KernelPowerEvent k = (KernelPowerEvent) WindowsEventTyping.typed(event("Microsoft-Windows-Kernel-Power", 41,
                data("BugcheckCode", "278", "BugcheckParameter1", "0xFFFF1", "BugcheckParameter2", "0x0",
                        "BugcheckParameter3", "0x0", "BugcheckParameter4", "0x0", "SleepInProgress", "0",
                        "PowerButtonTimestamp", "0"), null)).get(0);
        assertThat(k).isEqualTo(new KernelPowerEvent("0x00000116", List.of("0xffff1", "0x0", "0x0", "0x0"), false, false, AT));

        Fact b = WindowsEventTyping.typed(event("Microsoft-Windows-WER-SystemErrorReporting", 1001, Map.of(),
                "The computer has rebooted from a bugcheck.  The bugcheck was: 0x00000116 (0xffffe0012, 0xfffff80, "
                        + "0x0000000000000000, 0x0000000000000002). A dump was saved in: C:\\Windows\\MEMORY.DMP. "
                        + "Report Id: 0611")).get(0);
        assertThat(b).isEqualTo(new BugCheckEvent("0x00000116", List.of("0xffffe0012", "0xfffff80", "0x0000000000000000",
                "0x0000000000000002"), "C:\\Windows\\MEMORY.DMP", "0611", AT));

        WheaEvent w = (WheaEvent) WindowsEventTyping.typed(event("Microsoft-Windows-WHEA-Logger", 17, Map.of(),
                "A corrected hardware error has occurred.\n\nComponent: PCI Express Root Port\nError Source: Advanced Error"
                        + " Reporting (PCI Express)\n\nPrimary Bus:Device:Function: 0x0:0x1:0x0\nPrimary Device Name:"
                        + "PCI\\VEN_10DE&DEV_0001")).get(0);
        assertThat(w).isEqualTo(new WheaEvent(17, "corrected", "PCI Express Root Port", "Advanced Error Reporting (PCI Express)",
                null, "0x0:0x1:0x0", "PCI\\VEN_10DE&DEV_0001", AT));
    }

    @Test
    void evidenceLocatorPointsAtTheExceptionCodeLine() {
        SourceRef line = new SourceRef("events.txt", 14, "Exception code: 0xc0000409");
        var e = event("Application Error", 1000, Map.of(), "Faulting application name: a.exe, version: 1, time stamp: 0x1\n"
                + "Exception code: 0xc0000409\n");
        List<Fact> typed = WindowsEventTyping.typed(e, needles -> List.of(needles).contains("Exception code") ? line : null);
        assertThat(typed.get(0).sources()).containsExactly(line);
    }
}
