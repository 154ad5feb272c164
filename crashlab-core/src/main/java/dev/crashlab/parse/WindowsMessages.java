package dev.crashlab.parse;

import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * The text Windows gives for a system error number (FormatMessage) is in the system's language: Python prints
 * {@code OSError: [WinError 126] Das angegebene Modul wurde nicht gefunden.} on a German Windows, and before Python
 * 3.8 {@code ImportError: DLL load failed: } followed by that text and no number at all. The few messages that decide a
 * cause (a DLL or one of its dependencies missing, a procedure missing, a 32/64-bit mix, a DLL's start-up failing, the
 * paging file too small) are known here in the languages users paste most, so that a rule written for the English text
 * reads the others too. A Chinese console writes GBK, which this reader decodes as Windows-1252 when the bytes are not
 * UTF-8: that reading is known too.
 *
 * <p>Sources: Microsoft's system error code pages, per language
 * (https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-, de-de/fr-fr/zh-cn/ja-jp/es-es
 * likewise; codes 1114 and 1455 on the 1000-1299 and 1300-1699 pages); the French and Chinese 126 and the Chinese
 * 1455 texts as users paste them (https://github.com/gfjiangly/cvtools/issues/4,
 * https://github.com/NanBox/PiPiName/issues/5, https://github.com/yassouali/pytorch-segmentation/issues/118).
 */
public final class WindowsMessages {

    private WindowsMessages() {}

    /** One localised message: the English text rules are written for, and the text in another language. */
    record Message(int code, String english, String localised) {}

    private static final String[][] TABLE = {
        // code, English, then its text in German, French, Spanish, Chinese (simplified), Japanese (Russian below)
        {"126", "The specified module could not be found.", "Das angegebene Modul wurde nicht gefunden.",
            "Le module sp\u00e9cifi\u00e9 est introuvable.", "No se puede encontrar el m\u00f3dulo especificado.",
            "\u627e\u4e0d\u5230\u6307\u5b9a\u7684\u6a21\u5757\u3002",
            "\u6307\u5b9a\u3055\u308c\u305f\u30e2\u30b8\u30e5\u30fc\u30eb\u304c\u898b\u3064\u304b\u308a\u307e\u305b\u3093\u3002"},
        {"127", "The specified procedure could not be found.", "Die angegebene Prozedur wurde nicht gefunden.",
            "La proc\u00e9dure sp\u00e9cifi\u00e9e est introuvable.", "No se encontr\u00f3 el proceso especificado.",
            "\u627e\u4e0d\u5230\u6307\u5b9a\u7684\u7a0b\u5e8f\u3002",
            "\u6307\u5b9a\u3055\u308c\u305f\u30d7\u30ed\u30b7\u30fc\u30b8\u30e3\u304c\u898b\u3064\u304b\u308a\u307e\u305b\u3093\u3002"},
        {"193", "is not a valid Win32 application.", "ist keine zul\u00e4ssige Win32-Anwendung.",
            "n'est pas une application Win32 valide.", "no es una aplicaci\u00f3n Win32 v\u00e1lida.",
            "\u4e0d\u662f\u6709\u6548\u7684 Win32 \u5e94\u7528\u7a0b\u5e8f\u3002",
            "\u306f\u6709\u52b9\u306a Win32 \u30a2\u30d7\u30ea\u30b1\u30fc\u30b7\u30e7\u30f3\u3067\u306f\u3042\u308a\u307e\u305b\u3093\u3002"},
        {"1114", "A dynamic link library (DLL) initialization routine failed.", "Eine DLL-Initialisierungsroutine ist fehlgeschlagen.",
            "Une routine d'initialisation d'une biblioth\u00e8que de liens dynamiques (DLL) a \u00e9chou\u00e9.",
            "Error en una rutina de inicializaci\u00f3n de biblioteca de v\u00ednculos din\u00e1micos (DLL).",
            "\u52a8\u6001\u94fe\u63a5\u5e93(DLL)\u521d\u59cb\u5316\u4f8b\u7a0b\u5931\u8d25\u3002",
            "\u30c0\u30a4\u30ca\u30df\u30c3\u30af \u30ea\u30f3\u30af \u30e9\u30a4\u30d6\u30e9\u30ea (DLL) \u521d\u671f\u5316\u30eb\u30fc\u30c1\u30f3\u304c\u5931\u6557\u3057\u307e\u3057\u305f\u3002"},
        {"1455", "The paging file is too small for this operation to complete.",
            "Die Auslagerungsdatei ist zu klein, um diesen Vorgang durchzuf\u00fchren.",
            "Le fichier de pagination est insuffisant pour terminer cette op\u00e9ration.",
            "El archivo de paginaci\u00f3n es demasiado peque\u00f1o para completar esta operaci\u00f3n.",
            "\u9875\u9762\u6587\u4ef6\u592a\u5c0f\uff0c\u65e0\u6cd5\u5b8c\u6210\u64cd\u4f5c\u3002",
            "\u3053\u306e\u64cd\u4f5c\u3092\u5b8c\u4e86\u3059\u308b\u306e\u306b\u3001\u30da\u30fc\u30b8\u30f3\u30b0 \u30d5\u30a1\u30a4\u30eb\u304c\u5c0f\u3055\u3059\u304e\u307e\u3059\u3002"},
    };

    /** Russian (Windows-1251 consoles; read as UTF-8 when the file is): the two texts known for certain. */
    private static final String[][] RUSSIAN = {
        {"126", "The specified module could not be found.", "\u041d\u0435 \u043d\u0430\u0439\u0434\u0435\u043d \u0443\u043a\u0430\u0437\u0430\u043d\u043d\u044b\u0439 \u043c\u043e\u0434\u0443\u043b\u044c."},
        {"1455", "The paging file is too small for this operation to complete.",
            "\u0424\u0430\u0439\u043b \u043f\u043e\u0434\u043a\u0430\u0447\u043a\u0438 \u0441\u043b\u0438\u0448\u043a\u043e\u043c \u043c\u0430\u043b \u0434\u043b\u044f \u0437\u0430\u0432\u0435\u0440\u0448\u0435\u043d\u0438\u044f \u043e\u043f\u0435\u0440\u0430\u0446\u0438\u0438."},
    };

    private static final List<Message> MESSAGES = messages();

    private static List<Message> messages() {
        Charset cp1252 = Charset.forName("windows-1252");
        Charset gbk = Charset.forName("GBK");
        Charset sjis = Charset.forName("Shift_JIS");
        List<Message> out = new ArrayList<>();
        for (String[] row : TABLE) {
            int code = Integer.parseInt(row[0]);
            for (int i = 2; i < row.length; i++) {
                String text = row[i];
                out.add(new Message(code, row[1], text));
                // the same text with typographic apostrophes, as newer Windows versions write French
                if (text.indexOf('\'') >= 0) {
                    out.add(new Message(code, row[1], text.replace('\'', '\u2019')));
                }
                // a GBK (Chinese) or Shift_JIS (Japanese) console's bytes read as Windows-1252, and the CJK texts without
                // their full stop (some versions and threads drop it)
                if (i >= 5) {
                    Charset cs = i == 5 ? gbk : sjis;
                    out.add(new Message(code, row[1], new String(text.getBytes(cs), cp1252)));
                    String stem = text.substring(0, text.length() - 1);
                    out.add(new Message(code, row[1], new String(stem.getBytes(cs), cp1252)));
                    out.add(new Message(code, row[1], stem));
                }
            }
        }
        for (String[] row : RUSSIAN) {
            out.add(new Message(Integer.parseInt(row[0]), row[1], row[2]));
        }
        return List.copyOf(out);
    }

    /**
     * The line with every localised message of the table in English ({@code [WinError 126] The specified module could not
     * be found.}); the line itself (the same instance) when it holds none.
     */
    public static String inEnglish(String line) {
        String out = line;
        if (line.length() < 12) {
            return out;
        }
        for (Message m : MESSAGES) {
            if (out.contains(m.localised())) {
                out = out.replace(m.localised(), m.english());
            }
        }
        return out;
    }
}
