package dev.crashlab.search;

import java.io.IOException;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/**
 * Masks numbers that are not codes (PIDs, sizes, addresses, timestamps) as {@code <num>}, {@code <addr>} or
 * {@code <time>}, so they neither match each other by accident nor bloat the index; keeps codes (short
 * numbers like Xid 79, NTSTATUS values like {@code 0xC0000409}) and adds the hex form of a decimal NTSTATUS
 * ({@code -1073740791} and {@code 3221226505} also index as {@code 0xc0000409}).
 */
public final class NumberMaskFilter extends TokenFilter {

    private static final Pattern DIGITS = Pattern.compile("-?\\d+");
    private static final Pattern HEX = Pattern.compile("(?i)0x[0-9a-f]+");
    private static final Pattern TIME = Pattern.compile("\\d{1,4}[-:/]\\d{1,2}[-:/]\\d{1,4}(?:[T ]?\\d{1,2}:\\d{2}(?::\\d{2})?)?(?:[.,]\\d+)?");
    private static final Pattern DECIMAL = Pattern.compile("\\d+\\.\\d{3,}");

    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final PositionIncrementAttribute posInc = addAttribute(PositionIncrementAttribute.class);
    private String pendingHex;

    public NumberMaskFilter(TokenStream in) {
        super(in);
    }

    @Override
    public boolean incrementToken() throws IOException {
        if (pendingHex != null) {
            term.setEmpty().append(pendingHex);
            posInc.setPositionIncrement(0);
            pendingHex = null;
            return true;
        }
        if (!input.incrementToken()) {
            return false;
        }
        String t = term.toString();
        if (DIGITS.matcher(t).matches()) {
            String hex = ntstatusHex(t);
            if (hex != null) {
                pendingHex = hex;
            } else if (t.replace("-", "").length() >= 5) {
                term.setEmpty().append("<num>");
            }
        } else if (HEX.matcher(t).matches() && t.length() > 10) {
            term.setEmpty().append("<addr>"); // 0x00007ff6... is an address; NTSTATUS codes have 8 hex digits
        } else if (TIME.matcher(t).matches()) {
            term.setEmpty().append("<time>");
        } else if (DECIMAL.matcher(t).matches()) {
            term.setEmpty().append("<num>");
        }
        return true;
    }

    /** The hex form of a decimal NTSTATUS error or warning (0x8... or 0xC...), or null when it is not one. */
    static String ntstatusHex(String decimal) {
        try {
            long v = Long.parseLong(decimal);
            long unsigned = v < 0 ? v + (1L << 32) : v;
            if (unsigned >= 0x80000000L && unsigned <= 0xFFFFFFFFL && (v < 0 || decimal.length() == 10)) {
                return String.format(Locale.ROOT, "0x%08x", unsigned);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    @Override
    public void reset() throws IOException {
        super.reset();
        pendingHex = null;
    }
}
