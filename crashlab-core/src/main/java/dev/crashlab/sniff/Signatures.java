package dev.crashlab.sniff;

import static dev.crashlab.sniff.ArtifactType.CONDA_LIST;
import static dev.crashlab.sniff.ArtifactType.EVENTLOG_CSV;
import static dev.crashlab.sniff.ArtifactType.EVENTLOG_TEXT;
import static dev.crashlab.sniff.ArtifactType.EVENTLOG_XML;
import static dev.crashlab.sniff.ArtifactType.KERAS_MODEL_JSON;
import static dev.crashlab.sniff.ArtifactType.KERAS_MODEL_SUMMARY;
import static dev.crashlab.sniff.ArtifactType.KERNEL_LOG;
import static dev.crashlab.sniff.ArtifactType.NVCC_VERSION;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_CSV;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_QUERY_TEXT;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_TABLE;
import static dev.crashlab.sniff.ArtifactType.NVIDIA_SMI_XML;
import static dev.crashlab.sniff.ArtifactType.PIP_LIST;
import static dev.crashlab.sniff.ArtifactType.TF_BUILD_INFO;
import static dev.crashlab.sniff.ArtifactType.TORCH_COLLECT_ENV;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Lists the signatures of the formats that announce themselves near the top of a file, most specific
 * first.
 *
 * <p>The sniffer locates every signature and keeps the one that starts earliest, because pasted
 * files often carry a second format further down (Event Viewer "details" text ends with the event's
 * XML; a {@code collect_env} report lists {@code [pip3] torch==...} lines). List order only breaks
 * ties between signatures that start on the same line.
 */
final class Signatures {

    private Signatures() {}

    /** Localised Event Viewer labels of the "Log Name" field (English, German, French, Spanish, Japanese, Chinese, Russian). */
    private static final List<String> LOG_NAME_LABELS = List.of(
            "Log Name:", "LogName:", "Protokollname:", "Nom du journal", "Nombre de registro:", "ログの名前:",
            "日志名称:", "Имя журнала:");
    /** Localised labels of the "Event ID" field, in the same languages. */
    private static final List<String> EVENT_ID_LABELS = List.of(
            "Event ID:", "EventID:", "Ereignis-ID:", "ID de l’événement", "ID de l'événement", "Id. del evento:",
            "イベント ID:", "事件 ID:", "Код события:");
    /** Localised first line of an Application Error 1000 message. */
    private static final List<String> FAULTING_APPLICATION_LABELS = List.of(
            "Faulting application name:", "Name der fehlerhaften Anwendung:", "Nom de l’application défaillante",
            "Nom de l'application défaillante", "Nombre de la aplicación con errores:", "障害が発生しているアプリケーション名:",
            "错误应用程序名称:", "Имя сбойного приложения:");
    /** Column names of an Event Viewer "Save as" CSV/tab export (English, German, French). */
    private static final Set<String> EXPORT_HEADER_WORDS = Set.of(
            "level", "date and time", "source", "event id", "task category",
            "ebene", "datum und uhrzeit", "quelle", "ereignis-id", "aufgabenkategorie",
            "niveau", "date et heure", "id de l’événement", "id de l'événement", "catégorie de la tâche");
    /** Properties of {@code Get-WinEvent} / {@code Get-EventLog} records as {@code Format-List} prints them. */
    private static final Set<String> FORMAT_LIST_KEYS = Set.of(
            "timecreated", "providername", "id", "leveldisplayname", "message", "logname", "recordid", "machinename",
            "entrytype", "instanceid", "timegenerated", "source", "index", "msg", "level", "providerid");
    /** The subset of {@link #FORMAT_LIST_KEYS} that only event records have. */
    private static final Set<String> FORMAT_LIST_EVENT_KEYS = Set.of(
            "timecreated", "providername", "leveldisplayname", "entrytype", "instanceid", "timegenerated");
    /** Keys of the dict {@code tf.sysconfig.get_build_info()} returns. */
    private static final List<String> TF_BUILD_KEYS = List.of(
            "cpu_compiler", "cuda_compute_capabilities", "cuda_version", "cudnn_version", "is_cuda_build",
            "is_rocm_build", "is_tensorrt_build", "msvcp_dll_names", "nvcuda_dll_name", "cudart_dll_name",
            "cudnn_dll_name");

