package dev.crashlab.parse.winevent;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the insertion strings out of a "The description for Event ID N from source S cannot be found" message:
 * when the provider's message file is missing, that text is all that is left of the event data.
 */
final class InsertionStrings {

    private static final List<String> INTRO = List.of(
            "the following information was included with the event",
            "die folgenden informationen wurden mit dem ereignis gespeichert",
            "die folgenden informationen sind teil des ereignisses",
            "les informations suivantes ont été incluses avec l'événement",
            "该事件中包含以下信息");
    private static final List<String> OUTRO = List.of(
            "the message resource is present but the message was not found",
            "die nachrichtenressource ist vorhanden",
            "la ressource de message est présente",
            "消息资源存在");

    private InsertionStrings() {}

    /** Returns the insertion strings of {@code message}, in order; empty when it is no such message. */
    static List<String> of(String message) {
        List<String> out = new ArrayList<>();
        if (message == null) {
            return out;
        }
        boolean in = false;
        for (String line : message.lines().limit(5000).toList()) {
            String folded = MessageField.fold(line.strip()).toLowerCase(Locale.ROOT);
            if (!in) {
                in = INTRO.stream().anyMatch(folded::startsWith);
                continue;
            }
            if (OUTRO.stream().anyMatch(folded::startsWith) || out.size() >= 64) {
                break;
            }
            if (!folded.isEmpty()) {
                out.add(line.strip());
            }
        }
        return out;
    }
}
