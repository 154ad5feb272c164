package dev.crashlab.parse.winevent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Names the labelled fields of Windows event renderings in every language we read: the one label table for
 * headers ({@code Log Name:}), Application Error, WER, .NET Runtime, Application Hang and WHEA messages.
 *
 * <p>NOTE: English, German and Simplified Chinese Application Error labels, German WER labels and the German
 * .NET header are as found in the corpus; the other spellings (French, the rest of Chinese) follow the
 * Windows message tables as we know them and are best effort. Apostrophes are compared as {@code '}
 * whichever of {@code '}/{@code ’} the text uses.
 */
enum MessageField {
    // Event Viewer "details" header and wevtutil /f:text header
    LOG_NAME("Log Name", "LogName", "Protokollname", "Nom du journal", "日志名称"),
    SOURCE("Source", "Quelle", "来源"),
    DATE("Date", "Datum", "日期"),
    EVENT_ID("Event ID", "Ereignis-ID", "ID de l'événement", "ID de l'evenement", "事件 ID", "事件ID"),
    TASK("Task Category", "Task", "Aufgabenkategorie", "Catégorie de la tâche", "Catégorie de tâche", "任务类别"),
    LEVEL("Level", "Ebene", "Niveau", "级别"),
    OPCODE("Opcode", "Vorgangscode", "Code opération", "操作代码"),
    KEYWORDS("Keywords", "Keyword", "Schlüsselwörter", "Mots-clés", "关键字"),
    USER("User", "Benutzer", "Utilisateur", "用户"),
    USER_NAME("User Name", "Benutzername", "Nom d'utilisateur", "用户名"),
    COMPUTER("Computer", "Ordinateur", "计算机"),
    DESCRIPTION("Description", "Beschreibung", "描述"),

    // Application Error 1000
    APP_NAME("Faulting application name", "Fehlerhafter Anwendungsname", "Nom de l'application défaillante",
            "错误应用程序名称"),
    MODULE_NAME("Faulting module name", "Fehlerhafter Modulname", "Nom du module défaillant", "错误模块名称"),
    EXCEPTION_CODE("Exception code", "Ausnahmecode", "Code d'exception", "异常代码"),
    FAULT_OFFSET("Fault offset", "Fehleroffset", "Décalage d'erreur", "错误偏移量"),
    PROCESS_ID("Faulting process id", "Fehlerhafte Prozess-ID", "ID du processus défaillant", "错误进程 ID",
            "错误进程ID"),
    APP_START_TIME("Faulting application start time", "Fehlerhafte Anwendungsstartzeit",
            "Heure de début de l'application défaillante", "错误应用程序启动时间"),
    APP_PATH("Faulting application path", "Fehlerhafter Anwendungspfad",
            "Chemin d'accès de l'application défaillante", "错误应用程序路径"),
    MODULE_PATH("Faulting module path", "Fehlerhafter Modulpfad", "Chemin d'accès du module défaillant", "错误模块路径"),
    REPORT_ID("Report Id", "Berichts-ID", "Bericht-ID", "ID de rapport", "报告 ID", "报告ID"),
    PACKAGE_NAME("Faulting package full name", "Vollständiger Name des fehlerhaften Pakets",
            "Nom complet du package défaillant", "错误程序包全名"),
    PACKAGE_APP_ID("Faulting package-relative application ID", "Fehlerhafte paketbezogene Anwendungs-ID",
            "ID de l'application relative au package défaillant", "错误程序包相对应用程序 ID"),
    /** Inside the application and module lines: {@code python.exe, version: 3.7.1, time stamp: 0x5b331a30}. */
    VERSION("version", "版本"),
    TIME_STAMP("time stamp", "Zeitstempel", "horodatage", "时间戳"),

    // Windows Error Reporting 1001 (the bucket line has no colon: "Fault bucket 123, type 5")
    FAULT_BUCKET("Fault bucket", "Fehlerbucket", "Récipient d'erreurs", "故障存储段"),
    EVENT_NAME("Event Name", "Ereignisname", "Nom d'événement", "事件名称"),
    RESPONSE("Response", "Antwort", "Réponse", "响应"),
    CAB_ID("Cab Id", "CAB-Datei-ID", "ID CAB", "Cab ID"),
    PROBLEM_SIGNATURE("Problem signature", "Problemsignatur", "Signature du problème", "问题签名"),
    ATTACHED_FILES("Attached files", "Angefügte Dateien", "Fichiers joints", "附加文件"),
    FILES_HERE("These files may be available here", "Diese Dateien befinden sich möglicherweise hier",
            "Ces fichiers sont peut-être disponibles ici", "这些文件可能位于此处"),
    ANALYSIS_SYMBOL("Analysis symbol", "Analysesymbol", "Symbole d'analyse", "分析符号"),
    RECHECKING("Rechecking for solution", "Es wird erneut nach einer Lösung gesucht", "Nouvelle recherche de la solution",
            "正在重新检查解决方案", "重新检查解决方案"),
    REPORT_STATUS("Report Status", "Berichtstatus", "Statut du rapport", "报告状态"),
    HASHED_BUCKET("Hashed bucket", "Bucket mit Hash", "Récipient avec hachage", "哈希存储段"),
    CAB_GUID("Cab Guid", "CAB-GUID", "GUID CAB"),

    // .NET Runtime 1026
    DOTNET_APPLICATION("Application", "Anwendung", "应用程序"),
    FRAMEWORK_VERSION("Framework Version", "Frameworkversion", "Version du Framework", "Framework 版本"),
    CORECLR_VERSION("CoreCLR Version"),
    EXCEPTION_INFO("Exception Info", "Ausnahmeinformationen", "Informations sur l'exception", "异常信息"),

    // Application Hang 1002
    HANG_PROCESS_ID("Process ID", "Prozess-ID", "ID de processus", "进程 ID"),
    START_TIME("Start Time", "Startzeit", "Heure de début", "开始时间"),
    TERMINATION_TIME("Termination Time", "Beendigungszeit", "Heure de fin", "终止时间"),
    APPLICATION_PATH("Application Path", "Anwendungspfad", "Chemin d'accès de l'application", "应用程序路径"),
    HANG_TYPE("Hang type", "Typ des Absturzes", "Type de blocage", "挂起类型"),

    // WHEA-Logger
    COMPONENT("Component", "Reported by component", "Komponente", "Gemeldet von Komponente", "Composant",
            "Signalé par le composant", "组件", "报告者组件"),
    ERROR_SOURCE("Error Source", "Fehlerquelle", "Source de l'erreur", "错误源"),
    ERROR_TYPE("Error Type", "Fehlertyp", "Type d'erreur", "错误类型"),
    PRIMARY_LOCATION("Primary Bus:Device:Function", "Primärer Bus:Gerät:Funktion", "Bus principal:Périphérique:Fonction",
            "主总线:设备:功能"),
    PRIMARY_DEVICE("Primary Device Name", "Name des primären Geräts", "Nom du périphérique principal", "主设备名称"),

    // Get-WinEvent | Format-List properties that hold the same values as the details header
    TIME_CREATED("TimeCreated"),
    PROVIDER_NAME("ProviderName", "ProviderName"),
    ID("Id"),
    LEVEL_DISPLAY_NAME("LevelDisplayName"),
    MACHINE_NAME("MachineName"),
    LOG_NAME_PROPERTY("LogName"),
    RECORD_ID("RecordId"),
    MESSAGE("Message", "Msg");

    /** The fields of an Application Error 1000 message. */
    static final Set<MessageField> APP_ERROR = Set.of(APP_NAME, MODULE_NAME, EXCEPTION_CODE, FAULT_OFFSET, PROCESS_ID,
            APP_START_TIME, APP_PATH, MODULE_PATH, REPORT_ID, PACKAGE_NAME, PACKAGE_APP_ID);
    /** The fields of a WER 1001 message (the bucket line and P1..P10 are read apart). */
    static final Set<MessageField> WER = Set.of(EVENT_NAME, RESPONSE, CAB_ID, PROBLEM_SIGNATURE, ATTACHED_FILES,
            FILES_HERE, ANALYSIS_SYMBOL, RECHECKING, REPORT_ID, REPORT_STATUS, HASHED_BUCKET, CAB_GUID);
    /** The fields of a .NET Runtime message. */
    static final Set<MessageField> DOTNET = Set.of(DOTNET_APPLICATION, FRAMEWORK_VERSION, CORECLR_VERSION, DESCRIPTION,
            EXCEPTION_INFO);
    /** The fields of an Application Hang 1002 message. */
    static final Set<MessageField> HANG = Set.of(HANG_PROCESS_ID, START_TIME, TERMINATION_TIME, APPLICATION_PATH,
            REPORT_ID, PACKAGE_NAME, PACKAGE_APP_ID, HANG_TYPE);
    /** The fields of a WHEA-Logger message. */
    static final Set<MessageField> WHEA = Set.of(COMPONENT, ERROR_SOURCE, ERROR_TYPE, PRIMARY_LOCATION, PRIMARY_DEVICE);
    /** The header fields of an Event Viewer details copy and of {@code wevtutil qe /f:text}. */
    static final Set<MessageField> HEADER = Set.of(LOG_NAME, SOURCE, DATE, EVENT_ID, TASK, LEVEL, OPCODE, KEYWORDS, USER,
            USER_NAME, COMPUTER, DESCRIPTION);

    private final List<String> spellings;

    MessageField(String... spellings) {
        this.spellings = List.of(spellings);
    }

    /** Returns this field's labels, as they appear in the languages we know. */
    List<String> spellings() {
        return spellings;
    }

    /** A line split into the field its label names and the value after the colon. */
    record Labelled(MessageField field, String label, String value) {}

    private record Spelling(MessageField field, String text) {}

    // longest first, so "Report Status" wins over "Report" and "User Name" over "User"
    private static final List<Spelling> BY_LENGTH;

    static {
        List<Spelling> all = new ArrayList<>();
        for (MessageField f : values()) {
            for (String s : f.spellings) {
                all.add(new Spelling(f, fold(s)));
            }
        }
        all.sort(Comparator.comparingInt((Spelling s) -> s.text().length()).reversed());
        BY_LENGTH = List.copyOf(all);
    }

    /**
     * Reads {@code line} as {@code <label> : <value>} for one of {@code fields}; null when it is not such a line.
     * Leading blanks are ignored; the colon may be ASCII or full-width and have blanks before it.
     */
    static Labelled match(String line, Set<MessageField> fields) {
        String trimmed = line.stripLeading();
        if (trimmed.isEmpty()) {
            return null;
        }
        String folded = fold(trimmed);
        for (Spelling s : BY_LENGTH) {
            if (!fields.contains(s.field()) || !folded.regionMatches(true, 0, s.text(), 0, s.text().length())) {
                continue;
            }
            int i = s.text().length();
            while (i < trimmed.length() && (trimmed.charAt(i) == ' ' || trimmed.charAt(i) == '\t')) {
                i++;
            }
            if (i < trimmed.length() && (trimmed.charAt(i) == ':' || trimmed.charAt(i) == '：')) {
                return new Labelled(s.field(), trimmed.substring(0, s.text().length()), trimmed.substring(i + 1).strip());
            }
        }
        return null;
    }

    /** Tells whether {@code text} starts with one of this field's labels (no colon required). */
    boolean startsWith(String text) {
        String folded = fold(text.stripLeading());
        for (String s : spellings) {
            String f = fold(s);
            if (folded.regionMatches(true, 0, f, 0, f.length())) {
                return true;
            }
        }
        return false;
    }

    /** Folds typographic apostrophes to ASCII so either spelling matches; keeps the length. */
    static String fold(String s) {
        return s.indexOf('’') < 0 ? s : s.replace('’', '\'');
    }
}