    /** Each of {@link #TF_BUILD_KEYS} in single quotes, then in double quotes (made once, not per line). */
    private static final List<String> TF_BUILD_KEYS_QUOTED = TF_BUILD_KEYS.stream()
            .flatMap(k -> java.util.stream.Stream.of("'" + k + "'", "\"" + k + "\"")).toList();

    /** Holds the signatures, most specific first; list order only breaks ties between equal start lines. */
    static final List<Signature> ALL = List.of(
            new Signature("event-xml", EVENTLOG_XML,
                    "<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>",
                    t -> t.firstInWindow(l -> isEventElement(afterXmlDeclaration(l)))),
            new Signature("nvidia-smi-xml", NVIDIA_SMI_XML, "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">",
                    t -> t.firstInWindow(l -> {
                        String s = afterXmlDeclaration(l);
                        return s.startsWith("<nvidia_smi_log") || s.startsWith("<!DOCTYPE nvidia_smi_log");
                    })),
            new Signature("keras-json", KERAS_MODEL_JSON,
                    "{\"class_name\": \"Sequential\", \"config\": {\"name\": \"sequential\", \"layers\": [",
                    Signatures::locateKerasJson),
            new Signature("event-details", EVENTLOG_TEXT, "Log Name:      System\nSource:        nvlddmkm\nEvent ID:      153",
                    Signatures::locateEventDetails),
            new Signature("wevtutil-text", EVENTLOG_TEXT, "Event[0]:",
                    t -> t.firstInWindow(Signatures::isWevtutilText)),
            new Signature("event-format-list", EVENTLOG_TEXT,
                    "TimeCreated  : 3/14/2024 9:26:53 PM\nProviderName : Application Error\nId           : 1000",
                    Signatures::locateFormatList),
            new Signature("event-export-csv", EVENTLOG_CSV, "Level,Date and Time,Source,Event ID,Task Category",
                    t -> locateExportHeader(t, ',')),
            new Signature("event-export-tab", EVENTLOG_TEXT, "Level\tDate and Time\tSource\tEvent ID\tTask Category",
                    t -> locateExportHeader(t, '\t')),
            new Signature("event-message", EVENTLOG_TEXT,
                    "Faulting application name: python.exe, version: 3.10.11150.1013, time stamp: 0x642cc427",
                    t -> t.firstInWindow(Signatures::isEventMessage)),
            new Signature("nvidia-smi-table", NVIDIA_SMI_TABLE,
                    "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2     |",
                    t -> t.firstInWindow(l -> l.startsWith("|") && l.contains("NVIDIA-SMI "))),
            new Signature("nvsmi-log", NVIDIA_SMI_QUERY_TEXT, "==============NVSMI LOG==============",
                    t -> t.firstInWindow(l -> l.startsWith("=") && l.contains("NVSMI LOG"))),
            new Signature("nvidia-smi-query-keys", NVIDIA_SMI_QUERY_TEXT,
                    "    Product Name                          : NVIDIA GeForce RTX 3090\n"
                            + "    Product Brand                         : GeForce",
                    Signatures::locateQueryKeys),
            new Signature("nvidia-smi-csv", NVIDIA_SMI_CSV,
                    "name, pci.bus_id, driver_version, memory.total [MiB], memory.used [MiB]",
                    t -> t.firstInWindow(LineShapes::isQueryGpuHeader)),
            new Signature("collect-env", TORCH_COLLECT_ENV, "Collecting environment information...",
                    Signatures::locateCollectEnv),
            new Signature("nvcc", NVCC_VERSION, "nvcc: NVIDIA (R) Cuda compiler driver",
                    t -> t.firstInWindow(l -> l.startsWith("nvcc: NVIDIA (R) Cuda compiler driver")
                            || l.startsWith("Cuda compilation tools, release"))),
            new Signature("tf-build-info", TF_BUILD_INFO, "OrderedDict([('cpu_compiler', '/usr/bin/gcc'), ('cuda_version', '11.8'),",
                    Signatures::locateTfBuildInfo),
            new Signature("keras-summary", KERAS_MODEL_SUMMARY,
                    " Layer (type)                Output Shape              Param #   ",
                    t -> t.firstInWindow(l -> l.contains("Layer (type)") && l.contains("Output Shape"))),
            new Signature("conda-header", CONDA_LIST, "# packages in environment at /opt/conda/envs/train:",
                    t -> t.firstInWindow(Signatures::isCondaHeader)),
            new Signature("pip-list-header", PIP_LIST, "Package                  Version\n------------------------ ---------",
                    Signatures::locatePipListHeader),
            new Signature("kernel-log", KERNEL_LOG,
                    "[  512.345678] NVRM: Xid (PCI:0000:01:00): 79, pid=4242, GPU has fallen off the bus.",
                    Signatures::locateKernelLog));

