package dev.crashlab.account;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The passwords an attacker tries first, from {@code account/common-passwords.txt} (validated at load with its line
 * number), and the variants of them that are refused too: any case, common letter swaps ({@code P@ssw0rd}),
 * digits and symbols added at either end ({@code Password2024!}), and repetitions ({@code monkeymonkey}).
 */
final class CommonPasswords {

    static final String RESOURCE = "account/common-passwords.txt";

    private static final Set<String> LIST = load();

    private CommonPasswords() {}

    /** Tells whether {@code password} is a listed password or one of its variants. */
    static boolean isCommon(String password) {
        String lower = password.strip().toLowerCase(Locale.ROOT);
        for (String candidate : candidates(lower)) {
            if (listedOrRepeated(candidate)) {
                return true;
            }
        }
        return false;
    }

    static int size() {
        return LIST.size();
    }

    private static List<String> candidates(String lower) {
        String alnum = lower.replaceAll("[^\\p{L}\\p{N}]", ""); // "pass word", "pass-word"
        List<String> out = new ArrayList<>();
        // digits and symbols at the ends go before or after undoing the swaps: "P@ssw0rd123", "Password2024!"
        for (String base : List.of(lower, trimEnds(lower), alnum, trimEnds(alnum))) {
            for (String form : List.of(base, unswap(base, 'i'), unswap(base, 'l'))) {
                out.add(form);
                out.add(trimEnds(form));
            }
        }
        return out;
    }

    /** Undoes the usual letter swaps; {@code one} is what a 1 stood for. */
    private static String unswap(String s, char one) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(switch (c) {
                case '0' -> 'o';
                case '1' -> one;
                case '!', '|' -> 'i';
                case '3' -> 'e';
                case '4', '@' -> 'a';
                case '5', '$' -> 's';
                case '7', '+' -> 't';
                default -> c;
            });
        }
        return b.toString();
    }

    /** Drops digits, symbols and blanks at both ends. */
    private static String trimEnds(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && !Character.isLetter(s.charAt(from))) {
            from++;
        }
        while (to > from && !Character.isLetter(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(from, to);
    }

    private static boolean listedOrRepeated(String s) {
        if (s.length() < 3) {
            return false;
        }
        if (LIST.contains(s)) {
            return true;
        }
        for (int period = 3; period <= s.length() / 2; period++) {
            if (s.length() % period == 0 && s.substring(period).equals(s.substring(0, s.length() - period))
                    && LIST.contains(s.substring(0, period))) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> load() {
        Set<String> out = new HashSet<>();
        try (InputStream in = CommonPasswords.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (!line.equals(line.strip().toLowerCase(Locale.ROOT)) || line.length() < 3) {
                    throw new IllegalStateException(RESOURCE + ":" + n + ": an entry is lower case, without blanks at its "
                            + "ends, at least 3 characters: `" + line + "`");
                }
                if (!out.add(line)) {
                    throw new IllegalStateException(RESOURCE + ":" + n + ": `" + line + "` is listed twice");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(out);
    }
}
