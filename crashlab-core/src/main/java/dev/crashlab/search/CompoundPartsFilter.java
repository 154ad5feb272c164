package dev.crashlab.search;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/**
 * Trims punctuation off token ends and emits a compound token ({@code cudart64_110.dll},
 * {@code CUDNN_STATUS_INTERNAL_ERROR}, {@code std::bad_alloc}, {@code C:\cuda\bin}) whole, then its parts
 * at the same position ({@code cudart64}, {@code 110}, {@code dll}; and {@code cudart} for a part that
 * ends in digits), so a search for either finds it.
 *
 * <p>NOTE: parts are split on {@code _ . :: : / \ -}; a leading minus before digits is a sign and stays.
 */
public final class CompoundPartsFilter extends TokenFilter {

    private static final Pattern SEPARATORS = Pattern.compile("::|[_.:/\\\\-]+");
    private static final Pattern LETTERS_THEN_DIGITS = Pattern.compile("([A-Za-z]{3,})\\d+");

    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
    private final PositionIncrementAttribute posInc = addAttribute(PositionIncrementAttribute.class);
    private final Deque<Part> pending = new ArrayDeque<>();

    private record Part(String text, int start, int end) {}

    public CompoundPartsFilter(TokenStream in) {
        super(in);
    }

    @Override
    public boolean incrementToken() throws IOException {
        if (!pending.isEmpty()) {
            Part p = pending.removeFirst();
            term.setEmpty().append(p.text());
            offset.setOffset(p.start(), p.end());
            posInc.setPositionIncrement(0);
            return true;
        }
        while (input.incrementToken()) {
            String t = term.toString();
            int start = offset.startOffset();
            int lead = 0;
            while (lead < t.length() && isTrim(t.charAt(lead)) && !(t.charAt(lead) == '-' && lead + 1 < t.length()
                    && Character.isDigit(t.charAt(lead + 1)))) {
                lead++;
            }
            int trail = t.length();
            while (trail > lead && isTrim(t.charAt(trail - 1))) {
                trail--;
            }
            if (trail <= lead) {
                continue; // punctuation only
            }
            String whole = t.substring(lead, trail);
            int wholeStart = start + lead;
            term.setEmpty().append(whole);
            offset.setOffset(wholeStart, wholeStart + whole.length());
            queueParts(whole, wholeStart);
            return true;
        }
        return false;
    }

    private void queueParts(String whole, int start) {
        if (whole.chars().noneMatch(Character::isLetter)) {
            return; // numbers, versions, times and dates stay whole (NumberMaskFilter decides about them)
        }
        Matcher sep = SEPARATORS.matcher(whole);
        int from = 0;
        boolean split = false;
        while (sep.find()) {
            if (sep.start() > from) {
                addPart(whole.substring(from, sep.start()), start + from);
            }
            from = sep.end();
            split = true;
        }
        if (split && from < whole.length()) {
            addPart(whole.substring(from), start + from);
        }
        if (!split) {
            Matcher m = LETTERS_THEN_DIGITS.matcher(whole);
            if (m.matches()) {
                pending.add(new Part(m.group(1), start, start + m.group(1).length()));
            }
        }
    }

    private void addPart(String part, int start) {
        pending.add(new Part(part, start, start + part.length()));
        Matcher m = LETTERS_THEN_DIGITS.matcher(part);
        if (m.matches()) {
            pending.add(new Part(m.group(1), start, start + m.group(1).length()));
        }
    }

    private static boolean isTrim(char c) {
        return c == '.' || c == ':' || c == '/' || c == '\\' || c == '-' || c == '+' || c == '_';
    }

    @Override
    public void reset() throws IOException {
        super.reset();
        pending.clear();
    }
}