    static boolean isEventElement(String l) {
        if (l.startsWith("<Events>") || l.startsWith("<Events ")) {
            return true;
        }
        return l.startsWith("<Event") && l.length() > 6 && (l.charAt(6) == ' ' || l.charAt(6) == '>');
    }

    /** Drops a leading {@code <?xml ...?>} declaration that shares its line with the root element. */
    static String afterXmlDeclaration(String l) {
        if (l.startsWith("<?xml")) {
            int end = l.indexOf("?>");
            return end < 0 ? "" : l.substring(end + 2).strip();
        }
        return l;
    }

    private static int locateKerasJson(SniffText t) {
        int first = t.firstNonBlank();
        if (first < 0 || !t.trimmed(first).startsWith("{")) {
            return -1;
        }
        String s = t.text();
        return s.contains("\"class_name\"") && (s.contains("\"config\"") || s.contains("\"modelTopology\"")) ? first : -1;
    }

    private static int locateEventDetails(SniffText t) {
        int at = t.firstInWindow(l -> startsWithAny(withoutLeadingTags(l), LOG_NAME_LABELS));
        if (at < 0) {
            return -1;
        }
        return t.anyInWindow(l -> startsWithAny(withoutLeadingTags(l), EVENT_ID_LABELS)) ? at : -1;
    }

    /** Strips HTML tags that a blog's code box left in front of the text ({@code <pre class="xml">Log Name: ...}). */
    static String withoutLeadingTags(String l) {
        String s = l;
        for (int guard = 0; guard < 8 && s.startsWith("<") && s.length() > 1
                && (Character.isLetter(s.charAt(1)) || s.charAt(1) == '/'); guard++) {
            int gt = s.indexOf('>');
            if (gt < 0 || gt > 400) {
                break;
            }
            s = s.substring(gt + 1).strip();
        }
        return s;
    }

    private static boolean isWevtutilText(String l) {
        if (l.startsWith("Event[")) {
            int close = l.indexOf(']');
            if (close > 6 && close <= 16 && l.substring(6, close).chars().allMatch(Character::isDigit)) {
                return true;
            }
        }
        return l.contains("wevtutil qe") && (l.contains("/f:text") || l.contains("/format:text"));
    }

    private static int locateFormatList(SniffText t) {
        Set<String> keys = new HashSet<>();
        int first = -1;
        for (int i = 0; i < t.windowEnd(); i++) {
            String l = t.trimmed(i);
            int sep = l.indexOf(" :");
            if (sep <= 0) {
                continue;
            }
            String key = SniffText.lower(l.substring(0, sep).strip());
            if (FORMAT_LIST_KEYS.contains(key)) {
                keys.add(key);
                if (first < 0) {
                    first = i;
                }
            }
        }
        boolean eventKey = keys.stream().anyMatch(FORMAT_LIST_EVENT_KEYS::contains);
        return keys.size() >= 2 && eventKey ? first : -1;
    }

    private static int locateExportHeader(SniffText t, char separator) {
        int first = t.firstNonBlank();
        if (first < 0) {
            return -1;
        }
        String l = t.trimmed(first);
        if (separator == ',' && l.startsWith("#TYPE System.Diagnostics.Eventing.Reader")) {
            return first; // Get-WinEvent | Export-Csv
        }
        String[] fields = l.split(String.valueOf(separator), -1);
        int known = 0;
        boolean provider = false;
        boolean created = false;
        for (int i = 0; i < fields.length && i < 40; i++) {
            String f = SniffText.lower(fields[i].strip().replace("\"", ""));
            if (i < 5 && EXPORT_HEADER_WORDS.contains(f)) {
                known++;
            }
            provider |= f.equals("providername");
            created |= f.equals("timecreated");
        }
        return known >= 3 || (separator == ',' && provider && created) ? first : -1;
    }

