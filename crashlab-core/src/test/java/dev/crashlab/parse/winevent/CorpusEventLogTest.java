package dev.crashlab.parse.winevent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.WerReport;
import dev.crashlab.fact.WindowsEvent;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.sniff.ArtifactSniffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs the sniffer and the registered parsers over every real event export in
 * {@code ../shared/corpus/eventlog-text}: nothing may fail, every Application Error / WER / nvlddmkm / Display
 * text must yield its typed facts, and each file's typed values must be the ones its text shows (the table
 * below, read from the files by hand; paths are checked by their ends so no user or host name is copied here).
 *
 * <p>The quirks each file exercises: {@code svchost} details indented by two spaces with {@code LogName:} and a
 * {@code ---} separator; {@code w3wp} a blog's HTML wrapper with {@code &nbsp;}, tag-stripped Event Xml and
 * unresolved {@code %11} insertion strings; {@code aw-qt} markdown fences and bold headings; {@code python36}
 * doubled backslashes; {@code radare2} a prompt line and a stray line before {@code Event[2]}; {@code zh-CN}
 * Chinese labels and full-width commas; {@code de-DE} German labels wrapped at 64 columns mid-word and mid-path,
 * without event ids; {@code wrapped-lines} Format-List wrapped at the console width; {@code dpmexception}
 * details indented by four spaces with unnamed {@code <Data>}; {@code blockquoted} {@code > } quotes with prose
 * between events; {@code fr-FR} single-quoted XML on one line with French RenderingInfo; the tab-delimited export
 * repeats its header per row and lost its closing quotes.
 */
class CorpusEventLogTest {

    private static final Path CORPUS = Path.of("../shared/corpus/eventlog-text");

    private static final Map<String, Consumer<List<Fact>>> EXPECTED = new LinkedHashMap<>();

