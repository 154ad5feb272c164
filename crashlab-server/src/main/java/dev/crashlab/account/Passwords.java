package dev.crashlab.account;

import dev.crashlab.domain.DomainException;
import java.security.SecureRandom;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/** bcrypt (Bouncy Castle's OpenBSDBCrypt, the {@code $2b$} format) with a random 16-byte salt per password. */
public final class Passwords {

    /** The smallest accepted password length; long phrases beat character rules. */
    public static final int MIN_LENGTH = 10;
    /** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut. */
    public static final int MAX_BYTES = 72;
    /** The fewest different characters a password must have. */
    public static final int MIN_DISTINCT = 5;

    private static final SecureRandom RANDOM = new SecureRandom();

    private Passwords() {}

    public static String hash(String password, int cost) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return OpenBSDBCrypt.generate("2b", password.toCharArray(), salt, cost);
    }

    public static boolean matches(String password, String hash) {
        try {
            return password != null && hash != null && OpenBSDBCrypt.checkPassword(hash, password.toCharArray());
        } catch (IllegalArgumentException e) {
            return false; // not a bcrypt string
        }
    }

    /** Returns the cost a bcrypt string was made with, or -1 if it is not one. */
    public static int cost(String hash) {
        if (hash == null || hash.length() < 7 || hash.charAt(0) != '$' || hash.charAt(3) != '$' || hash.charAt(6) != '$') {
            return -1;
        }
        try {
            return Integer.parseInt(hash.substring(4, 6));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Refuses passwords that are too short or too long for bcrypt, that have fewer than {@link #MIN_DISTINCT}
     * different characters ({@code aaaaaaaaaa}, ten spaces, {@code abababab...}), or that are a common password
     * ({@link CommonPasswords}).
     */
    public static void check(String password) {
        if (password == null || password.length() < MIN_LENGTH) {
            throw new DomainException(DomainException.Kind.INVALID, "weak-password", "Password too short",
                    "a password needs at least " + MIN_LENGTH + " characters");
        }
        if (password.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new DomainException(DomainException.Kind.INVALID, "long-password", "Password too long",
                    "a password may be at most " + MAX_BYTES + " bytes long (bcrypt ignores the rest)");
        }
        if (password.strip().codePoints().distinct().count() < MIN_DISTINCT) {
            throw new DomainException(DomainException.Kind.INVALID, "weak-password", "Password too simple",
                    "a password needs at least " + MIN_DISTINCT + " different characters (not counting blanks at its ends); "
                            + "a few unrelated words make a good one");
        }
        if (CommonPasswords.isCommon(password)) {
            throw new DomainException(DomainException.Kind.INVALID, "weak-password", "Password too common",
                    "this is a common password (or a close variant of one), among the first an attacker tries; "
                            + "a few unrelated words make a good one");
        }
    }

    /** Like {@link #check(String)}, and refuses a password that is the user name (in any case). */
    public static void check(String password, String username) {
        check(password);
        if (username != null && !username.isBlank() && password.strip().equalsIgnoreCase(username.strip())) {
            throw new DomainException(DomainException.Kind.INVALID, "weak-password", "Password is the user name",
                    "a password may not be the user name");
        }
    }
}