    private static boolean isEventMessage(String l) {
        String s = withoutLeadingTags(l);
        if (containsAny(s, FAULTING_APPLICATION_LABELS)) {
            return true;
        }
        return (s.contains("Fault bucket ") && s.contains(", type "))
                || (s.contains("The description for Event ID ") && s.contains(" from source "))
                || s.contains("Error occurred on GPUID:");
    }

    private static int locateQueryKeys(SniffText t) {
        Set<String> keys = new HashSet<>();
        int first = -1;
        for (int i = 0; i < t.windowEnd(); i++) {
            String key = LineShapes.queryKey(t.trimmed(i));
            if (key != null && LineShapes.QUERY_KEYS.contains(key)) {
                keys.add(key);
                if (first < 0) {
                    first = i;
                }
            }
        }
        return keys.size() >= 2 ? first : -1;
    }

    private static int locateCollectEnv(SniffText t) {
        int header = t.firstInWindow(l -> l.startsWith("Collecting environment information"));
        if (header >= 0) {
            return header;
        }
        int version = t.firstInWindow(l -> l.startsWith("PyTorch version:"));
        boolean more = t.anyInWindow(l -> l.startsWith("Is debug build:") || l.startsWith("CUDA used to build PyTorch:"));
        return version >= 0 && more ? version : -1;
    }

    private static int locateTfBuildInfo(SniffText t) {
        Set<String> keys = new HashSet<>();
        int first = -1;
        for (int i = 0; i < t.windowEnd(); i++) {
            String l = t.trimmed(i);
            for (int q = 0; q < TF_BUILD_KEYS.size(); q++) {
                String k = TF_BUILD_KEYS.get(q);
                if (l.contains(TF_BUILD_KEYS_QUOTED.get(2 * q)) || l.contains(TF_BUILD_KEYS_QUOTED.get(2 * q + 1))) {
                    keys.add(k);
                    if (first < 0) {
                        first = i;
                    }
                }
            }
        }
        return keys.size() >= 2 ? first : -1;
    }

    private static boolean isCondaHeader(String l) {
        if (l.startsWith("# packages in environment at")) {
            return true;
        }
        if (!l.startsWith("#")) {
            return false;
        }
        String[] f = LineShapes.WHITESPACE_RUN.split(l.substring(1).strip(), 5);
        return f.length >= 3 && f[0].equals("Name") && f[1].equals("Version") && f[2].equals("Build");
    }

    private static int locatePipListHeader(SniffText t) {
        for (int i = 0; i < t.windowEnd(); i++) {
            String[] f = LineShapes.WHITESPACE_RUN.split(t.trimmed(i), 4);
            if (f.length >= 2 && f[0].equals("Package") && f[1].equals("Version")) {
                for (int j = i + 1; j < t.size(); j++) {
                    if (!t.blank(j)) {
                        return t.trimmed(j).startsWith("---") ? i : -1;
                    }
                }
            }
        }
        return -1;
    }

    /** Locates a kernel log: at least half of the leading non-blank lines must be kernel lines. */
    private static int locateKernelLog(SniffText t) {
        List<Integer> lines = t.nonBlankLines(SniffText.SHAPE_NON_BLANK);
        int kernel = 0;
        int first = -1;
        for (int i : lines) {
            if (LineShapes.isKernelLine(t.trimmed(i))) {
                kernel++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        return kernel > 0 && kernel * 2 >= lines.size() && first < t.windowEnd() ? first : -1;
    }

    static boolean startsWithAny(String s, List<String> prefixes) {
        for (String p : prefixes) {
            if (s.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    static boolean containsAny(String s, List<String> needles) {
        for (String n : needles) {
            if (s.contains(n)) {
                return true;
            }
        }
        return false;
    }
}
