package dev.crashlab.parse.winevent;

/**
 * One line of a pasted event text after what the paste added was removed (HTML tags and entities, a
 * {@code > } quote prefix).
 *
 * @param number the 1-based line number in the artifact
 * @param text the line without those additions
 * @param quoted whether the line carried a {@code >} quote prefix
 */
record TextLine(long number, String text, boolean quoted) {

    /** Returns the number of leading blanks. */
    int indent() {
        int i = 0;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** Tells whether the line is empty or blanks only. */
    boolean blank() {
        return text.isBlank();
    }
}
