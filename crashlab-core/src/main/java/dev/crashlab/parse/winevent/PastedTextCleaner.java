package dev.crashlab.parse.winevent;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes what pasting added to event text: a blog's HTML wrapper ({@code <pre>}, {@code <td>},
 * {@code &nbsp;}) and markdown quote prefixes ({@code > }).
 *
 * <p>NOTE: only layout tags are stripped, never XML such as an embedded {@code <Event>}; entities are decoded
 * only once such a tag was seen, so the {@code &amp;} of genuine XML stays XML.
 */
final class PastedTextCleaner {

    private static final Pattern LAYOUT_TAG = Pattern.compile(
            "(?i)</?(?:html|head|body|div|pre|code|table|tbody|thead|tr|td|th|span|p|br|blockquote)\\b[^<>]{0,500}/?>");

    private boolean html;

    /** Returns line {@code number} with the additions removed. */
    TextLine clean(long number, String raw) {
        String s = raw;
        if (s.indexOf('<') >= 0) {
            Matcher m = LAYOUT_TAG.matcher(s);
            if (m.find()) {
                html = true;
                boolean leading = s.substring(0, m.start()).isBlank();
                s = m.replaceAll("");
                if (leading) {
                    s = s.stripLeading();
                }
            }
        }
        if (html && s.indexOf('&') >= 0) {
            s = s.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"")
                    .replace("&#39;", "'").replace("&amp;", "&");
        }
        boolean quoted = false;
        int i = 0;
        while (i < s.length() && s.charAt(i) == ' ' && i < 4) {
            i++;
        }
        if (i < s.length() && s.charAt(i) == '>') {
            quoted = true;
            s = s.substring(i + 1);
            if (s.startsWith(" ")) {
                s = s.substring(1);
            }
        }
        return new TextLine(number, s, quoted);
    }
}
