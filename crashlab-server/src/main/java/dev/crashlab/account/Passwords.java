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

    /** Refuses passwords that are too short or too long for bcrypt. */
    public static void check(String password) {
        if (password == null || password.length() < MIN_LENGTH) {
            throw new DomainException(DomainException.Kind.INVALID, "weak-password", "Password too short",
                    "a password needs at least " + MIN_LENGTH + " characters");
        }
        if (password.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new DomainException(DomainException.Kind.INVALID, "long-password", "Password too long",
                    "a password may be at most " + MAX_BYTES + " bytes long (bcrypt ignores the rest)");
        }
    }
}
