package dev.crashlab.parse.evtx;

/**
 * Escapes text for XML 1.0 so that any record renders as well-formed XML: markup characters become
 * entities, characters XML 1.0 forbids (C0 controls but tab, LF and CR; U+FFFE, U+FFFF) become U+FFFD.
 */
final class XmlText {

    private XmlText() {}

    /** Tells whether XML 1.0 allows the BMP character {@code c}. */
    static boolean isXmlChar(int c) {
        return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD);
    }

    /** Appends {@code s} escaped for element content or a double-quoted attribute value. */
    static void escape(StringBuilder sb, String s, boolean attribute) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append(attribute ? "&quot;" : "\"");
                case '\t', '\n', '\r' -> {
                    if (attribute) {
                        sb.append("&#").append((int) c).append(';');
                    } else {
                        sb.append(c);
                    }
                }
                default -> {
                    if (c < 0x20 || c == 0xFFFE || c == 0xFFFF) {
                        sb.append('\uFFFD');
                    } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                        sb.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        sb.append('\uFFFD');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
    }
}
