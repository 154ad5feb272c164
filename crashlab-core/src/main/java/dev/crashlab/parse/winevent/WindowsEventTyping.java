package dev.crashlab.parse.winevent;

import dev.crashlab.fact.ApplicationFault;
import dev.crashlab.fact.BugCheckEvent;
import dev.crashlab.fact.DisplayDriverEvent;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.KernelPowerEvent;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.WerReport;
import dev.crashlab.fact.WheaEvent;
import dev.crashlab.fact.WindowsEvent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Derives the typed facts ({@link ApplicationFault}, {@link WerReport}, {@link DisplayDriverEvent},
 * {@link KernelPowerEvent}, {@link BugCheckEvent}, {@link WheaEvent}) from one {@link WindowsEvent}, whatever
 * export it came from.
 *
 * <p>NOTE: named event data wins ({@code <Data Name="AppName">}); unnamed data ({@code Data1}, {@code Data2}...)
 * is read in the documented positional order of Application Error 1000, Application Hang 1002 and WER 1001;
 * what the data lacks is read from the message text, in any language {@link MessageField} knows. The binary
 * {@code .evtx} reader calls {@link #typed(WindowsEvent)}; text parsers pass an {@link EvidenceLocator} so each
 * typed fact cites the line that shows it.
 */
public final class WindowsEventTyping {

    private static final Pattern WER_PARAMETER = Pattern.compile("^\\s*P(\\d{1,2})\\s*[:：] ?(.*)$");
    private static final Pattern BUCKET_TAIL = Pattern.compile("^(.*?)[,，][^0-9,，]{0,20}(\\d{1,9})\\s*$");
    private static final Pattern HANG_PROGRAM = Pattern.compile(
            "(?i)^\\s*The program (\\S{1,260}) version (\\S{1,64}) stopped interacting");
    private static final Pattern DISPLAY_DRIVER = Pattern.compile(
            "(?i)(?:Display driver|Anzeigetreiber|pilote d.affichage|显示器驱动程序|显示驱动程序)\\s*(\\S{1,64}?)\\s*"
                    + "(?:stopped responding|reagiert|a cessé|停止响应)");
    private static final Pattern GPU_ID = Pattern.compile("(?i)GPUID\\s*[:：]\\s*([0-9a-f]{1,16})");
    private static final Pattern BUGCHECK = Pattern.compile("(0x[0-9a-fA-F]{1,16})\\s*\\(([^)]{0,400})\\)");
    private static final Pattern DUMP = Pattern.compile("(?i)([A-Z]:\\\\[^\\s]{0,260}?\\.dmp)");
    private static final Pattern REPORT_ID_INLINE = Pattern.compile(
            "(?i)(?:Report Id|Berichts?-ID|ID de rapport|报告 ?ID)\\s*[:：]\\s*([0-9a-z][0-9a-z-]{0,63}[0-9a-z])");
    private static final Set<String> APP_IN_P1 = Set.of("appcrash", "bex", "bex64", "clr20r3", "moappcrash",
            "apphangb1", "apphangxproccycle", "apphangtransient", "moapphang");

    private WindowsEventTyping() {}

    /** Returns the typed facts of one event, each citing the event's own sources; empty when none apply. */
    public static List<Fact> typed(WindowsEvent e) {
        return typed(e, EvidenceLocator.none());
    }

    /** Returns the typed facts of one event, each citing the line {@code at} finds for it (else the event's sources). */
    public static List<Fact> typed(WindowsEvent e, EvidenceLocator at) {
        String provider = e.provider() == null ? "" : e.provider().strip().toLowerCase(Locale.ROOT)
                .replaceFirst("^microsoft-windows-", "");
        Integer id = e.eventId();
        Typing t = new Typing(e, at);
        Fact f = switch (provider) {
            case "application error" -> id == null || id == 1000 ? t.crash() : null;
            case "application hang" -> id == null || id == 1002 ? t.hang() : null;
            case ".net runtime" -> t.dotnet();
            case "windows error reporting" -> id == null || id == 1001 ? t.wer() : null;
            case "display" -> id == null || id == 4101 ? t.display() : null;
            case "nvlddmkm" -> t.nvlddmkm();
            case "kernel-power" -> id != null && id == 41 ? t.kernelPower() : null;
            case "wer-systemerrorreporting", "bugcheck" -> id == null || id == 1001 ? t.bugCheck() : null;
            case "whea-logger" -> t.whea();
            default -> null;
        };
        return f == null ? List.of() : List.of(f);
    }

    /** The derivation for one event. */
    private static final class Typing {
        private final WindowsEvent e;
        private final EvidenceLocator at;
        private final boolean positional;
        private final List<String> lines;

        Typing(WindowsEvent e, EvidenceLocator at) {
            this.e = e;
            this.at = at;
            // classic events carry unnamed <Data> plus an optional <Binary> blob (real Application Error 1000, Application
            // Hang 1002 and WER 1001 records all have one, often empty): the blob is no name, so the data stays positional
            this.positional = e.data().keySet().stream().anyMatch(k -> k.matches("Data\\d{1,4}"))
                    && e.data().keySet().stream().allMatch(k -> k.matches("Data\\d{1,4}") || k.matches("(?i)Binary\\d{0,2}"));
            this.lines = e.message() == null ? List.of() : e.message().lines().limit(5000).toList();
        }

        /** Returns the named value, or the unnamed one at {@code position} (1-based); null when absent or empty. */
        private String data(int position, String... names) {
            if (positional) {
                return position > 0 ? EventValues.clean(e.data().get("Data" + position)) : null;
            }
            for (String n : names) {
                for (Map.Entry<String, String> d : e.data().entrySet()) {
                    if (d.getKey().equalsIgnoreCase(n)) {
                        String v = EventValues.clean(d.getValue());
                        if (v != null) {
                            return v;
                        }
                    }
                }
            }
            return null;
        }

        private boolean hasData(String name) {
            return e.data().keySet().stream().anyMatch(k -> k.equalsIgnoreCase(name));
        }

        private Map<MessageField, MessageField.Labelled> labels(Set<MessageField> fields) {
            Map<MessageField, MessageField.Labelled> out = new EnumMap<>(MessageField.class);
            for (String line : lines) {
                MessageField.Labelled l = MessageField.match(line, fields);
                if (l != null) {
                    out.putIfAbsent(l.field(), l);
                }
            }
            return out;
        }

        private static String value(Map<MessageField, MessageField.Labelled> m, MessageField f) {
            MessageField.Labelled l = m.get(f);
            return l == null ? null : EventValues.clean(l.value());
        }

        private static String label(Map<MessageField, MessageField.Labelled> m, MessageField f) {
            MessageField.Labelled l = m.get(f);
            return l == null ? null : l.label();
        }

        /** Returns the sources for a typed fact: the first evidence line found, else the event's own. */
        private List<SourceRef> cite(String... needles) {
            List<String> present = new ArrayList<>();
            for (String n : needles) {
                if (n != null && !n.isBlank()) {
                    present.add(n);
                }
            }
            SourceRef found = present.isEmpty() ? null : at.find(present.toArray(String[]::new));
            return found != null ? List.of(found) : e.sources();
        }

        Fact crash() {
            var m = labels(MessageField.APP_ERROR);
            String[] app = nameVersion(value(m, MessageField.APP_NAME));
            String[] module = nameVersion(value(m, MessageField.MODULE_NAME));
            String application = first(data(1, "AppName"), app[0]);
            String exception = EventValues.exceptionCode(first(data(7, "ExceptionCode"), value(m, MessageField.EXCEPTION_CODE)));
            if (application == null && exception == null) {
                return null;
            }
            return new ApplicationFault("crash", application,
                    first(data(2, "AppVersion"), app[1]),
                    EventValues.path(first(data(11, "AppPath"), value(m, MessageField.APP_PATH))),
                    first(data(4, "ModuleName"), module[0]),
                    first(data(5, "ModuleVersion"), module[1]),
                    EventValues.path(first(data(12, "ModulePath"), value(m, MessageField.MODULE_PATH))),
                    exception,
                    EventValues.hex(first(data(8, "FaultingOffset", "FaultOffset"), value(m, MessageField.FAULT_OFFSET))),
                    EventValues.hexNumber(first(data(9, "ProcessId"), value(m, MessageField.PROCESS_ID))),
                    EventValues.id(first(data(13, "IntegratorReportId", "ReportId"), value(m, MessageField.REPORT_ID))),
                    cite(label(m, MessageField.EXCEPTION_CODE), "ExceptionCode", label(m, MessageField.APP_NAME), "AppName"));
        }

        Fact hang() {
            var m = labels(MessageField.HANG);
            String name = data(1, "AppName");
            String version = data(2, "AppVersion");
            String programLine = null;
            for (String line : lines) {
                Matcher pm = HANG_PROGRAM.matcher(line);
                if (pm.find()) {
                    programLine = pm.group(0).strip();
                    name = first(name, pm.group(1));
                    version = first(version, pm.group(2));
                    break;
                }
            }
            if (name == null) {
                return null;
            }
            return new ApplicationFault("hang", name, version,
                    EventValues.path(first(data(6, "ExeFileName", "AppPath"), value(m, MessageField.APPLICATION_PATH))),
                    null, null, null, null, null,
                    EventValues.hexNumber(first(data(3, "ProcessID", "ProcessId"), value(m, MessageField.HANG_PROCESS_ID))),
                    EventValues.id(first(data(7, "ReportID", "ReportId"), value(m, MessageField.REPORT_ID))),
                    cite(programLine, "AppName"));
        }

        Fact dotnet() {
            var m = labels(MessageField.DOTNET);
            String info = value(m, MessageField.EXCEPTION_INFO);
            String type = info == null ? null : exceptionType(info);
            String evidence = label(m, MessageField.EXCEPTION_INFO);
            if (type == null) {
                List<String> texts = new ArrayList<>(lines);
                e.data().values().forEach(v -> texts.addAll(v.lines().limit(5000).toList()));
                for (String line : texts) {
                    type = exceptionType(line);
                    if (type != null) {
                        evidence = type;
                        break;
                    }
                }
            }
            if (type == null) {
                return null;
            }
            return new ApplicationFault("dotnet", value(m, MessageField.DOTNET_APPLICATION), null, null, type,
                    null, null, null, null, null, null, cite(evidence, type));
        }

        Fact wer() {
            var m = labels(MessageField.WER);
            String bucket = null;
            Integer bucketType = null;
            String bucketLine = null;
            for (String line : lines) {
                if (MessageField.FAULT_BUCKET.startsWith(line)) {
                    bucketLine = line.strip();
                    String rest = bucketLine.substring(labelLength(MessageField.FAULT_BUCKET, bucketLine)).strip();
                    Matcher bm = BUCKET_TAIL.matcher(rest);
                    if (bm.matches()) {
                        bucket = EventValues.clean(bm.group(1));
                        bucketType = EventValues.integer(bm.group(2));
                    }
                    break;
                }
            }
            if (hasData("Bucket") || positional) {
                bucket = data(1, "Bucket");
                bucketType = first(EventValues.integer(data(2, "BucketType")), bucketType);
            }
            String eventName = first(data(3, "EventName"), value(m, MessageField.EVENT_NAME));
            List<String> parameters = parameters();
            if (eventName == null && parameters.isEmpty()) {
                return null;
            }
            String kind = eventName == null ? "" : eventName.toLowerCase(Locale.ROOT);
            String application = APP_IN_P1.contains(kind) && !parameters.isEmpty() ? EventValues.clean(parameters.get(0)) : null;
            int codeAt = kind.equals("appcrash") ? 7 : kind.equals("bex") || kind.equals("bex64") ? 8 : 0;
            String code = codeAt > 0 && parameters.size() >= codeAt ? EventValues.exceptionCode(parameters.get(codeAt - 1)) : null;
            return new WerReport(eventName, bucket, bucketType, parameters, application, code, attachedFiles(),
                    EventValues.id(first(data(20, "ReportId"), value(m, MessageField.REPORT_ID))),
                    first(data(22, "HashedBucket"), value(m, MessageField.HASHED_BUCKET)),
                    cite(label(m, MessageField.EVENT_NAME), "EventName", bucketLine));
        }

        private List<String> parameters() {
            String[] p = new String[10];
            int shown = 0;
            boolean fromData = false;
            for (int i = 1; i <= 10; i++) {
                if (positional ? e.data().containsKey("Data" + (5 + i)) : hasData("P" + i)) {
                    String v = data(5 + i, "P" + i);
                    p[i - 1] = v == null ? "" : v;
                    shown = i;
                    fromData = true;
                }
            }
            if (!fromData) {
                for (String line : lines) {
                    Matcher pm = WER_PARAMETER.matcher(line);
                    if (pm.matches()) {
                        int i = Integer.parseInt(pm.group(1));
                        if (i >= 1 && i <= 10 && p[i - 1] == null) {
                            p[i - 1] = pm.group(2).strip();
                            shown = Math.max(shown, i);
                        }
                    }
                }
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < shown; i++) {
                out.add(p[i] == null ? "" : p[i]);
            }
            return out;
        }

        private List<String> attachedFiles() {
            String fromData = data(16, "AttachedFiles");
            List<String> out = new ArrayList<>();
            if (fromData != null || hasData("AttachedFiles") || positional) {
                if (fromData != null) {
                    fromData.lines().map(String::strip).filter(s -> !s.isEmpty()).limit(100).forEach(out::add);
                }
                return out;
            }
            boolean in = false;
            for (String line : lines) {
                if (!in) {
                    in = MessageField.match(line, Set.of(MessageField.ATTACHED_FILES)) != null;
                    continue;
                }
                String s = line.strip();
                if (s.isEmpty() || MessageField.match(line, MessageField.WER) != null || out.size() >= 100) {
                    break;
                }
                out.add(s);
            }
            return out;
        }

        Fact display() {
            String driver = data(1, "DriverName");
            String evidence = null;
            Boolean recovered = e.eventId() != null && e.eventId() == 4101 ? Boolean.TRUE : null;
            for (String line : lines) {
                Matcher dm = DISPLAY_DRIVER.matcher(line);
                if (dm.find()) {
                    driver = first(driver, dm.group(1));
                    evidence = dm.group(0);
                    String lower = line.toLowerCase(Locale.ROOT);
                    recovered = !(lower.contains("not recovered") || lower.contains("nicht wiederhergestellt"));
                    break;
                }
            }
            if (driver == null && evidence == null && e.eventId() == null) {
                return null;
            }
            return new DisplayDriverEvent(e.provider(), e.eventId(), driver, null, null, null, recovered,
                    cite(evidence, driver));
        }

        Fact nvlddmkm() {
            String device = null;
            List<String> detail = new ArrayList<>();
            for (String v : e.data().values()) {
                String s = EventValues.clean(v);
                if (s == null) {
                    continue;
                }
                if (device == null && s.startsWith("\\Device\\")) {
                    device = s;
                } else {
                    detail.add(s);
                }
            }
            if (e.data().isEmpty()) {
                // only the message survived (a tab-delimited or bare copy): its lines are the insertion strings
                for (String s : lines.stream().map(String::strip).filter(s -> !s.isEmpty()).limit(20).toList()) {
                    if (device == null && s.startsWith("\\Device\\")) {
                        device = s;
                    } else {
                        detail.add(s);
                    }
                }
            }
            String gpuId = null;
            String gpuLine = null;
            for (String s : detail) {
                Matcher g = GPU_ID.matcher(s);
                if (g.find()) {
                    gpuId = g.group(1);
                    gpuLine = s;
                    break;
                }
            }
            String joined = detail.isEmpty() ? null : String.join("\n", detail);
            if (joined != null && joined.length() > 1000) {
                joined = joined.substring(0, 1000) + "…";
            }
            return new DisplayDriverEvent(e.provider(), e.eventId(), "nvlddmkm", device, gpuId, joined, null,
                    cite(detail.isEmpty() ? null : detail.get(0), gpuLine, device));
        }

        Fact kernelPower() {
            Long code = EventValues.whole(data(0, "BugcheckCode"));
            List<String> parameters = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                String p = data(0, "BugcheckParameter" + i);
                if (p != null) {
                    parameters.add(p.toLowerCase(Locale.ROOT));
                }
            }
            Long sleep = EventValues.whole(data(0, "SleepInProgress"));
            Long button = EventValues.whole(data(0, "PowerButtonTimestamp"));
            return new KernelPowerEvent(code == null ? null : String.format(Locale.ROOT, "0x%08x", code), parameters,
                    sleep == null ? null : sleep != 0, button == null ? null : button != 0,
                    cite("BugcheckCode"));
        }

        Fact bugCheck() {
            String text = first(data(1, "param1"), null);
            List<String> all = new ArrayList<>();
            if (text != null) {
                all.add(text);
            }
            all.addAll(lines);
            for (String s : all) {
                Matcher b = BUGCHECK.matcher(s);
                if (b.find()) {
                    List<String> parameters = new ArrayList<>();
                    for (String p : b.group(2).split(",")) {
                        if (!p.isBlank()) {
                            parameters.add(p.strip().toLowerCase(Locale.ROOT));
                        }
                    }
                    String dump = data(2, "param2");
                    if (dump == null) {
                        for (String line : lines) {
                            Matcher d = DUMP.matcher(line);
                            if (d.find()) {
                                dump = d.group(1);
                                break;
                            }
                        }
                    }
                    String report = data(3, "param3");
                    for (int i = 0; report == null && i < lines.size(); i++) {
                        Matcher r = REPORT_ID_INLINE.matcher(lines.get(i));
                        if (r.find()) {
                            report = r.group(1);
                        }
                    }
                    if (report != null && report.endsWith(".")) {
                        report = report.substring(0, report.length() - 1);
                    }
                    return new BugCheckEvent(EventValues.exceptionCode(b.group(1)), parameters, dump,
                            EventValues.id(report), cite(b.group(1)));
                }
            }
            return null;
        }

        Fact whea() {
            var m = labels(MessageField.WHEA);
            String severity = null;
            String severityLine = null;
            for (String line : lines) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.contains("fatal hardware error") || lower.contains("schwerwiegender hardwarefehler")
                        || lower.contains("erreur matérielle irrécupérable") || lower.contains("严重硬件错误")) {
                    severity = "fatal";
                } else if (lower.contains("corrected hardware error") || lower.contains("korrigierter hardwarefehler")
                        || lower.contains("erreur matérielle corrigée") || lower.contains("已更正的硬件错误")) {
                    severity = "corrected";
                }
                if (severity != null) {
                    severityLine = line.strip();
                    break;
                }
            }
            return new WheaEvent(e.eventId(), severity,
                    first(data(0, "Component"), value(m, MessageField.COMPONENT)),
                    first(data(0, "ErrorSource"), value(m, MessageField.ERROR_SOURCE)),
                    first(data(0, "ErrorType"), value(m, MessageField.ERROR_TYPE)),
                    value(m, MessageField.PRIMARY_LOCATION),
                    value(m, MessageField.PRIMARY_DEVICE),
                    cite(label(m, MessageField.ERROR_SOURCE), severityLine));
        }
    }

    /** Splits {@code python.exe, version: 3.7.1, time stamp: 0x5b} into name and version (either may be null). */
    static String[] nameVersion(String v) {
        if (v == null) {
            return new String[2];
        }
        String folded = v.toLowerCase(Locale.ROOT);
        int best = -1;
        int labelEnd = -1;
        for (String label : MessageField.VERSION.spellings()) {
            int i = folded.indexOf(label.toLowerCase(Locale.ROOT));
            while (i >= 0) {
                int j = i + label.length();
                while (j < v.length() && v.charAt(j) == ' ') {
                    j++;
                }
                int k = i - 1;
                while (k >= 0 && v.charAt(k) == ' ') {
                    k--;
                }
                boolean afterComma = k >= 0 && (v.charAt(k) == ',' || v.charAt(k) == '，');
                if (afterComma && j < v.length() && (v.charAt(j) == ':' || v.charAt(j) == '：')) {
                    best = k;
                    labelEnd = j + 1;
                    break;
                }
                i = folded.indexOf(label.toLowerCase(Locale.ROOT), i + 1);
            }
            if (best >= 0) {
                break;
            }
        }
        if (best < 0) {
            return new String[] {EventValues.clean(v), null};
        }
        String name = EventValues.clean(v.substring(0, best));
        String rest = v.substring(labelEnd);
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            if (rest.charAt(i) == ',' || rest.charAt(i) == '，') {
                end = i;
                break;
            }
        }
        return new String[] {name, EventValues.clean(rest.substring(0, end))};
    }

    /** Returns the .NET exception type a text names ({@code System.IO.IOException: ...}); null when none. */
    static String exceptionType(String text) {
        int start = 0;
        int n = Math.min(text.length(), 4000);
        for (int i = 0; i <= n; i++) {
            char c = i < n ? text.charAt(i) : ' ';
            boolean part = Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '`';
            if (!part) {
                if (i - start > "Exception".length()) {
                    String token = text.substring(start, i);
                    if (token.endsWith("Exception") && token.indexOf('.') > 0 && !token.startsWith(".")) {
                        return token;
                    }
                }
                start = i + 1;
            }
        }
        return null;
    }

    private static int labelLength(MessageField f, String line) {
        String folded = MessageField.fold(line);
        for (String s : f.spellings()) {
            String fs = MessageField.fold(s);
            if (folded.regionMatches(true, 0, fs, 0, fs.length())) {
                return fs.length();
            }
        }
        return 0;
    }

    @SafeVarargs
    private static <T> T first(T... values) {
        for (T v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