    static {
        EXPECTED.put("app-error-1000_mirror-exe-ucrtbase-0xc0000409_dokan-dotnet-issue252.txt", f -> {
            ApplicationFault a = crash(f, "mirror.exe", "0.0.0.0", "ucrtbase.dll", "10.0.18362.387", "0xc0000409");
            assertThat(a.faultOffset()).isEqualTo("0x000000000006c4c8");
            assertThat(a.processId()).isEqualTo(0x984L);
            assertThat(a.reportId()).isEqualTo("64a8cfde-aee4-447d-885d-8270d72b7df7");
            assertThat(a.modulePath()).endsWith("\\System32\\ucrtbase.dll");
        });
        EXPECTED.put("app-error-1000_plus-wer-1001-bex64_svchost-termservice-0xc0000409.txt", f -> {
            crash(f, "svchost.exe_TermService", "10.0.17763.3346", "ntdll.dll", "10.0.17763.4377", "0xc0000409");
            WerReport w = wer(f, "BEX64", "1350231146951001754", 5, "svchost.exe_TermService", "0xc0000409");
            assertThat(w.parameters()).hasSize(10).element(7).isEqualTo("c0000409");
            assertThat(w.attachedFiles()).hasSize(5);
            assertThat(w.reportId()).isEqualTo("fb2d158e-d657-4d70-a671-3f13ed872676");
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2023-06-02T17:30:02", "2023-06-02T17:30:08");
            assertThat(events(f)).extracting(WindowsEvent::level).containsExactly("Error", "Information");
        });
        EXPECTED.put("app-error-1000_plus-wer-1001_aw-qt-python35dll_activitywatch-issue256.txt", f -> {
            ApplicationFault a = crash(f, "aw-qt.exe", "0.0.0.0", "python35.dll", "3.5.4150.1013", "0xc0000005");
            assertThat(a.faultOffset()).isEqualTo("0x000c3397");
            wer(f, "APPCRASH", "1197611272464088796", 1, "aw-qt.exe", "0xc0000005");
        });
        EXPECTED.put("app-error-1000_plus-wer-1001_python37-otree.txt", f -> {
            ApplicationFault a = crash(f, "python.exe", "3.7.150.1013", "python37.dll", "3.7.150.1013", "0xc0000005");
            assertThat(a.faultOffset()).isEqualTo("0x000000000002a8fb");
            WerReport w = wer(f, "APPCRASH", "1565749660316999997", 4, "python.exe", "0xc0000005");
            assertThat(w.attachedFiles()).hasSize(5);
            assertThat(w.reportId()).isEqualTo(a.reportId()).isEqualTo("a5dded9f-409f-4118-9d8b-fe41a36119cb");
            assertThat(w.hashedBucket()).isEqualTo("fdbfa3e49012c12245baa9053662213d");
        });
        EXPECTED.put("app-error-1000_plus-wer-1001_w3wp-exchange2010_html-degraded.txt", f -> {
            ApplicationFault a = crash(f, "w3wp.exe", "7.5.7600.16385", "KERNELBASE.dll", "6.1.7600.16385", "0xe053534f");
            assertThat(a.faultOffset()).isEqualTo("0x000000000000aa7d");
            assertThat(a.processId()).as("0x%%9 is unresolved").isNull();
            assertThat(a.applicationPath()).as("%%11 is unresolved").isNull();
            assertThat(a.reportId()).isNull();
            WerReport w = wer(f, "APPCRASH", null, 0, "w3wp.exe", "0xe053534f");
            assertThat(w.reportId()).isEqualTo("7031214d-218f-11e0-8593-00505697272d");
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2011-01-16T11:41:17", "2011-01-16T11:41:18");
        });
        EXPECTED.put("app-error-1000_python-amdhip64_eventviewer-details-with-xml.txt", f -> {
            ApplicationFault a = crash(f, "python.exe", "3.12.10150.1013", "amdhip64_7.dll", "10.0.3581.0", "0xc0000005");
            assertThat(a.faultOffset()).isEqualTo("0x00000000002ab8ba");
            assertThat(a.processId()).isEqualTo(0x3560L);
            assertThat(a.modulePath()).endsWith("\\_rocm_sdk_core\\bin\\amdhip64_7.dll");
            WindowsEvent e = events(f).get(0);
            assertThat(e.time()).as("the Event Xml's SystemTime, in UTC").isEqualTo("2026-01-22T01:01:56.180636400Z");
            assertThat(e.recordId()).isEqualTo(5007L);
            assertThat(e.data()).containsEntry("ExceptionCode", "c0000005").containsEntry("PackageFullName", "");
            assertThat(e.data().keySet()).startsWith("AppName", "AppVersion", "AppTimeStamp");
            assertThat(a.sources().get(0).text()).isEqualTo("Exception code: 0xc0000005");
            assertThat(a.sources().get(0).line()).isEqualTo(13);
        });
        EXPECTED.put("app-error-1000_python36-ucrtbase_wevtutil-format-text_cpython-issue74094_escaped.txt", f -> {
            ApplicationFault a = crash(f, "python.exe", "3.6.1150.1013", "ucrtbase.dll", "10.0.14393.0", "0xc0000005");
            assertThat(a.applicationPath()).as("doubled backslashes undone").isEqualTo("C:\\Python36\\python.exe");
            assertThat(events(f).get(0).time()).isEqualTo("2017-03-26T01:46:20.23");
        });
        EXPECTED.put("app-error-1000_radare2-0xc0000409_wevtutil-qe-text.txt", f -> {
            ApplicationFault a = crash(f, "radare2.exe", "0.0.0.0", "ucrtbased.dll", "10.0.26100.1", "0xc0000409");
            assertThat(a.processId()).isEqualTo(0x48E0L);
            assertThat(events(f)).singleElement().extracting(WindowsEvent::time).isEqualTo("2025-11-11T11:44:42.951Z");
        });
        EXPECTED.put("app-error-1000_zh-CN_pyinstaller-exe-ucrtbase-0xc0000409_pyinstaller-issue8603.txt", f -> {
            ApplicationFault a = crash(f, "mini-tool.exe", "0.0.0.0", "ucrtbase.dll", "10.0.18362.387", "0xc0000409");
            assertThat(a.faultOffset()).isEqualTo("0x000000000006c4c8");
            assertThat(a.processId()).isEqualTo(0x3178L);
            assertThat(a.reportId()).isEqualTo("e4c9ce1e-a7d3-4cea-b7cf-7fae51973256");
            assertThat(a.sources().get(0).text()).isEqualTo("异常代码: 0xc0000409");
        });
        EXPECTED.put("dotnet-runtime-1000_eventviewer-details-blockquoted.txt", f -> {
            assertThat(faults(f)).singleElement().satisfies(a -> {
                assertThat(a.event()).isEqualTo("dotnet");
                assertThat(a.module()).isEqualTo("System.Exception");
            });
            assertThat(events(f)).singleElement().satisfies(e -> {
                assertThat(e.provider()).isEqualTo(".NET Runtime");
                assertThat(e.eventId()).isEqualTo(1000);
                assertThat(e.time()).isEqualTo("2024-09-19T22:13:09");
            });
        });
        EXPECTED.put("eventviewer-savecsv_security_head5.csv", f -> {
            assertThat(events(f)).extracting(WindowsEvent::eventId).containsExactly(4658, 4656);
            assertThat(events(f)).extracting(e -> e.sources().size()).containsExactly(3, 2);
            assertThat(events(f)).allSatisfy(e -> {
                assertThat(e.provider()).isEqualTo("Microsoft-Windows-Security-Auditing");
                assertThat(e.time()).isEqualTo("2016-10-07T18:38:24");
                assertThat(e.level()).isEqualTo("Information");
            });
        });
        EXPECTED.put("eventviewer-savetext-tabdelimited_sysmon-1-11_redacted.txt", f -> {
            assertThat(events(f)).extracting(WindowsEvent::eventId).containsExactly(1, 11);
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2020-04-16T15:47:36", "2020-09-28T15:47:36");
            assertThat(events(f).get(0).message()).startsWith("Process Create:\nRuleName:");
            assertThat(events(f).get(1).message()).startsWith("File created:");
        });
        EXPECTED.put("eventviewer-savexml_fr-FR_dns-4013_with-renderinginfo.xml", f -> {
            assertThat(events(f)).singleElement().satisfies(e -> {
                assertThat(e.provider()).isEqualTo("Microsoft-Windows-DNS-Server-Service");
                assertThat(e.eventId()).isEqualTo(4013);
                assertThat(e.level()).isEqualTo("Warning");
                assertThat(e.time()).isEqualTo("2025-02-19T13:25:02.656043900Z");
                assertThat(e.recordId()).isEqualTo(183L);
                assertThat(e.channel()).isEqualTo("DNS Server");
                assertThat(e.data()).isEmpty();
                assertThat(e.message()).startsWith("Le serveur DNS attend");
            });
        });
        EXPECTED.put("getwinevent-custom-msg_de-DE_wer-1001-clr20r3_app-error-1000_dotnet-1026.txt", f -> {
            WerReport w = wer(f, "CLR20r3", null, 0, "IFCnative.NativeWindows.exe", null);
            assertThat(w.parameters()).containsExactly("IFCnative.NativeWindows.exe", "1.0.0.0", "69f20000",
                    "Avalonia.OpenGL", "11.3.11.0", "afe1f372", "19d", "d3", "Avalonia.OpenGL.OpenGlException", "");
            assertThat(w.attachedFiles()).as("paths wrapped mid-name are re-joined").contains(
                    "\\\\?\\C:\\ProgramData\\Microsoft\\Windows\\WER\\Temp\\WER.cb63c911-d529-4430-853b-93037eeaf9e3.tmp.mdmp");
            ApplicationFault a = crash(f, "IFCnative.NativeWindows.exe", "1.0.0.0", "KERNELBASE.dll", "10.0.26100.8246",
                    "0xe0434352");
            assertThat(a.faultOffset()).isEqualTo("0x00164644");
            assertThat(a.processId()).isEqualTo(0x58B0L);
            assertThat(a.reportId()).isEqualTo("f0277e81-c73e-4d4e-954c-28df10c3f153");
            assertThat(a.applicationPath()).endsWith("\\IFCnative\\NativeWindows\\bin\\Debug\\net10.0-windows\\IFCnative.NativeWindows.exe");
            assertThat(dotnet(f).application()).isEqualTo("IFCnative.NativeWindows.exe");
            assertThat(dotnet(f).module()).isEqualTo("Avalonia.OpenGL.OpenGlException");
            assertThat(events(f)).extracting(WindowsEvent::eventId).as("ids inferred from the messages").containsExactly(1001, 1000, 1026);
            assertThat(events(f)).extracting(WindowsEvent::time)
                    .containsExactly("2026-06-10T12:05:39", "2026-06-10T12:05:37", "2026-06-10T12:05:36");
        });
        EXPECTED.put("getwinevent-formatlist_app-error-1000_dotnet-1026_wrapped-lines.txt", f -> {
            ApplicationFault a = crash(f, "ITD.OTS.Supervision.UI.exe", "0.0.1.0", "KERNELBASE.dll", "10.0.19041.6093",
                    "0xe0434352");
            assertThat(a.faultOffset()).isEqualTo("0x0013b552");
            assertThat(a.processId()).isEqualTo(0x28b0L);
            assertThat(a.reportId()).isEqualTo("68478c4b-f6e6-4d67-bf7b-63ecd440ef31");
            assertThat(events(f).get(0).message()).as("console wraps re-joined")
                    .startsWith("Faulting application name: ITD.OTS.Supervision.UI.exe, version: 0.0.1.0, time stamp: 0x638ef647\n"
                            + "Faulting module name: KERNELBASE.dll, version: 10.0.19041.6093, time stamp: 0x11227201\n");
            assertThat(dotnet(f).module()).isEqualTo("System.Runtime.InteropServices.COMException");
            assertThat(dotnet(f).application()).isEqualTo("ITD.OTS.Supervision.UI.exe");
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2025-07-22T12:22:44", "2025-07-22T12:22:43");
        });
        EXPECTED.put("getwinevent-formatlist_wer-1001-bex64_app-error-1000_rdr-0xc0000409.txt", f -> {
            WerReport w = wer(f, "BEX64", "1522932158592165819", 5, "RDR.exe", "0xc0000409");
            assertThat(w.parameters()).element(3).isEqualTo("CodeRED_Remote_Menu.asi");
            ApplicationFault a = crash(f, "RDR.exe", "1.0.40.57107", "CodeRED_Remote_Menu.asi", "0.0.0.0", "0xc0000409");
            assertThat(a.faultOffset()).isEqualTo("0x0000000000006281");
            assertThat(a.processId()).isEqualTo(0x6510L);
            assertThat(w.reportId()).isEqualTo(a.reportId()).isEqualTo("191d9eff-68d8-4eb0-a156-6590ec74949c");
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2026-05-23T23:01:02", "2026-05-23T23:01:01");
        });
        EXPECTED.put("nvlddmkm-0_description-not-found_parsec-sdk-issue69.txt",
                f -> display(f, "nvlddmkm", 0, "\\Device\\0000015a", "100", null));
        EXPECTED.put("nvlddmkm-13-153_graphics-exception-esr_summary.txt", f -> {
            DisplayDriverEvent d = display(f, "nvlddmkm", 13, null, "100", null);
            assertThat(d.detail()).startsWith("Graphics Exception: ESR 0x505730=0xb010020")
                    .contains("Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): MMU NACK Errors");
        });
        EXPECTED.put("nvlddmkm-153_description-not-found_open-shell-issue2025.txt",
                f -> display(f, "nvlddmkm", 153, "\\Device\\Video3", "100", null));
        EXPECTED.put("nvlddmkm-153_plus-display-4101_eventviewer-details-blockquoted.txt", f -> {
            display(f, "nvlddmkm", 153, "\\Device\\000000fb", "100", null);
            DisplayDriverEvent tdr = display(f, "Display", 4101, null, null, true);
            assertThat(tdr.driver()).isEqualTo("nvlddmkm");
            assertThat(events(f)).extracting(WindowsEvent::time).containsExactly("2024-09-19T21:27:56", "2024-09-19T21:27:21");
            assertThat(events(f)).extracting(WindowsEvent::level).containsExactly("Error", "Warning");
        });
        EXPECTED.put("nvlddmkm-event0_eventviewer-xml-view.xml", f -> {
            display(f, "nvlddmkm", 0, "\\Device\\Video3", "2b00", null);
            assertThat(events(f)).singleElement().satisfies(e -> {
                assertThat(e.qualifiers()).isZero();
                assertThat(e.recordId()).isEqualTo(138086L);
                assertThat(e.time()).isEqualTo("2023-02-09T15:15:31.346447900Z");
                assertThat(e.channel()).isEqualTo("System");
            });
        });
        EXPECTED.put("wer-1001_appcrash-ue4-shootergame_eventviewer-details-with-xml.txt", f -> {
            WerReport w = wer(f, "APPCRASH", null, 0, "UE4-ShooterGame", "0x00000001");
            assertThat(w.parameters()).hasSize(10).element(8).asString().startsWith("! -CULTURE=en!AssertLog=\"Assertion failed");
            assertThat(w.reportId()).isEqualTo("c3cbb449-61ed-4c17-b11f-12b7c5028d60");
            assertThat(w.attachedFiles()).isEmpty();
            assertThat(events(f)).singleElement().satisfies(e -> {
                assertThat(e.time()).isEqualTo("2025-06-29T19:58:54.110101600Z");
                assertThat(e.recordId()).isEqualTo(20885L);
            });
        });
        EXPECTED.put("wer-1001_dpmexception_indented-with-unnamed-data-xml.txt", f -> {
            WerReport w = wer(f, "DPMException", null, 0, null, null);
            assertThat(w.parameters()).containsExactly("msdpm", "4.2.1205.0", "msdpm.exe", "4.2.1205.0",
                    "System.FormatException", "System.Text.StringBuilder.AppendFormat", "9F6A23D0", "", "", "");
            assertThat(w.attachedFiles()).hasSize(2).first().isEqualTo("C:\\Windows\\Temp\\tmp541A.xml");
            assertThat(w.reportId()).isEqualTo("36bbe16a-283b-11e6-80c9-2c600c6007a0");
            assertThat(events(f)).singleElement().satisfies(e -> {
                assertThat(e.qualifiers()).isZero();
                assertThat(e.recordId()).isEqualTo(44563L);
                assertThat(e.time()).isEqualTo("2016-06-01T20:55:48Z");
                assertThat(e.data()).containsKeys("Data1", "Data22").doesNotContainKey("Data23");
            });
        });
    }

