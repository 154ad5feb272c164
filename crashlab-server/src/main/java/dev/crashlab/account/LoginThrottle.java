package dev.crashlab.account;

import dev.crashlab.config.AuthConfig;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.domain.DomainException;
import dev.crashlab.domain.DomainException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Slows password guessing: counts failed sign-ins per account and per client address in a sliding window
 * ({@code crashlab.auth.login-window}); once either count reaches its limit, sign-ins for that account or
 * from that address are refused (429 with Retry-After) before the password is even checked, until the
 * oldest failure leaves the window. A successful sign-in clears the account's count (not the address's).
 *
 * <p>Memory is bounded: at most {@link #MAX_KEYS} accounts and addresses are remembered, each with at most
 * its limit of timestamps; past that the longest-unused ones are forgotten. Counts live in this process
 * only (a restart forgets them).
 */
@ApplicationScoped
public class LoginThrottle {

    /** Most accounts plus addresses remembered at once. */
    static final int MAX_KEYS = 20_000;

    @Inject
    CrashLabConfig config;

    private final Map<String, ArrayDeque<Instant>> failures = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<Instant>> eldest) {
            return size() > MAX_KEYS;
        }
    };

    /** Refuses the attempt (429) when the account or the address is over its limit right now. */
    public synchronized void check(String username, String address, Instant now) {
        AuthConfig auth = config.auth();
        long account = waitFor(accountKey(username), auth.loginFailuresPerAccount(), auth.loginWindow(), now);
        if (account > 0) {
            throw refused(account, "too many failed sign-ins for `" + username.strip() + "`");
        }
        long addr = waitFor(addressKey(address), auth.loginFailuresPerAddress(), auth.loginWindow(), now);
        if (addr > 0) {
            throw refused(addr, "too many failed sign-ins from your address");
        }
    }

    /** Counts a failed sign-in against the account and the address. */
    public synchronized void failed(String username, String address, Instant now) {
        AuthConfig auth = config.auth();
        add(accountKey(username), auth.loginFailuresPerAccount(), auth.loginWindow(), now);
        add(addressKey(address), auth.loginFailuresPerAddress(), auth.loginWindow(), now);
    }

    /** A right password: the account starts afresh. */
    public synchronized void succeeded(String username) {
        String key = accountKey(username);
        if (key != null) {
            failures.remove(key);
        }
    }

    private static String accountKey(String username) {
        return username == null || username.isBlank() ? null : "u:" + username.strip().toLowerCase(Locale.ROOT);
    }

    private static String addressKey(String address) {
        return address == null || address.isBlank() ? null : "a:" + address;
    }

    /** Seconds until one more attempt is allowed; 0 when allowed now. */
    private long waitFor(String key, int limit, Duration window, Instant now) {
        if (key == null || limit <= 0) {
            return 0;
        }
        ArrayDeque<Instant> times = failures.get(key);
        if (times == null) {
            return 0;
        }
        prune(times, window, now);
        if (times.isEmpty()) {
            failures.remove(key);
            return 0;
        }
        if (times.size() < limit) {
            return 0;
        }
        long millis = Duration.between(now, times.peekFirst().plus(window)).toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    private void add(String key, int limit, Duration window, Instant now) {
        if (key == null || limit <= 0) {
            return;
        }
        ArrayDeque<Instant> times = failures.computeIfAbsent(key, k -> new ArrayDeque<>());
        prune(times, window, now);
        times.addLast(now);
        while (times.size() > limit) {
            times.removeFirst();
        }
    }

    private static void prune(ArrayDeque<Instant> times, Duration window, Instant now) {
        Instant oldest = now.minus(window);
        for (Iterator<Instant> it = times.iterator(); it.hasNext(); ) {
            if (it.next().isAfter(oldest)) {
                break;
            }
            it.remove();
        }
    }

    private static DomainException refused(long seconds, String what) {
        return new DomainException(Kind.TOO_MANY, "too-many-sign-ins", "Too many failed sign-ins",
                what + "; wait " + Durations.words(seconds) + " and try again, or ask an admin to set a new password",
                seconds);
    }

    /** "45 seconds", "12 minutes". */
    static final class Durations {
        private Durations() {}

        static String words(long seconds) {
            if (seconds < 90) {
                return seconds + (seconds == 1 ? " second" : " seconds");
            }
            long minutes = (seconds + 59) / 60;
            return minutes + " minutes";
        }
    }
}
