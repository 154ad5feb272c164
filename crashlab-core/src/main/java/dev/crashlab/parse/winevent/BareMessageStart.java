package dev.crashlab.parse.winevent;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises the first line of an event message pasted without its header (the General tab's text, an issue
 * comment), and names the provider and event id that write such messages.
 *
 * @param provider the provider that writes this message
 * @param eventId its event id; null where several ids share the text
 */
record BareMessageStart(String provider, Integer eventId) {

    static final String NVLDDMKM = "nvlddmkm";

    private static final Pattern NOT_FOUND = Pattern.compile(
            "(?i)^\\s*(?:The description for Event ID\\s*\\(?(\\d{1,5})\\)?\\s*(?:in|from) source\\s*\\(?(.{1,128}?)\\)?\\s+cannot be found"
                    + "|Die Beschreibung für Ereignis-ID\\s*\\(?(\\d{1,5})\\)?\\s*aus der Quelle\\s*\\(?(.{1,128}?)\\)?\\s+wurde nicht gefunden"
                    + "|La description de l.ID d.événement\\s*(\\d{1,5})\\s*dans la source\\s*(.{1,128}?)\\s+est introuvable)");
    private static final Pattern HANG = Pattern.compile("(?i)^\\s*The program \\S{1,260} version \\S{1,64} stopped interacting");
    private static final Pattern DISPLAY = Pattern.compile(
            "(?i)^\\s*(?:Display driver|Der Anzeigetreiber|Anzeigetreiber|Le pilote d.affichage|显示器驱动程序|显示驱动程序)\\s*\\S{1,64}?\\s*"
                    + "(?:stopped responding|reagiert|a cessé|已停止响应|停止响应)");
    private static final Pattern GRAPHICS = Pattern.compile("^\\s*Graphics (?:SM |Engine )?(?:\\w+ ){0,3}Exception");

    /** Returns what starts with {@code line}, or null when it starts no message we know. */
    static BareMessageStart of(String line) {
        if (line.isBlank() || line.length() > 4096) {
            return null;
        }
        if (MessageField.match(line, java.util.Set.of(MessageField.APP_NAME)) != null) {
            return new BareMessageStart("Application Error", 1000);
        }
        if (MessageField.FAULT_BUCKET.startsWith(line)) {
            return new BareMessageStart("Windows Error Reporting", 1001);
        }
        Matcher nf = NOT_FOUND.matcher(line);
        if (nf.find()) {
            for (int g = 1; g <= 5; g += 2) {
                if (nf.group(g) != null) {
                    return new BareMessageStart(nf.group(g + 1).strip(), Integer.valueOf(nf.group(g)));
                }
            }
        }
        if (DISPLAY.matcher(line).find()) {
            return new BareMessageStart("Display", 4101);
        }
        if (GRAPHICS.matcher(line).find()) {
            return new BareMessageStart(NVLDDMKM, 13);
        }
        if (HANG.matcher(line).find()) {
            return new BareMessageStart("Application Hang", 1002);
        }
        String lower = line.strip().toLowerCase(java.util.Locale.ROOT);
        if (lower.startsWith("the computer has rebooted from a bugcheck")) {
            return new BareMessageStart("Microsoft-Windows-WER-SystemErrorReporting", 1001);
        }
        if (lower.startsWith("the system has rebooted without cleanly shutting down first")) {
            return new BareMessageStart("Microsoft-Windows-Kernel-Power", 41);
        }
        if (lower.startsWith("a fatal hardware error has occurred") || lower.startsWith("a corrected hardware error has occurred")) {
            return new BareMessageStart("Microsoft-Windows-WHEA-Logger", null);
        }
        if (MessageField.match(line, java.util.Set.of(MessageField.DOTNET_APPLICATION)) != null) {
            return new BareMessageStart(".NET Runtime", 1026);
        }
        return null;
    }

    /** Tells whether {@code line} continues a message this start began rather than starting another. */
    boolean continuedBy(BareMessageStart next) {
        return provider.equals(NVLDDMKM) && next.provider.equals(NVLDDMKM) && next.eventId != null && next.eventId == 13;
    }
}