    @Test
    void everyFileParsesAndYieldsItsTypedFacts() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus not present: corpus tests skipped");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<Path> files;
        try (Stream<Path> s = Files.list(CORPUS)) {
            files = s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("SOURCES.md"))
                    .sorted().toList();
        }
        List<String> checked = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            ParseResult r = Parsers.parse(new ParseInput(name, sniffer.sniff(name, file), file));
            assertThat(r.problems()).as("problems of %s", name)
                    .noneMatch(p -> p instanceof ParseProblem.ParserFailure);
            assertThat(events(r.facts())).as("events of %s", name).isNotEmpty();
            String text = Files.readString(file, StandardCharsets.UTF_8);
            // an independent, deliberately simple selection: what the text shows must come out typed
            if (text.contains("Faulting application name") || text.contains("Fehlerhafter Anwendungsname")
                    || text.contains("错误应用程序名称")) {
                assertThat(r.facts()).as("crash of %s", name)
                        .anyMatch(f -> f instanceof ApplicationFault a && a.event().equals("crash") && a.exceptionCode() != null);
            }
            if (text.contains("Problem signature") || text.contains("Problemsignatur") || text.contains("Name=\"P1\"")) {
                assertThat(r.facts()).as("WER report of %s", name).anyMatch(f -> f instanceof WerReport w && w.eventName() != null);
            }
            if (text.contains("nvlddmkm") || text.contains("Event ID:      4101")) {
                assertThat(r.facts()).as("display driver event of %s", name).anyMatch(DisplayDriverEvent.class::isInstance);
            }
            Consumer<List<Fact>> expected = EXPECTED.get(name);
            assertThat(expected).as("expected values for %s (add the file to the table)", name).isNotNull();
            expected.accept(r.facts());
            checked.add(name);
        }
        assertThat(checked).as("every file of the table is in the corpus").containsExactlyInAnyOrderElementsOf(EXPECTED.keySet());
        System.out.println("eventlog-text corpus: " + checked.size() + " files, every one with its expected typed values");
    }

    private static List<WindowsEvent> events(List<Fact> facts) {
        return facts.stream().filter(WindowsEvent.class::isInstance).map(WindowsEvent.class::cast).toList();
    }

    private static List<ApplicationFault> faults(List<Fact> facts) {
        return facts.stream().filter(ApplicationFault.class::isInstance).map(ApplicationFault.class::cast).toList();
    }

    private static ApplicationFault crash(List<Fact> facts, String app, String appVersion, String module,
            String moduleVersion, String code) {
        List<ApplicationFault> crashes = faults(facts).stream().filter(a -> a.event().equals("crash")).toList();
        assertThat(crashes).as("crash facts").hasSize(1);
        ApplicationFault a = crashes.get(0);
        assertThat(a.application()).isEqualTo(app);
        assertThat(a.applicationVersion()).isEqualTo(appVersion);
        assertThat(a.module()).isEqualTo(module);
        assertThat(a.moduleVersion()).isEqualTo(moduleVersion);
        assertThat(a.exceptionCode()).isEqualTo(code);
        return a;
    }

    private static ApplicationFault dotnet(List<Fact> facts) {
        List<ApplicationFault> d = faults(facts).stream().filter(a -> a.event().equals("dotnet")).toList();
        assertThat(d).as("dotnet facts").hasSize(1);
        return d.get(0);
    }

    private static WerReport wer(List<Fact> facts, String eventName, String bucket, Integer bucketType, String app,
            String code) {
        List<WerReport> reports = facts.stream().filter(WerReport.class::isInstance).map(WerReport.class::cast).toList();
        assertThat(reports).as("WER reports").hasSize(1);
        WerReport w = reports.get(0);
        assertThat(w.eventName()).isEqualTo(eventName);
        assertThat(w.bucket()).isEqualTo(bucket);
        assertThat(w.bucketType()).isEqualTo(bucketType);
        assertThat(w.application()).isEqualTo(app);
        assertThat(w.exceptionCode()).isEqualTo(code);
        return w;
    }

    private static DisplayDriverEvent display(List<Fact> facts, String provider, Integer id, String device, String gpuId,
            Boolean recovered) {
        List<DisplayDriverEvent> found = facts.stream().filter(DisplayDriverEvent.class::isInstance)
                .map(DisplayDriverEvent.class::cast).filter(d -> d.provider().equals(provider)).toList();
        assertThat(found).as("%s display events", provider).hasSize(1);
        DisplayDriverEvent d = found.get(0);
        assertThat(d.eventId()).isEqualTo(id);
        assertThat(d.device()).isEqualTo(device);
        assertThat(d.gpuId()).isEqualTo(gpuId);
        assertThat(d.recovered()).isEqualTo(recovered);
        return d;
    }
}
